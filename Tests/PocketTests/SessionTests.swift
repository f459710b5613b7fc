import Foundation
@testable import Pocket
import Testing

/// Sessions on the real small test model, SmolLM2: behaviour that does not depend on what the
/// model says.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct SessionTests {
    let model: SystemLanguageModel

    init() throws { model = try #require(smolLM2Model) }

    @Test func respondAddsPromptAndResponseToTheTranscript() async throws {
        let session = LanguageModelSession(model: model, instructions: "You are terse.")
        let response = try await session.respond(to: "Name a color.", options: greedy(6))
        #expect(!response.content.isEmpty)
        #expect(response.usage.outputTokens <= 6)
        let entries = Array(session.transcript)
        #expect(entries.count == 3)
        guard case .instructions = entries[0], case .prompt(let prompt) = entries[1], case .response(let reply) = entries[2] else {
            Issue.record("unexpected transcript \(entries)")
            return
        }
        #expect(prompt.segments == [.text(.init(id: prompt.segments[0].id, content: "Name a color."))])
        #expect(reply.segments.first.map { if case .text(let t) = $0 { t.content } else { "" } } == response.content)
        #expect(Array(response.transcriptEntries) == Array(entries[1...]))
        #expect(!session.isResponding)
    }

    @Test func greedyIsDeterministicAcrossSessions() async throws {
        let a = try await LanguageModelSession(model: model).respond(to: "Tell me about cats.", options: greedy(8))
        let b = try await LanguageModelSession(model: model).respond(to: "Tell me about cats.", options: greedy(8))
        #expect(a.content == b.content)
    }

    @Test func seededSamplingIsDeterministic() async throws {
        let options = GenerationOptions(samplingMode: .random(top: 40, seed: 42), temperature: 1.0, maximumResponseTokens: 10)
        let a = try await LanguageModelSession(model: model).respond(to: "Write a word.", options: options)
        let b = try await LanguageModelSession(model: model).respond(to: "Write a word.", options: options)
        #expect(a.content == b.content)
        let nucleus = GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: 7), maximumResponseTokens: 10)
        let c = try await LanguageModelSession(model: model).respond(to: "Write a word.", options: nucleus)
        let d = try await LanguageModelSession(model: model).respond(to: "Write a word.", options: nucleus)
        #expect(c.content == d.content)
    }

    @Test func followUpTurnsReuseTheCache() async throws {
        let session = LanguageModelSession(model: model, instructions: "You are terse.")
        var firstTokenTimes: [Duration] = []
        var previousTotal = 0
        for turn in 1...10 {
            let response = try await session.respond(to: "Say a number, turn \(turn).", options: greedy(3))
            let usage = response.usage
            firstTokenTimes.append(usage.timeToFirstToken)
            if turn > 1 {
                // Everything before this turn's prompt comes from the cache (at most the last
                // reply's tail is re-tokenized differently).
                #expect(usage.cachedTokens >= previousTotal - 8, "turn \(turn): \(usage)")
                #expect(usage.inputTokens < 40, "turn \(turn): \(usage)")
            }
            previousTotal = usage.cachedTokens + usage.inputTokens + usage.outputTokens
        }
        // The same conversation without a cache evaluates everything.
        let restored = LanguageModelSession(model: model, transcript: session.transcript)
        let cold = try await restored.respond(to: "Say a number, turn 11.", options: greedy(3))
        let warm = try await session.respond(to: "Say a number, turn 11.", options: greedy(3))
        #expect(cold.usage.cachedTokens == 0)
        #expect(cold.usage.inputTokens > 3 * warm.usage.inputTokens)
        print("time to first token: turn 1 \(firstTokenTimes[0]), turn 10 \(firstTokenTimes[9]); "
              + "turn 11 \(warm.usage.timeToFirstToken) with the cache (\(warm.usage.inputTokens) new tokens), "
              + "\(cold.usage.timeToFirstToken) restored without (\(cold.usage.inputTokens) tokens)")
    }

    @Test func restoredSessionContinuesTheConversation() async throws {
        let first = LanguageModelSession(model: model, instructions: "You are terse.")
        try await first.respond(to: "Hello.", options: greedy(4))
        let data = try JSONEncoder().encode(first.transcript)
        let restored = LanguageModelSession(model: model, transcript: try JSONDecoder().decode(Transcript.self, from: data))
        let response = try await restored.respond(to: "Again.", options: greedy(4))
        // The new cache holds nothing: the whole transcript is evaluated once.
        #expect(response.usage.cachedTokens == 0)
        #expect(restored.transcript.count == first.transcript.count + 2)
        let next = try await restored.respond(to: "Once more.", options: greedy(4))
        #expect(next.usage.cachedTokens > response.usage.inputTokens / 2)
    }

    @Test func prewarmFillsTheCache() async throws {
        let session = LanguageModelSession(model: model, instructions: "You are a helpful assistant who answers briefly.")
        session.prewarm()
        let response = try await session.respond(to: "Hi.", options: greedy(2))
        #expect(response.usage.cachedTokens > 5)
    }

    @Test func streamingYieldsGrowingText() async throws {
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(to: "Describe the sea.", options: greedy(12))
        var snapshots: [String] = []
        for try await snapshot in stream { snapshots.append(snapshot.content) }
        let response = try await stream.collect()
        #expect(!snapshots.isEmpty)
        for (a, b) in zip(snapshots, snapshots.dropFirst()) { #expect(b.hasPrefix(a)) }
        #expect(snapshots.last == response.content)
        #expect(session.transcript.count == 2)
    }

    /// Dropping a stream's iterator cancels generation: the turn is not committed and the
    /// session takes the next request.
    @Test func endingAStreamEarlyCancelsGeneration() async throws {
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(to: "Tell me a long story.", options: greedy(200))
        for try await snapshot in stream where !snapshot.content.isEmpty { break }
        let stopped = ContinuousClock.now
        while session.isResponding && ContinuousClock.now - stopped < .seconds(10) { try await Task.sleep(for: .milliseconds(5)) }
        #expect(!session.isResponding)
        // A generation that ran to its end would have committed the turn: an empty transcript
        // shows it was cancelled (no timing bound: tests share the cores).
        #expect(session.transcript.isEmpty)
        // Still usable.
        let next = try await session.respond(to: "Hi", options: greedy(2))
        #expect(next.usage.outputTokens <= 2)
    }

    /// `respond` sent right after `break` out of a stream's loop is accepted, with no wait:
    /// leaving the loop frees the session before the loop's exit returns.
    @Test(arguments: [1, 3])
    func respondRightAfterBreakingOutOfAStream(snapshots: Int) async throws {
        let session = LanguageModelSession(model: model)
        var seen = 0
        for try await _ in session.streamResponse(to: "Tell me a long story.", options: greedy(200)) {
            seen += 1
            if seen == snapshots { break }
        }
        let next = try await session.respond(to: "Hi", options: greedy(2))
        #expect(next.usage.outputTokens <= 2)
        // Only the second request's turn: the abandoned one committed nothing.
        #expect(session.transcript.count == 2)
    }

    /// `transcript` is settable (Apple's 27 API): the next request continues the new one.
    @Test func settingTheTranscriptReplacesTheConversation() async throws {
        let session = LanguageModelSession(model: model)
        try await session.respond(to: "Hi", options: greedy(2))
        #expect(session.transcript.count == 2)
        session.transcript = Transcript(entries: [.instructions(.init(segments: [.text(.init(content: "Answer in French."))], toolDefinitions: []))])
        #expect(session.transcript.count == 1)
        let next = try await session.respond(to: "Hi", options: greedy(2))
        #expect(session.transcript.count == 3)
        #expect(Array(session.transcript.dropFirst()) == Array(next.transcriptEntries))
    }

    @Test func promptThatDoesNotFitThrowsBeforeGenerating() async throws {
        let small = try SystemLanguageModel(contentsOf: smolLM2URL, contextSize: 64)
        #expect(small.contextSize == 64)
        let session = LanguageModelSession(model: small)
        let long = String(repeating: "word ", count: 200)
        await #expect {
            try await session.respond(to: long, options: greedy(4))
        } throws: { error in
            guard case LanguageModelError.contextSizeExceeded = error else { return false }
            return true
        }
        #expect(session.transcript.isEmpty)
        #expect(!session.isResponding)
        // Still usable.
        let ok = try await session.respond(to: "Hi", options: greedy(2))
        #expect(ok.usage.outputTokens <= 2)
    }

    @Test func responseThatRunsIntoTheLimitThrows() async throws {
        let context = try model.makeTransformerContext()
        let prompt = "Write a very long story about a dragon."
        let needed = context.tokenCount(of: .init(messages: [.init(role: .user, content: prompt)]))
        let small = try SystemLanguageModel(contentsOf: smolLM2URL, contextSize: needed + 4)
        let session = LanguageModelSession(model: small)
        await #expect {
            try await session.respond(to: prompt, options: GenerationOptions(samplingMode: .greedy))
        } throws: { error in
            guard case LanguageModelError.contextSizeExceeded = error else { return false }
            return true
        }
        #expect(session.transcript.isEmpty)
        let ok = try await session.respond(to: "Hi", options: greedy(2))
        #expect(!ok.content.isEmpty || ok.usage.outputTokens > 0)
    }

    @Test func secondRequestWhileRespondingThrows() async throws {
        let session = LanguageModelSession(model: model)
        let first = Task { try await session.respond(to: "Tell me a story.", options: greedy(40)) }
        while !session.isResponding { await Task.yield() }
        await #expect {
            try await session.respond(to: "Hi", options: greedy(2))
        } throws: { error in
            guard case LanguageModelSession.Error.concurrentRequests = error else { return false }
            return true
        }
        _ = try await first.value
        #expect(session.transcript.count == 2)
    }

    @Test func cancellationStopsQuicklyAndKeepsTheSessionUsable() async throws {
        let session = LanguageModelSession(model: model)
        try await session.respond(to: "Hello.", options: greedy(3))
        let before = session.transcript
        // Cancelled as soon as the request is running. Waiting a fixed time first made this a
        // race: the model's greedy answer to this prompt is six tokens ("One number per
        // line."), which the fast kernels finish within 40 ms about one run in four.
        let task = Task { try await session.respond(to: "Count from 1 to 500, one number per line.", options: greedy(2000)) }
        while !session.isResponding { await Task.yield() }
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // One token of the 135M model takes a few milliseconds; allow generous slack.
        #expect(ContinuousClock.now - cancelled < .milliseconds(500))
        #expect(session.transcript == before)
        #expect(!session.isResponding)
        let after = try await session.respond(to: "Hi.", options: greedy(2))
        #expect(after.usage.outputTokens <= 2)
    }

    @Test func promptInAnUnlistedScriptIsRejected() async throws {
        guard !model.supportedLanguages.isEmpty else { return }
        #expect(model.supportsLocale(Locale(identifier: "en_US")) == model.supportedLanguages.contains { $0.languageCode?.identifier == "en" })
        let session = LanguageModelSession(model: model)
        if !model.supportsLocale(Locale(identifier: "ru_RU")) {
            await #expect {
                try await session.respond(to: "Расскажи мне о кошках, пожалуйста", options: greedy(2))
            } throws: { error in
                guard case LanguageModelError.unsupportedLanguageOrLocale = error else { return false }
                return true
            }
        }
        #expect(session.transcript.isEmpty)
    }

    @Test func guardrailsHookRejectsPrompts() async throws {
        let guarded = try SystemLanguageModel(
            contentsOf: smolLM2URL, guardrails: .init(check: { !$0.contains("forbidden") }))
        let session = LanguageModelSession(model: guarded)
        await #expect {
            try await session.respond(to: "a forbidden topic", options: greedy(2))
        } throws: { error in
            guard case LanguageModelError.guardrailViolation = error else { return false }
            return true
        }
    }
}

