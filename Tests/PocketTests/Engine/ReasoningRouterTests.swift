import Foundation
import PocketGrammar
@testable import Pocket
import PocketTokenizer
import PocketTransformer
import Testing

/// The reply router's thinking section, driven by scripted logits on a byte-level vocabulary
/// that has Qwen3's `<think>` and `</think>` tokens: no model.
@Suite struct ReasoningRouterTests {
    typealias V = ScriptedVocabulary

    /// ``ScriptedVocabulary`` with the thinking markers among its special tokens.
    static let tokenizer: Tokenizer = {
        let byteTokens = (0..<256).map { String(V.byteForms[$0]) }
        let wordTokens = V.words.map { String(Array($0.utf8).map { V.byteForms[Int($0)] }) }
        let specials = ["<think>", "</think>", "<tool_call>", "</tool_call>", "<|im_start|>", "<|im_end|>"]
        let tokens = byteTokens + wordTokens + specials
        let types = [Int](repeating: 1, count: byteTokens.count + wordTokens.count) + [Int](repeating: 3, count: specials.count)
        return try! Tokenizer(
            tokens: tokens, tokenTypes: types, merges: [], preTokenizer: "gpt-2", bosToken: nil, eosToken: tokens.count - 1)
    }()
    static let vocabulary = Vocabulary(
        tokens: (0..<tokenizer.vocabularySize).map { tokenizer.isSpecial($0) ? [] : tokenizer.bytes(of: $0) },
        endOfGeneration: tokenizer.endOfGenerationTokens)

    static func special(_ text: String) -> Int { tokenizer.specialToken(text)! }
    static var closer: Int { special("</think>") }

    /// Token ids of `pieces`: a special token, a whole word, or else one token per byte.
    static func script(_ pieces: [String]) -> [Int] {
        pieces.flatMap { piece -> [Int] in
            if let id = tokenizer.specialToken(piece) { return [id] }
            if let w = V.words.firstIndex(of: piece) { return [256 + w] }
            return piece.utf8.map { Int($0) }
        }
    }

    /// A thinking section closed by `</think>`'s token (`closerIsToken`) or by its text.
    static func thinking(budget: Int, closerIsToken: Bool = true) -> ReplyRouter.Rules.Thinking {
        .init(closer: "</think>", closerTokens: closerIsToken ? [closer] : tokenizer.encode("</think>"),
              separatorTokens: tokenizer.encode("\n\n"), budget: budget)
    }

    /// Rules of a free-text (or structured) reply that reasons first.
    static func rules(budget: Int = 100, closerIsToken: Bool = true) -> ReplyRouter.Rules {
        var rules = ReplyRouter.Rules(callOpener: "<tool_call>", nativeOpener: nil, callsAllowed: false)
        rules.thinking = thinking(budget: budget, closerIsToken: closerIsToken)
        return rules
    }

    /// What a scripted reply came to.
    struct Run {
        var text = ""
        var isToolCall = false
        /// What reached the caller as answer text, and as reasoning.
        var shown = ""
        var reasoningShown = ""
        /// The tokens the reasoning pieces were reported to be made of, added up.
        var reportedReasoningTokens = 0
        var reasoning = ""
        var reasoningTokens = 0
        /// The tokens chosen, and every step evaluated (chosen and forced).
        var chosen: [Int] = []
        var evaluated: [Int] = []
        /// What `finish` threw, if anything.
        var error: (any Error)?
    }

    /// Drives a router over `script` as the decode loop does: choose, accept, feed.
    static func run(_ script: [Int], rules: ReplyRouter.Rules, answer: GrammarSchema? = nil) throws -> Run {
        var router = ReplyRouter(
            rules: rules, tokenizer: tokenizer, vocabulary: vocabulary, sampling: .greedy,
            answerGrammar: try answer.map { try CompiledGrammar($0) },
            callGrammar: {
                try CompiledGrammar(try ReplyRouterTests.rendering.callSchema(ReplyRouterTests.tools), whitespace: TransformerContext.callWhitespace)
            })
        var run = Run()
        let onText: (String, Int) -> Void = { piece, _ in run.shown += piece }
        let onReasoning: (String, Int) -> Void = { piece, tokens in
            run.reasoningShown += piece
            run.reportedReasoningTokens += tokens
        }
        for target in script {
            var logits = [Float](repeating: 0, count: tokenizer.vocabularySize)
            logits[target] = 10
            let token = try logits.withUnsafeMutableBufferPointer { try router.choose($0, generated: run.chosen.count) }
            run.chosen.append(token)
            if tokenizer.endOfGenerationTokens.contains(token) { break }
            guard let step = try router.accept(token, onText: onText, onReasoning: onReasoning) else { break }
            run.evaluated += step
        }
        do {
            let reply = try router.finish(generatedTokens: run.chosen.count, onText: onText, onReasoning: onReasoning)
            run.text = reply.text
            run.isToolCall = reply.isToolCall
        } catch {
            run.error = error
        }
        run.reasoning = router.reasoning
        run.reasoningTokens = router.reasoningTokens
        return run
    }

