import Foundation
@testable import Pocket
import PocketTokenizer
import Testing

/// Reasoning on a real model: SmolLM2 (whose own template is plain ChatML) loaded with a
/// Qwen3-style template that has a thinking section and the `enable_thinking` switch.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct ReasoningSessionTests {
    /// ChatML turns, earlier answers without their reasoning, and Qwen3's switch.
    static let thinkingTemplate = """
        {%- for message in messages %}\
        {%- set content = message.content.split('</think>')[-1].lstrip('\\n') %}\
        {{- '<|im_start|>' + message.role + '\\n' + content + '<|im_end|>\\n' }}{%- endfor %}
        {%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}\
        {%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}
        """

    let model: SystemLanguageModel

    init() throws {
        model = try SystemLanguageModel(contentsOf: smolLM2URL, chatTemplate: Self.thinkingTemplate)
    }

    /// The reasoning entries of `entries`.
    static func reasoning(in entries: some Sequence<Transcript.Entry>) -> [Transcript.Reasoning] {
        entries.compactMap { if case .reasoning(let r) = $0 { r } else { nil } }
    }

    /// What the model reads before its reply, as text.
    func prompt(_ request: RenderedRequest) throws -> String {
        let loaded = try model.loadedModel()
        let tokens = loaded.rendering.tokens(request, addGenerationPrompt: true)
        return String(decoding: tokens.flatMap { loaded.tokenizer.bytes(of: $0) }, as: UTF8.self)
    }

    @Test func aThinkingTemplateGivesTheReasoningCapability() throws {
        #expect(model.capabilities.contains(.reasoning))
        #expect(model.capabilities.contains(.guidedGeneration) && model.capabilities.contains(.toolCalling))
        // The file's own template has no thinking section.
        let plain = try #require(smolLM2Model)
        #expect(!plain.capabilities.contains(.reasoning))
        #expect(try plain.loadedModel().template.thinking == nil)
    }

    @Test func theLevelOpensTheSectionAndNoLevelRendersItEmpty() throws {
        let question = [RenderedMessage(role: .user, content: "Hi")]
        let off = try prompt(RenderedRequest(messages: question))
        #expect(off.hasSuffix("<|im_start|>assistant\n<think>\n\n</think>\n\n"), "\(off)")
        let on = try prompt(RenderedRequest(messages: question, reasoningLevel: .light))
        #expect(on.hasSuffix("<|im_start|>assistant\n<think>\n"), "\(on)")
        #expect(!on.contains("</think>"))
    }

    @Test func reasoningGoesToItsEntryAndNeverIntoTheContent() async throws {
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(
            to: "What is 2+2?", options: greedy(80), contextOptions: ContextOptions(reasoningLevel: .custom("24")))
        let reasoning = Self.reasoning(in: response.transcriptEntries)
        #expect(reasoning.count == 1)
        let thought = try #require(reasoning.first).segments.text
        #expect(!thought.isEmpty)
        #expect(!response.content.contains("<think>") && !response.content.contains("</think>"))
        #expect(!thought.contains("<think>") && !thought.contains("</think>"))
        // The budget holds: at most 24 tokens of reasoning, counted in the usage.
        let counted = response.usage.output.reasoningTokenCount
        #expect(counted > 0 && counted <= 24, "\(counted)")
        #expect(response.usage.output.totalTokenCount > counted)
        // The session's transcript: prompt, reasoning, response.
        let entries = Array(session.transcript)
        #expect(entries.count == 3)
        guard entries.count == 3, case .prompt = entries[0], case .reasoning = entries[1], case .response = entries[2] else {
            Issue.record("unexpected transcript \(entries)")
            return
        }
        // The next turn reads the answer without the reasoning.
        let next = RenderedRequest.messages(from: session.transcript)
        #expect(next.count == 2 && !next.contains { $0.content.contains(thought) })
        let followUp = try await session.respond(to: "And 3+3?", options: greedy(40), contextOptions: ContextOptions(reasoningLevel: .light))
        #expect(!followUp.content.contains("think>"))
    }

    @Test func aStructuredResponseStillDecodesAfterReasoning() async throws {
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(
            to: "Pick a number between 1 and 9.", generating: Int.self, options: greedy(60),
            contextOptions: ContextOptions(reasoningLevel: .custom("16")))
        #expect(response.rawContent.jsonString == String(response.content))
        let counted = response.usage.output.reasoningTokenCount
        #expect(counted > 0 && counted <= 16, "\(counted)")
        #expect(Self.reasoning(in: response.transcriptEntries).count == 1)
    }

    @Test func aDeepLevelLeavesTheAnswerRoomInAShortResponse() async throws {
        let session = LanguageModelSession(model: model)
        // `.deep` is 4096 tokens; in a 40-token response the reasoning gets at most 20.
        let response = try await session.respond(
            to: "Pick a number between 1 and 9.", generating: Int.self, options: greedy(40),
            contextOptions: ContextOptions(reasoningLevel: .deep))
        let counted = response.usage.output.reasoningTokenCount
        #expect(counted > 0 && counted <= 20, "\(counted)")
        #expect(response.rawContent.jsonString == String(response.content))
    }

    @Test func aToolRoundsReasoningPrecedesItsCalls() async throws {
        let session = LanguageModelSession(model: model, tools: [WeatherTool(overlap: Overlap())], instructions: "Use the tool.")
        var options = greedy(80)
        options.toolCallingMode = .required
        let response = try await session.respond(
            to: "What is the weather in Paris?", options: options, contextOptions: ContextOptions(reasoningLevel: .custom("8")))
        let entries = Array(session.transcript)
        let calls = entries.indices.filter { if case .toolCalls = entries[$0] { true } else { false } }
        #expect(!calls.isEmpty, "a required call was made: \(entries)")
        for index in calls {
            guard case .reasoning(let reasoning) = entries[index - 1] else {
                Issue.record("entry \(index - 1) before the calls is not reasoning: \(entries)")
                continue
            }
            #expect(!reasoning.segments.text.contains("think>"))
        }
        #expect(!response.content.contains("think>") && !response.content.contains("tool_call"))
        #expect(response.usage.output.reasoningTokenCount > 0)
    }

    @Test func streamedSnapshotsNeverShowTheReasoning() async throws {
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(
            to: "Name a color.", options: greedy(40), contextOptions: ContextOptions(reasoningLevel: .custom("12")), metadata: [:])
        var contents: [String] = []
        for try await snapshot in stream { contents.append(snapshot.content) }
        let response = try await stream.collect()
        let thought = try #require(Self.reasoning(in: response.transcriptEntries).first).segments.text
        #expect(!thought.isEmpty)
        #expect(contents.allSatisfy { !$0.contains("think>") && !$0.contains(thought) })
        #expect(response.usage.output.reasoningTokenCount <= 12)
    }

    @Test func withoutALevelTheModelDoesNotReason() async throws {
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(to: "What is 2+2?", options: greedy(20))
        #expect(Self.reasoning(in: session.transcript).isEmpty)
        #expect(response.usage.output.reasoningTokenCount == 0)
        #expect(!response.content.contains("think>"))
    }
}

