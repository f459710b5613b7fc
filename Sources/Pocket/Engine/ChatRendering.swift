import Foundation
import PocketGrammar
import PocketTokenizer

/// How a GGUF model sees a request: its chat template's rendering of the messages, with tools
/// in the template's own format when it has one (Hermes' ``NativeToolFormat``, Llama 3.1's
/// ``LlamaToolFormat``), else in Pocket's.
///
/// Pocket's format, for templates without tools: the instructions list the tools and ask for
/// ``pocketMarker`` followed by a JSON array of calls; calls in the transcript are rendered
/// that way, and tool outputs as `tool` turns.
struct ChatRendering {
    let template: ChatTemplate
    let tokenizer: Tokenizer

    /// The marker that opens a call in Pocket's own format.
    static let pocketMarker = "<tool_call>"

    /// The token ids of `request`'s conversation, with the opening of the reply if asked (and
    /// for a template with a thinking section, the section open or empty as the request's
    /// ``reasoningBudget(_:)`` says).
    func tokens(_ request: RenderedRequest, addGenerationPrompt: Bool) -> [Int] {
        let (messages, tools) = chatMessages(request)
        return template.encode(
            messages, tools: tools, addGenerationPrompt: addGenerationPrompt, thinking: reasoningBudget(request)?.thinks, with: tokenizer)
    }

    /// Whether `request`'s reply thinks, and for how long: `nil` for a template without a
    /// thinking section (the reply never reasons).
    func reasoningBudget(_ request: RenderedRequest) -> ReasoningBudget? {
        template.thinking.map { ReasoningBudget(level: request.reasoningLevel, format: $0) }
    }

    /// Whether the template has its own tool format (Hermes' tagged calls or Llama 3.1's JSON).
    var hasNativeTools: Bool { template.nativeTools != nil || template.llamaTools != nil }

    /// Whether a call is a bare JSON object with no opener (Llama 3.1's `{"name": …,
    /// "parameters": …}`): the reply router recognizes it by its `{` and `"name"`.
    var callsAreBareJSON: Bool { template.nativeTools == nil && template.llamaTools != nil }

    /// The conversation as the template's messages, and the tool list for a native template.
    func chatMessages(_ request: RenderedRequest) -> (messages: [ChatMessage], tools: [String]) {
        let native = hasNativeTools
        var messages = request.messages.map { message -> ChatMessage in
            let role = ChatMessage.Role(rawValue: message.role.rawValue) ?? .user
            guard !message.toolCalls.isEmpty else { return ChatMessage(role: role, content: message.content) }
            if native {
                return ChatMessage(role: role, content: message.content,
                                   toolCalls: message.toolCalls.map { ChatToolCall(name: $0.name, argumentsJSON: $0.argumentsJSON) })
            }
            let calls = message.toolCalls.map { "{\"name\":\(Self.quoted($0.name)),\"arguments\":\($0.argumentsJSON)}" }
            return ChatMessage(role: role, content: message.content + Self.pocketMarker + "[" + calls.joined(separator: ",") + "]")
        }
        guard !request.tools.isEmpty else { return (messages, []) }
        if native { return (messages, request.tools.map(Self.nativeDefinition)) }
        let instructions = Self.pocketInstructions(request.tools)
        if messages.first?.role == ChatMessage.Role.system {
            messages[0].content += messages[0].content.isEmpty ? instructions : "\n\n" + instructions
        } else {
            messages.insert(ChatMessage(role: .system, content: instructions), at: 0)
        }
        return (messages, [])
    }

    /// What opens a call when the reply decides between answering and calling: the native
    /// opener (one token in Qwen's vocabulary), or Pocket's marker as text. Unused when
    /// ``callsAreBareJSON``.
    var callOpener: String { template.nativeTools?.callOpener ?? Self.pocketMarker }

    /// The grammar of what follows the opener: one call object (native) or an array of calls
    /// (Pocket's format), each `{"name": …, "arguments": …}` (Llama 3.1: `"parameters"`) with the
    /// tool's name and its arguments' schema, lowered straight from the tools' `GenerationSchema`s (each tool's
    /// definitions under a name of its own).
    ///
    /// - Throws: What lowering a tool's schema throws (``GenerationSchema/SchemaError``,
    ///   `GrammarError`).
    func callSchema(_ tools: [RenderedToolDefinition]) throws -> GrammarSchema {
        var definitions: [String: GrammarSchema.Node] = [:]
        var calls: [GrammarSchema.Node] = []
        let argumentsKey = template.nativeTools == nil ? template.llamaTools?.argumentsKey ?? "arguments" : "arguments"
        for (index, tool) in tools.enumerated() {
            let arguments = try tool.parameters.grammarSchema(definitionPrefix: "tool\(index)/")
            definitions.merge(arguments.definitions) { first, _ in first }
            calls.append(.object([
                .init(name: "name", node: .string(.init(choices: [tool.name]))),
                .init(name: argumentsKey, node: arguments.root),
            ]))
        }
        let call = calls.count == 1 ? calls[0] : .anyOf(calls)
        let root: GrammarSchema.Node = hasNativeTools ? call : .array(items: call, minimum: 1, maximum: nil)
        return GrammarSchema(root: root, definitions: definitions)
    }

    /// A tool as native templates list it: `{"type": "function", "function": {…}}`, spaced as
    /// the templates' `tojson` writes it (Llama 3.1's format re-indents it, as `tojson(indent=4)`).
    static func nativeDefinition(_ tool: RenderedToolDefinition) -> String {
        var function = "{\"name\":\(quoted(tool.name)),\"description\":\(quoted(tool.description))"
        if tool.includesSchemaInInstructions { function += ",\"parameters\":\(tool.parametersJSON)" }
        return NativeToolFormat.spacedJSON("{\"type\":\"function\",\"function\":\(function)}}")
    }

    /// The instructions text of Pocket's own tool format.
    static func pocketInstructions(_ tools: [RenderedToolDefinition]) -> String {
        var text = """
            You can call tools. To call tools, reply with \(pocketMarker) followed by a JSON array of calls, \
            each {"name": tool name, "arguments": {…}}, and nothing else. Otherwise answer normally. Tools:
            """
        for tool in tools {
            text += "\n- \(tool.name): \(tool.description)"
            if tool.includesSchemaInInstructions { text += " Arguments: \(tool.parametersJSON)" }
        }
        return text
    }

    /// `text` as a JSON string literal.
    static func quoted(_ text: String) -> String {
        GeneratedContent(kind: .string(text)).jsonString
    }
}