    @Test func reasoningGoesToTheReasoningStreamNeverToTheAnswer() throws {
        let script = Self.script(["\n", "The", " user", " asks", ".", "\n", "</think>", "Paris", " is", " sunny", "<|im_end|>"])
        let run = try Self.run(script, rules: Self.rules())
        #expect(run.error == nil)
        #expect(run.reasoning == "The user asks.", "leading and trailing whitespace dropped")
        #expect(run.reasoningShown == run.reasoning)
        #expect(run.text == "Paris is sunny" && run.shown == "Paris is sunny")
        #expect(!run.text.contains("think") && !run.reasoning.contains("think"))
        // The model's closer is followed by the separator, which the model does not choose.
        let close = try #require(run.evaluated.firstIndex(of: Self.closer))
        #expect(Array(run.evaluated[(close + 1)...].prefix(2)) == Self.tokenizer.encode("\n\n"))
        // The reasoning's tokens: everything before the closer.
        #expect(run.reasoningTokens == script.firstIndex(of: Self.closer))
        #expect(run.reportedReasoningTokens == run.reasoningTokens)
    }

    @Test func theCloserIsForcedWhenTheBudgetIsSpent() throws {
        // The model would think on ("XYZ…"); after 3 tokens the router closes the section.
        let script = Self.script(["Hmm", "XYZ", "Paris", " is", " sunny", "<|im_end|>"])
        let run = try Self.run(script, rules: Self.rules(budget: 3))
        #expect(run.reasoning == "Hmm" && run.reasoningTokens == 3)
        #expect(run.chosen[3] == Self.closer, "the fourth choice is the closer, whatever the logits say")
        #expect(Array(run.evaluated[3...5]) == [Self.closer] + Self.tokenizer.encode("\n\n"))
        // The script's next targets were consumed by the closer ("X") and … then the answer.
        #expect(run.text == "YZParis is sunny")
        // A budget of 0 closes the section at once.
        let none = try Self.run(Self.script(["X", "Paris", "<|im_end|>"]), rules: Self.rules(budget: 0))
        #expect(none.reasoning.isEmpty && none.reasoningTokens == 0 && none.chosen.first == Self.closer)
        #expect(none.text == "Paris")
    }

    @Test func aStopTokenInsideTheSectionClosesIt() throws {
        let run = try Self.run(Self.script(["Hmm", "<|im_end|>", "Paris", "<|im_end|>"]), rules: Self.rules())
        #expect(run.chosen[3] == Self.closer)
        #expect(run.reasoning == "Hmm" && run.text == "Paris")
    }

    @Test func aCloserWrittenAsTextClosesTheSection() throws {
        // A vocabulary without the closer's token (SmolLM2 with a thinking template).
        let script = Self.script(["I", " think", " a</b", " </", "th", "ink>", "Paris", "<|im_end|>"])
        let run = try Self.run(script, rules: Self.rules(closerIsToken: false))
        #expect(run.error == nil)
        // Text that began like the closer but was not is reasoning.
        #expect(run.reasoning == "I think a</b")
        #expect(run.reasoningShown == run.reasoning)
        #expect(run.text == "Paris")
        // The separator is forced after the closer's last token.
        let last = try #require(run.evaluated.firstIndex(of: Int(UInt8(ascii: ">"))))
        #expect(Array(run.evaluated[(last + 1)...].prefix(2)) == Self.tokenizer.encode("\n\n"))
    }

    @Test func theForcedCloserIsWrittenWholeWithoutItsToken() throws {
        let run = try Self.run(Self.script(["Hm", "X", "Paris", "<|im_end|>"]), rules: Self.rules(budget: 2, closerIsToken: false))
        #expect(run.reasoning == "Hm" && run.reasoningTokens == 2)
        #expect(Array(run.evaluated[2...]).starts(with: Self.tokenizer.encode("</think>") + Self.tokenizer.encode("\n\n")))
        #expect(run.text == "Paris")
    }