/// How reasoning levels map to a thinking section's switch and budget (Pocket's decisions).
@Suite struct ReasoningBudgetTests {
    static let switched = ThinkingFormat(template: "<think></think> enable_thinking")!
    static let alwaysOn = ThinkingFormat(template: "{{ '<|im_start|>assistant\\n<think>\\n' }} </think>")!

    @Test func levelsMapToBudgets() {
        let levels: [(ContextOptions.ReasoningLevel, Int)] = [
            (.light, 256), (.moderate, 1024), (.deep, 4096),
            (.custom("300"), 300), (.custom(" 0 "), 0), (.custom("high"), 4096), (.custom("Low"), 256),
            (.custom("medium"), 1024), (.custom("whatever"), 1024), (.custom("-5"), 1024),
        ]
        for (level, tokens) in levels {
            let budget = ReasoningBudget(level: level, format: Self.switched)
            #expect(budget.thinks && budget.tokens == tokens, "\(level)")
        }
    }

    @Test func theAnswerKeepsHalfOfMaximumResponseTokens() {
        let deep = ReasoningBudget(level: .deep, format: Self.switched)
        #expect(deep.capped(byMaximumResponseTokens: nil).tokens == 4096)
        #expect(deep.capped(byMaximumResponseTokens: 100).tokens == 50)
        #expect(deep.capped(byMaximumResponseTokens: 1).tokens == 0)
        #expect(ReasoningBudget(level: .custom("10"), format: Self.switched).capped(byMaximumResponseTokens: 100).tokens == 10)
    }

    @Test func noLevelIsTheModelsDefault() {
        // A switch: thinking off. No switch (the prompt always opens the section): moderate.
        #expect(!ReasoningBudget(level: nil, format: Self.switched).thinks)
        #expect(Self.alwaysOn.promptOpensSection && !Self.alwaysOn.hasSwitch)
        #expect(ReasoningBudget(level: nil, format: Self.alwaysOn) == ReasoningBudget(level: .moderate, format: Self.alwaysOn))
    }
}
