import Foundation
import PocketTokenizer

extension SystemLanguageModel {
    /// Tokens of text as the model encodes message content (never parsing special tokens).
    private func textTokens(_ text: String) throws -> Int {
        try loadedModel().tokenizer.encode(text, parseSpecial: false).count
    }

    /// The number of tokens a prompt's text takes (without the chat markers around it).
    public func tokenCount(for prompt: Prompt) async throws -> Int {
        try textTokens(prompt.text)
    }

    /// The number of tokens instructions' text takes (without the chat markers around it).
    public func tokenCount(for instructions: Instructions) async throws -> Int {
        try textTokens(instructions.text)
    }

    /// The number of tokens the definitions of `tools` add to the instructions.
    public func tokenCount(for tools: [any Tool]) async throws -> Int {
        let definitions = try tools.map { try Transcript.ToolDefinition(tool: $0) }
        return try textTokens(LanguageModelSession.toolInstructions(definitions, marker: LanguageModelSession.toolCallMarker))
    }

    /// The number of tokens a schema takes when it is included in a prompt.
    public func tokenCount(for schema: GenerationSchema) async throws -> Int {
        try textTokens(schema.jsonSchemaString())
    }

    /// The number of tokens transcript entries take as a conversation, chat markers included.
    public func tokenCount(for entries: some Collection<Transcript.Entry>) async throws -> Int {
        let model = try loadedModel()
        let messages = LanguageModelSession.render(entries).map {
            ChatMessage(role: ChatMessage.Role(rawValue: $0.role.rawValue) ?? .user, content: $0.content)
        }
        // The template's default system prompt is only counted when the entries include one.
        return model.template.encode(model.template.segments(for: messages, addGenerationPrompt: false), with: model.tokenizer).count
    }
}
