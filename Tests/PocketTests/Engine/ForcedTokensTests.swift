import Foundation
import PocketGrammar
@testable import Pocket
import PocketTokenizer
import PocketTransformer
import Testing

/// The reply router's forced tokens (``ReplyRouter/Rules/batchesForcedTokens``): text the
/// grammar leaves no choice about follows the chosen token without being chosen. Driven by a
/// scripted model that writes a target document one byte token at a time.
@Suite struct ForcedTokensTests {
    typealias V = ScriptedVocabulary

    /// {"city": string, "days": integer 1…9, "unit": "metric" | "imperial"}, all required.
    static let schema = GrammarSchema(root: .object([
        .init(name: "city", node: .string(.init())),
        .init(name: "days", node: .integer(minimum: 1, maximum: 9)),
        .init(name: "unit", node: .string(.init(choices: ["metric", "imperial"]))),
    ]))
    static let document = #"{"city":"Paris","days":3,"unit":"imperial"}"#

    struct Run {
        var text: String
        var shown = ""
        var reportedTokens = 0
        var chosen = 0
        /// Every step the router asked to evaluate.
        var steps: [[Int]] = []
    }

    /// Writes `document` as the decode loop would: the logits favour the byte that continues
    /// the document after everything evaluated so far (chosen and forced).
    static func run(forcing: Bool, maximumTokens: Int = .max) throws -> Run {
        var rules = ReplyRouter.Rules(callOpener: "<tool_call>", nativeOpener: nil, callsAllowed: false)
        rules.batchesForcedTokens = forcing
        rules.maximumTokens = maximumTokens
        var router = ReplyRouter(
            rules: rules, tokenizer: V.tokenizer, vocabulary: V.vocabulary, sampling: .greedy,
            answerGrammar: try CompiledGrammar(schema), callGrammar: { fatalError("no calls in these tests") })
        let target = Array(document.utf8)
        var written: [UInt8] = []
        var run = Run(text: "")
        var generated = 0
        while generated < maximumTokens {
            var logits = [Float](repeating: 0, count: V.tokenizer.vocabularySize)
            logits[written.count < target.count ? Int(target[written.count]) : V.endOfTurn] = 10
            let token = try logits.withUnsafeMutableBufferPointer { try router.choose($0, generated: run.chosen) }
            run.chosen += 1
            generated += 1
            if V.tokenizer.endOfGenerationTokens.contains(token) { break }
            guard let step = try router.accept(token, onText: { run.shown += $0; run.reportedTokens += $1 }) else {
                written += V.tokenizer.bytes(of: token)
                break
            }
            run.steps.append(step)
            generated += step.count - 1
            written += step.flatMap { V.tokenizer.bytes(of: $0) }
        }
        do {
            run.text = try router.finish(generatedTokens: generated, onText: { run.shown += $0; run.reportedTokens += $1 }).text
            #expect(Array(run.text.utf8) == written, "the reply's text is what was evaluated")
        } catch TransformerContextError.decodingFailure {
            // The value was cut off by the token limit (its text stays empty).
            #expect(written.count < target.count)
        }
        return run
    }

    @Test func forcedTextFollowsTheChosenTokenAndTheReplyIsUnchanged() throws {
        let plain = try Self.run(forcing: false)
        let forced = try Self.run(forcing: true)
        #expect(plain.text == Self.document)
        #expect(forced.text == Self.document)
        #expect(forced.shown == Self.document)
        #expect(plain.steps.allSatisfy { $0.count == 1 })
        // Keys, quotes, colons and the rest of "imperial" once "i" is chosen were not chosen.
        #expect(forced.chosen < plain.chosen - 20, "\(forced.chosen) chosen against \(plain.chosen)")
        // The answer's text was reported as made of every token, forced ones included (the
        // last, `}`, completes the value and is in no step: nothing follows it).
        #expect(forced.reportedTokens == forced.steps.map(\.count).reduce(0, +) + 1)
        #expect(plain.reportedTokens == plain.steps.count + 1)
    }

    /// Each step's forced tokens are the tokenizer's tokens of the grammar's forced text after
    /// the chosen token, but the last.
    @Test func forcedTokensAreTheForcedTextsTokensButTheLast() throws {
        let run = try Self.run(forcing: true)
        var matcher = GrammarMatcher(grammar: try CompiledGrammar(Self.schema), vocabulary: V.vocabulary)
        for step in run.steps {
            var accepted = matcher.accept(step[0])
            let text = String(decoding: matcher.forcedBytes(), as: UTF8.self)
            #expect(Array(step.dropFirst()) == Array(V.tokenizer.encode(text).dropLast()), "after \(step[0]): '\(text)'")
            for token in step.dropFirst() { accepted = accepted && matcher.accept(token) }
            #expect(accepted)
        }
    }

    @Test func forcedTextStopsAtTheReplysTokenLimit() throws {
        for limit in [1, 3, 12] {
            let run = try Self.run(forcing: true, maximumTokens: limit)
            let tokens = run.steps.map(\.count).reduce(0, +)
            #expect(tokens <= limit)
            #expect(run.text.isEmpty, "a value cut off at \(limit) tokens")
            // Forcing still happened where the limit left room.
            if limit == 12 { #expect(tokens > run.chosen) }
        }
    }
}
