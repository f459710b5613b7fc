import Foundation
import PocketGrammar
@testable import Pocket
import PocketTokenizer
import Testing

/// Llama 3.1's JSON tool calling in the engine: the rendering lists the tools in the template's
/// format and asks for `"parameters"`, and the reply router takes a bare
/// `{"name": …, "parameters": …}` object as a call (scripted logits, no model).
@Suite struct LlamaToolCallTests {
    typealias V = ScriptedVocabulary

    @Generable struct WeatherArguments {
        var city: String
    }

    static let tools = [RenderedToolDefinition(
        Transcript.ToolDefinition(name: "getWeather", description: "Weather in a city", parameters: WeatherArguments.generationSchema))]

    /// A minimal Llama-3.1-style template: the literals of Meta's that Pocket reads.
    static let template = ChatTemplate(template: """
        {{- "<|start_header_id|>system<|end_header_id|>\\n\\n" }}{{- "Environment: ipython\\n" }}\
        {{- "Given the following functions, please respond with a JSON for a function call " }}\
        {{- "with its proper arguments that best answers the given prompt.\\n\\n" }}\
        {{- 'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.' }}\
        {{- "Do not use variables.\\n\\n" }}{{- '{"name": "' + tool_call.name + '", ' }}{{- '"parameters": ' }}\
        {{- "<|start_header_id|>ipython<|end_header_id|>\\n\\n" }}
        """)
    static let rendering = ChatRendering(template: template, tokenizer: V.tokenizer)

    /// The rules `TransformerContext` gives a Llama 3.1 reply that may call.
    static func rules(required: Bool = false) -> ReplyRouter.Rules {
        var rules = ReplyRouter.Rules(callOpener: rendering.callOpener, nativeOpener: nil, callsAllowed: true)
        rules.callsAreBareJSON = true
        rules.recognizesUntaggedCalls = true
        rules.callsRequired = required
        return rules
    }

    /// Drives a router over `script` as the decode loop does (`runnerUp` scores second at the
    /// first step); returns the reply and what was shown.
    static func run(_ script: [Int], rules: ReplyRouter.Rules, answer: GrammarSchema? = nil, runnerUp: Int? = nil) throws
        -> (text: String, isToolCall: Bool, shown: String, chosen: [Int])
    {
        var router = ReplyRouter(
            rules: rules, tokenizer: V.tokenizer, vocabulary: V.vocabulary, sampling: .greedy,
            answerGrammar: try answer.map { try CompiledGrammar($0) },
            callGrammar: { try CompiledGrammar(try rendering.callSchema(tools), whitespace: TransformerContext.callWhitespace) })
        var shown = ""
        var chosen: [Int] = []
        for target in script {
            var logits = [Float](repeating: 0, count: V.tokenizer.vocabularySize)
            logits[target] = 10
            if chosen.isEmpty, let runnerUp { logits[runnerUp] = 5 }
            let token = try logits.withUnsafeMutableBufferPointer { try router.choose($0, generated: chosen.count) }
            chosen.append(token)
            if V.tokenizer.endOfGenerationTokens.contains(token) { break }
            guard try router.accept(token, onText: { piece, _ in shown += piece }) != nil else { break }
        }
        let reply = try router.finish(generatedTokens: chosen.count, onText: { piece, _ in shown += piece })
        return (reply.text, reply.isToolCall, shown, chosen)
    }

    static let call = ["{\"name\"", ":", " ", "\"getWeather\"", ",", " ", "\"parameters\"", ":", " ", "{", "\"city\"", ":", " ",
                       "\"Paris\"", "}", "}"]

    @Test func theRenderingUsesLlamasFormat() throws {
        #expect(Self.template.llamaTools != nil && Self.template.nativeTools == nil)
        #expect(Self.rendering.hasNativeTools && Self.rendering.callsAreBareJSON)
        // The transcript's call and the tool's output go to the template as a call and a result.
        let request = RenderedRequest(
            messages: [
                .init(role: .user, content: "Weather in Paris?"),
                .init(role: .assistant, content: "", toolCalls: [.init(name: "getWeather", argumentsJSON: #"{"city":"Paris"}"#)]),
                .init(role: .tool, content: "Sunny"),
            ],
            tools: Self.tools)
        let (messages, tools) = Self.rendering.chatMessages(request)
        #expect(tools.count == 1 && messages.count == 3)
        let text = Self.template.render(messages, tools: tools, addGenerationPrompt: true)
        #expect(text.contains("Environment: ipython\n"))
        #expect(text.contains("Do not use variables.\n\n{\n    \"type\": \"function\",\n    \"function\": {\n        \"name\": \"getWeather\""))
        #expect(text.contains("<|start_header_id|>assistant<|end_header_id|>\n\n{\"name\": \"getWeather\", \"parameters\": {\"city\": \"Paris\"}}<|eot_id|>"))
        #expect(text.contains("<|start_header_id|>ipython<|end_header_id|>\n\n\"Sunny\"<|eot_id|>"))
    }

    @Test func aBareJSONObjectIsACall() throws {
        let run = try Self.run(V.script(Self.call + ["<|im_end|>"]), rules: Self.rules())
        #expect(run.isToolCall)
        #expect(run.shown.isEmpty, "a call must never reach the caller as answer text")
        let calls = try SystemLanguageModel.Executor.toolCalls(in: run.text)
        #expect(calls.count == 1 && calls.first?.name == "getWeather")
        #expect(try GeneratedContent(json: calls[0].arguments).value(String.self, forProperty: "city") == "Paris")
    }

    @Test func textIsAnAnswer() throws {
        let run = try Self.run(V.script(["Paris", " is", " sunny", "<|im_end|>"]), rules: Self.rules())
        #expect(!run.isToolCall)
        #expect(run.shown == "Paris is sunny")
    }

    @Test func aRequiredCallIsTheGrammarsFromTheFirstToken() throws {
        // The model would answer "Paris…"; the call grammar allows only the call, whose first
        // token the model ranks second.
        let script = V.script(["Paris"] + Self.call.dropFirst() + ["<|im_end|>"])
        let run = try Self.run(script, rules: Self.rules(required: true), runnerUp: V.script(["{\"name\""])[0])
        #expect(run.chosen.first == V.script(["{\"name\""])[0])
        #expect(run.isToolCall && run.shown.isEmpty)
        #expect(try SystemLanguageModel.Executor.toolCalls(in: run.text).first?.name == "getWeather")
    }

    @Test func aStructuredAnswerIsTheSchemas() throws {
        // A bare call and an object answer both open with `{`: with a schema the reply is the answer.
        let answer = GrammarSchema(root: .object([.init(name: "city", node: .string(.init()))]))
        let run = try Self.run(V.script(["{\"", "city", "\"", ":", "\"Paris\"", "}", "<|im_end|>"]), rules: Self.rules(), answer: answer)
        #expect(!run.isToolCall)
        #expect(run.shown == #"{"city":"Paris"}"#)
    }
}
