import Foundation
import PocketGrammar
@testable import Pocket
import PocketTokenizer
import PocketTransformer
import Testing

/// The reply router driven by scripted logits (each step's logits favour the script's next
/// token), on a byte-level vocabulary with ChatML's special tokens: no model.
@Suite struct ReplyRouterTests {
    typealias V = ScriptedVocabulary

    @Generable struct WeatherArguments {
        var city: String
    }

    static let tools = [RenderedToolDefinition(
        Transcript.ToolDefinition(name: "getWeather", description: "Weather in a city", parameters: WeatherArguments.generationSchema))]
    static let rendering = ChatRendering(template: V.nativeTemplate, tokenizer: V.tokenizer)

    /// Rules of a reply that may call, in Qwen's native format, with the small-model heuristics.
    static func nativeRules() -> ReplyRouter.Rules {
        var rules = ReplyRouter.Rules(callOpener: "<tool_call>", nativeOpener: V.special("<tool_call>"), callsAllowed: true)
        rules.recognizesUntaggedCalls = true
        return rules
    }

    /// What a scripted reply came to.
    struct Run {
        /// The tokens each piece of answer text was reported to be made of, added up.
        var reportedTokens = 0
        var text: String
        var isToolCall: Bool
        /// What reached the caller as answer text.
        var shown: String
        /// The tokens chosen.
        var chosen: [Int]
    }

    /// Drives a router over `script` as the decode loop does: choose, accept, feed.
    static func run(_ script: [Int], rules: ReplyRouter.Rules, answer: GrammarSchema? = nil) throws -> Run {
        #expect(Self.rendering.callOpener == "<tool_call>")
        let callGrammar = { try CompiledGrammar(try Self.rendering.callSchema(Self.tools), whitespace: TransformerContext.callWhitespace) }
        var router = ReplyRouter(
            rules: rules, tokenizer: V.tokenizer, vocabulary: V.vocabulary, sampling: .greedy,
            answerGrammar: try answer.map { try CompiledGrammar($0) }, callGrammar: callGrammar)
        var shown = ""
        var reported = 0
        var chosen: [Int] = []
        for target in script {
            var logits = [Float](repeating: 0, count: V.tokenizer.vocabularySize)
            logits[target] = 10
            let token = try logits.withUnsafeMutableBufferPointer { try router.choose($0, generated: chosen.count) }
            chosen.append(token)
            if V.tokenizer.endOfGenerationTokens.contains(token) { break }
            guard try router.accept(token, onText: { shown += $0; reported += $1 }) != nil else { break }
        }
        let reply = try router.finish(generatedTokens: chosen.count, onText: { shown += $0; reported += $1 })
        return Run(reportedTokens: reported, text: reply.text, isToolCall: reply.isToolCall, shown: shown, chosen: chosen)
    }

    /// The call's name and city, from its JSON.
    static func call(_ json: String) throws -> (name: String, city: String) {
        let calls = try SystemLanguageModel.Executor.toolCalls(in: json)
        #expect(calls.count == 1)
        let arguments = try GeneratedContent(json: calls[0].arguments)
        return (calls[0].name, try arguments.value(String.self, forProperty: "city"))
    }

    static let prettyCall = ["{", "\n  ", "\"name\"", ":", " ", "\"getWeather\"", ",", "\n  ", "\"arguments\"", ":", " ", "{",
                             "\n    ", "\"city\"", ":", " ", "\"Paris\"", "\n  ", "}", "\n", "}"]

    @Test func prettyPrintedUntaggedCallIsACall() throws {
        let run = try Self.run(V.script(Self.prettyCall + ["<|im_end|>"]), rules: Self.nativeRules())
        #expect(run.isToolCall)
        #expect(run.shown.isEmpty, "a call must never reach the caller as answer text")
        let call = try Self.call(run.text)
        #expect(call.name == "getWeather" && call.city == "Paris")
        // The whitespace is the model's, kept.
        #expect(run.text.hasPrefix("{\n  \"name\""))
    }

    @Test func prettyPrintedTaggedCallIsACall() throws {
        let run = try Self.run(V.script(["<tool_call>"] + Self.prettyCall + ["</tool_call>", "<|im_end|>"]), rules: Self.nativeRules())
        #expect(run.isToolCall)
        #expect(run.shown.isEmpty)
        let call = try Self.call(run.text)
        #expect(call.name == "getWeather" && call.city == "Paris")
    }

    @Test func compactUntaggedCallIsACall() throws {
        let run = try Self.run(
            V.script(["{\"name\"", ":", "\"getWeather\"", ",", "\"arguments\"", ":", "{", "\"city\"", ":", "\"Paris\"", "}", "}"]),
            rules: Self.nativeRules())
        #expect(run.isToolCall)
        #expect(try Self.call(run.text).city == "Paris")
    }

    @Test func textIsAnAnswerShownAsItComes() throws {
        let run = try Self.run(V.script(["Paris", " is", " sunny", ".", "<|im_end|>"]), rules: Self.nativeRules())
        #expect(!run.isToolCall)
        #expect(run.text == "Paris is sunny.")
        #expect(run.shown == run.text)
        #expect(run.reportedTokens == 4, "every token of the answer is counted once (the stop token is not)")
    }