    @Test func theSchemaAppliesOnlyAfterTheSection() throws {
        let schema = try ReplyRouterTests.WeatherArguments.generationSchema.grammarSchema()
        // Reasoning that is no JSON at all is chosen as scripted: no grammar inside the section.
        let json = ["{\"", "city", "\"", ":", "\"Paris\"", "}"]
        let script = Self.script(["Not", " JSON", " {", "</think>"] + json)
        let run = try Self.run(script, rules: Self.rules(), answer: schema)
        #expect(run.error == nil)
        #expect(Array(run.chosen.prefix(script.count - json.count)) == Array(script.prefix(script.count - json.count)))
        #expect(run.reasoning == "Not JSON {")
        let value = try GeneratedContent(json: run.text)
        #expect(try value.value(String.self, forProperty: "city") == "Paris")

        // After the closer the grammar holds: a scripted "Sure" is not chosen.
        let held = try Self.run(Self.script(["Hmm", "</think>", "S"]), rules: Self.rules(), answer: schema)
        #expect(held.chosen.count == 5 && held.chosen[4] != Int(UInt8(ascii: "S")))
        #expect(held.text.isEmpty && held.error != nil, "an unfinished value is a decoding failure")
    }

    /// Rules of a reply that may call in Qwen's native format, after reasoning.
    static func callRules() -> ReplyRouter.Rules {
        var rules = ReplyRouter.Rules(callOpener: "<tool_call>", nativeOpener: special("<tool_call>"), callsAllowed: true)
        rules.thinking = thinking(budget: 100)
        return rules
    }

    @Test func aCallBeginsOnlyAfterTheSection() throws {
        // The opener is banned while thinking: a scripted opener is not chosen there.
        let inside = try Self.run(Self.script(["Hmm", "<tool_call>"]), rules: Self.callRules())
        #expect(inside.chosen.count == 4 && inside.chosen[3] != Self.special("<tool_call>"))
        // After the closer, the reply decides between answering and calling as without reasoning.
        let script = Self.script(["Hmm", "</think>", "<tool_call>"] + ReplyRouterTests.prettyCall + ["</tool_call>"])
        let run = try Self.run(script, rules: Self.callRules())
        #expect(run.error == nil && run.isToolCall)
        #expect(run.reasoning == "Hmm" && run.shown.isEmpty)
        let call = try ReplyRouterTests.call(run.text)
        #expect(call.name == "getWeather" && call.city == "Paris")
    }

    @Test func aRequiredCallOpensTheAnswerAfterTheSection() throws {
        var rules = Self.callRules()
        rules.callsRequired = true
        // The model thinks as it likes; the answer's first token is the opener whatever it prefers.
        let script = Self.script(["Hmm", "</think>", "X"] + ReplyRouterTests.prettyCall + ["</tool_call>"])
        let run = try Self.run(script, rules: rules)
        #expect(run.chosen.prefix(4) == Self.script(["Hmm", "</think>"])[...])
        #expect(run.chosen[4] == Self.special("<tool_call>"))
        #expect(run.reasoning == "Hmm" && run.isToolCall)
        #expect(try ReplyRouterTests.call(run.text).city == "Paris")
    }

    @Test func firstTokenRulesApplyToTheAnswersFirstToken() throws {
        var rules = Self.rules()
        rules.firstTokens = Set(Self.script(["Paris"]))
        // The reasoning is free; the answer's first token is the only one allowed.
        let run = try Self.run(Self.script(["Hmm", "</think>", "X", " is", " sunny", "<|im_end|>"]), rules: rules)
        #expect(run.reasoning == "Hmm")
        #expect(run.text == "Paris is sunny")
    }

    @Test func aReplyCutOffWhileThinkingKeepsItsReasoning() throws {
        let run = try Self.run(Self.script(["Still", " thinking"]), rules: Self.rules())
        #expect(run.reasoning == "Still thinking" && run.reasoningShown == "Still thinking")
        #expect(run.text.isEmpty && run.shown.isEmpty)
    }

    @Test func theHeldBackSuffixIsWhatMayStillBeTheCloser() {
        func held(_ text: String) -> String {
            String(text[ReplyRouter.heldSuffixStart(text, closer: "</think>")...])
        }
        #expect(held("a </th") == " </th")
        #expect(held("a </b") == "")
        #expect(held("a <") == " <")
        #expect(held("done.\n\n") == "\n\n")
        #expect(held("x</think") == "</think")
        #expect(held("") == "")
    }
}
