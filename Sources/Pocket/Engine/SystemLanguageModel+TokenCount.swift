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

    /// The number of tokens the definitions of `tools` add to the instructions, in the
    /// model's own tool format when its chat template has one.
    public func tokenCount(for tools: [any Tool]) async throws -> Int {
        let definitions = tools.map { Transcript.ToolDefinition(tool: $0) }
        if let unresolved = definitions.first(where: { $0.parametersError != nil }), let error = unresolved.parametersError {
            throw LanguageModelSession.GenerationError.unsupportedGuide(.init(
                debugDescription: "the arguments' schema of tool '\(unresolved.name)' cannot be resolved: \(error)"))
        }
        let entries = [Transcript.Entry.instructions(.init(segments: [], toolDefinitions: definitions))]
        let rendering = try loadedModel().rendering
        let messages = RenderedRequest.messages(from: entries)
        let with = rendering.tokens(.init(messages: messages, tools: RenderedRequest.toolDefinitions(in: entries)), addGenerationPrompt: false)
        let without = rendering.tokens(.init(messages: messages), addGenerationPrompt: false)
        return with.count - without.count
    }

    /// The number of tokens a schema takes when it is included in a prompt.
    public func tokenCount(for schema: GenerationSchema) async throws -> Int {
        try textTokens(schema.jsonSchemaString())
    }

    /// The number of tokens transcript entries take as a conversation, chat markers and tool
    /// definitions included.
    public func tokenCount(for entries: some Collection<Transcript.Entry>) async throws -> Int {
        let request = RenderedRequest(
            messages: RenderedRequest.messages(from: entries), tools: RenderedRequest.toolDefinitions(in: entries))
        return try loadedModel().rendering.tokens(request, addGenerationPrompt: false).count
    }
}