    @Test func jsonThatIsNotACallStaysAnAnswer() throws {
        let run = try Self.run(V.script(["{", "\n  ", "\"city\"", ":", "1", "}", "<|im_end|>"]), rules: Self.nativeRules())
        #expect(run.reportedTokens == 6, "text held while undecided is counted when it is shown")
        #expect(!run.isToolCall)
        #expect(run.text == "{\n  \"city\":1}")
        #expect(run.shown == run.text)
    }

    @Test func untaggedCallsAreAnswersWithTheHeuristicOff() throws {
        var rules = Self.nativeRules()
        rules.recognizesUntaggedCalls = false
        let run = try Self.run(V.script(Self.prettyCall + ["<|im_end|>"]), rules: rules)
        #expect(!run.isToolCall)
        #expect(run.shown.hasPrefix("{\n  \"name\""))
    }

    @Test func untaggedCallAfterToolOutputRestarts() throws {
        var rules = Self.nativeRules()
        rules.restartsOnUntaggedCall = true
        #expect(throws: ReplyRouter.UntaggedCallAfterToolOutput.self) {
            _ = try Self.run(V.script(Self.prettyCall), rules: rules)
        }
    }

    @Test func noCallWhereCallsAreNotAllowed() throws {
        var rules = Self.nativeRules()
        rules.callsAllowed = false
        let run = try Self.run(V.script(["<tool_call>", "P", "<|im_end|>"]), rules: rules)
        #expect(!run.isToolCall)
        #expect(!run.chosen.contains(V.special("<tool_call>")), "the opener is banned outside a call's start")
    }

    @Test func bannedAndFirstTokensAreNeverChosenAgainstTheRules() throws {
        var rules = Self.nativeRules()
        rules.callsAllowed = false
        rules.bannedTokens = [Int(UInt8(ascii: "{")), 256 + V.words.firstIndex(of: "`")!]
        rules.firstTokens = [256 + V.words.firstIndex(of: "Paris")!]
        let run = try Self.run(V.script(["`", "{", "x", "<|im_end|>"]), rules: rules)
        #expect(run.chosen.first == 256 + V.words.firstIndex(of: "Paris")!)
        #expect(!run.chosen.contains { rules.bannedTokens.contains($0) })
    }

    @Test func structuredReplyMayOpenACallAtItsFirstToken() throws {
        let answer = GrammarSchema(root: .object([.init(name: "city", node: .string(.init()))]))
        let call = try Self.run(
            V.script(["<tool_call>"] + Self.prettyCall + ["</tool_call>"]), rules: Self.nativeRules(), answer: answer)
        #expect(call.isToolCall)
        #expect(try Self.call(call.text).city == "Paris")
        let value = try Self.run(V.script(["{\"", "city", "\"", ":", "\"", "Paris", "\"", "}"]), rules: Self.nativeRules(), answer: answer)
        #expect(!value.isToolCall)
        #expect(value.text == "{\"city\":\"Paris\"}")
    }

    static let compactCall = ["{\"name\"", ":", "\"getWeather\"", ",", "\"arguments\"", ":", "{", "\"city\"", ":", "\"Paris\"", "}", "}"]

    @Test(arguments: [false, true])
    func requiredCallsOpenWithTheOpenerWhateverTheLogits(structured: Bool) throws {
        var rules = Self.nativeRules()
        rules.callsRequired = true
        let answer = structured ? GrammarSchema(root: .object([.init(name: "city", node: .string(.init()))])) : nil
        // The model would answer "Paris…"; its first token is the opener instead.
        let run = try Self.run(V.script(["Paris"] + Self.compactCall), rules: rules, answer: answer)
        #expect(run.chosen.first == V.special("<tool_call>"))
        #expect(run.isToolCall)
        #expect(run.shown.isEmpty)
        #expect(try Self.call(run.text).city == "Paris")
    }

    @Test func requiredCallsInPocketsTextFormat() throws {
        // Pocket's format: the opener is text (several tokens), the call an array.
        var rules = ReplyRouter.Rules(callOpener: "<tool_call>", nativeOpener: nil, callsAllowed: true)
        rules.callsRequired = true
        let rendering = ChatRendering(template: ChatTemplate(template: "{{ '<|im_start|>' }}"), tokenizer: V.tokenizer)
        var router = ReplyRouter(
            rules: rules, tokenizer: V.tokenizer, vocabulary: V.vocabulary, sampling: .greedy, answerGrammar: nil,
            callGrammar: { try CompiledGrammar(try rendering.callSchema(Self.tools), whitespace: TransformerContext.callWhitespace) })
        var logits = [Float](repeating: 0, count: V.tokenizer.vocabularySize)
        let first = try logits.withUnsafeMutableBufferPointer { try router.choose($0, generated: 0) }
        let step = try #require(try router.accept(first, onText: { _, _ in Issue.record("no answer text") }))
        #expect(V.tokenizer.decode(step) == "<tool_call>", "the opener, its first token chosen and the rest forced")
        #expect(router.state == .call)
    }

    @Test func callCutOffIsADecodingFailure() {
        #expect(throws: TransformerContextError.self) {
            _ = try Self.run(V.script(Array(Self.prettyCall.prefix(8))), rules: Self.nativeRules())
        }
    }
}