/// The session's repetition penalty on the small model, which loops readily when greedy.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct RepetitionPenaltySessionTests {
    /// The most times one word occurs in `text`.
    func mostRepeated(_ text: String) -> Int {
        var counts: [Substring: Int] = [:]
        for word in text.split(whereSeparator: { !$0.isLetter }) { counts[word, default: 0] += 1 }
        return counts.values.max() ?? 0
    }

    @Test func theDefaultPenaltyRepeatsLessThanNone() async throws {
        let model = try #require(smolLM2Model)
        let prompt = "List the days of the week, again and again."
        let off = try await LanguageModelSession(model: model).respond(
            to: prompt, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 96, repetitionPenalty: 1))
        let on = try await LanguageModelSession(model: model).respond(to: prompt, options: greedy(96))
        #expect(mostRepeated(on.content) < mostRepeated(off.content), "off: \(off.content)\non: \(on.content)")
    }

    @Test func aStrongPenaltyStillGivesAValidStructuredValue() async throws {
        let model = try #require(smolLM2Model)
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 40, repetitionPenalty: 3, frequencyPenalty: 2, presencePenalty: 2)
        let response = try await LanguageModelSession(model: model).respond(to: "Invent a pet.", generating: Pet.self, options: options)
        #expect((0...30).contains(response.content.age))
    }
}
