import Foundation
import Testing
import PocketTransformer

/// The decode loop with a ``PromptLookup`` draft: the tokens are those of plain decoding, every
/// one chosen by `choose`, and the cache holds only what was chosen.
@Suite(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"), .serialized)
struct DraftedDecodingTests {
    /// A prompt whose continuation copies from it, so drafts are often right.
    static var copyingPrompt: [Int] {
        TestModel.tokenizer.encode(
            "Fruits: apple, banana, cherry, date, elderberry, fig, grape, honeydew, kiwi, lemon, mango.\n"
                + "Fruits again: apple, banana, cherry,")
    }

    /// Greedy or seeded decoding of 40 tokens after `prompt`, with or without a lookup.
    private func generate(_ prompt: [Int], sampling: SamplingParameters, lookup: PromptLookup?) throws
        -> (tokens: [Int], statistics: GenerationStatistics, next: [Float]) {
        let model = try TestModel.transformer(context: 256)
        var sampler = Sampler(sampling)
        var tokens: [Int] = []
        let statistics = try model.generate(
            prompt: prompt, maximumTokens: 40, sampler: &sampler, stopTokens: [], lookup: lookup
        ) { tokens.append($0); return true }
        // What the cache holds decides the logits of whatever comes next.
        let next = try model.evaluate([tokens.last!])
        #expect(model.position == prompt.count + tokens.count)
        return (tokens, statistics, next)
    }

    @Test func greedyTokensAreThoseOfPlainDecoding() throws {
        let prompt = Self.copyingPrompt
        let plain = try generate(prompt, sampling: .greedy, lookup: nil)
        let drafted = try generate(prompt, sampling: .greedy, lookup: PromptLookup(context: prompt))
        #expect(drafted.tokens == plain.tokens)
        #expect(plain.statistics.draftedTokens == 0)
        // The prompt is copied: most of the reply was drafted, and much of it taken.
        #expect(drafted.statistics.acceptedDraftTokens > 10, "\(drafted.statistics.acceptedDraftTokens) of \(drafted.statistics.draftedTokens)")
        #expect(drafted.statistics.acceptedDraftTokens <= drafted.statistics.draftedTokens)
        let difference = zip(drafted.next, plain.next).map { abs($0 - $1) }.max()!
        #expect(difference < 0.05, "logits after the reply differ by \(difference)")
    }

    @Test func seededSamplesAreThoseOfPlainDecoding() throws {
        let prompt = Self.copyingPrompt
        let sampling = SamplingParameters(temperature: 0.7, topK: 40, topP: 0.95, seed: 11)
        let plain = try generate(prompt, sampling: sampling, lookup: nil)
        let drafted = try generate(prompt, sampling: sampling, lookup: PromptLookup(context: prompt))
        #expect(drafted.tokens == plain.tokens)
        #expect(drafted.statistics.acceptedDraftTokens > 0)
    }

    /// `choose` follows a script whatever the logits; the lookup drafts from a context whose
    /// copy of the script is wrong at every fourth token. Each drafted token must be taken only
    /// when the script chose it, and nothing of a rejected draft may stay in the cache.
    @Test func aDraftedTokenIsTakenOnlyWhenChosen() throws {
        let model = try TestModel.transformer(context: 256)
        let prompt = Array(TransformerTests.prompt)
        let script = [28, 905, 17, 1073, 359, 346, 1834, 47, 339, 5248, 28, 905, 17, 1073]
        var wrong = script
        for i in stride(from: 3, to: wrong.count, by: 4) { wrong[i] = 1 }
        // The context ends as the prompt does, then its earlier copy goes on with `wrong`.
        let context = prompt + wrong + [3] + prompt
        var chosen: [Int] = []
        var steps: [[Int]] = []
        let logits = try model.evaluate(prompt)
        let statistics = try model.decode(
            from: logits, startedAt: .now, maximumTokens: script.count, stopTokens: [],
            lookup: PromptLookup(context: context),
            choose: { _, generated in script[generated.count] },
            next: { token in chosen.append(token); return .feed([token]) },
            evaluated: { steps.append($0) })
        #expect(chosen == script)
        #expect(steps.flatMap { $0 } == script)
        // Wrong drafts were proposed and refused; right ones were taken.
        #expect(statistics.draftedTokens > statistics.acceptedDraftTokens)
        #expect(statistics.acceptedDraftTokens > 0)
        #expect(model.position == prompt.count + script.count)
        // The cache matches the one plain decoding of the script builds.
        let reference = try TestModel.transformer(context: 256)
        _ = try reference.decode(
            from: try reference.evaluate(prompt), startedAt: .now, maximumTokens: script.count, stopTokens: [],
            choose: { _, generated in script[generated.count] }, next: { .feed([$0]) })
        let expected = try reference.evaluate([script.last!])
        let actual = try model.evaluate([script.last!])
        let difference = zip(actual, expected).map { abs($0 - $1) }.max()!
        #expect(difference < 0.05, "logits differ by \(difference)")
    }

    /// Drafted tokens count toward the limit like chosen ones, and a stop ends the loop with
    /// the rest of the draft dropped.
    @Test func theLimitAndStopsLeaveNoDraftBehind() throws {
        let prompt = Self.copyingPrompt
        for limit in [1, 2, 5] {
            let model = try TestModel.transformer(context: 256)
            let logits = try model.evaluate(prompt)
            var sampler = Sampler(.greedy)
            var fed = 0
            let statistics = try model.decode(
                from: logits, startedAt: .now, maximumTokens: limit, stopTokens: [],
                lookup: PromptLookup(context: prompt),
                choose: { logits, _ in sampler.sample(UnsafeBufferPointer(logits)) },
                next: { token in fed += 1; return .feed([token]) })
            #expect(statistics.generatedTokens == limit)
            #expect(model.position == prompt.count + fed)
        }
        let model = try TestModel.transformer(context: 256)
        let logits = try model.evaluate(prompt)
        var sampler = Sampler(.greedy)
        var chosen: [Int] = []
        let statistics = try model.decode(
            from: logits, startedAt: .now, maximumTokens: 40, stopTokens: [],
            lookup: PromptLookup(context: prompt),
            choose: { logits, _ in sampler.sample(UnsafeBufferPointer(logits)) },
            next: { token in
                chosen.append(token)
                return chosen.count == 6 ? .stop(.stoppedByCaller) : .feed([token])
            })
        #expect(statistics.stopReason == .stoppedByCaller)
        #expect(model.position == prompt.count + 5)
    }
}
