import Foundation

/// What a session asks an executor for: the details of one generation, as in Apple's
/// FoundationModels (iOS/macOS 27).
public struct LanguageModelExecutorGenerationRequest: Sendable {
    /// A request id for logging and tracing.
    public var id: UUID
    /// The conversation so far; the response is the model's next entry. Its first entry may be
    /// the instructions, its last is the prompt or the outputs of the tools the model called.
    public var transcript: Transcript
    /// The tools the model may call.
    public var enabledToolDefinitions: [Transcript.ToolDefinition]
    /// The schema a response must follow, or `nil` for free text.
    public var schema: GenerationSchema?
    /// Sampling and length settings.
    public var generationOptions: GenerationOptions
    /// Prompting settings.
    public var contextOptions: ContextOptions
    /// Values a caller attaches to the request, keyed by name.
    public var metadata: [String: any Sendable & Codable & Equatable]
    /// Whether the response may call one of ``enabledToolDefinitions`` (a Pocket addition).
    ///
    /// `false` keeps the tools in the conversation (and a model's cache) but asks for an
    /// answer: the session sets it after a model repeated a call it already has the output of.
    /// Executors that ignore it still work; the session then stops after 16 rounds of calls.
    public var allowsToolCalls: Bool

    /// Creates a request.
    public init(
        id: UUID = UUID(), transcript: Transcript, enabledTools: [Transcript.ToolDefinition] = [],
        schema: GenerationSchema? = nil, generationOptions: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(), metadata: [String: any Sendable & Codable & Equatable] = [:]
    ) {
        self.id = id
        self.transcript = transcript
        enabledToolDefinitions = enabledTools
        self.schema = schema
        self.generationOptions = generationOptions
        self.contextOptions = contextOptions
        self.metadata = metadata
        allowsToolCalls = true
    }
}

/// How a request prompts the model, as in Apple's FoundationModels (iOS/macOS 27).
public struct ContextOptions: Sendable, Hashable {
    /// Whether the schema of a structured response is shown to the model in the prompt (it
    /// constrains generation either way).
    public var includeSchemaInPrompt: Bool

    /// Creates options.
    public init(includeSchemaInPrompt: Bool = true) {
        self.includeSchemaInPrompt = includeSchemaInPrompt
    }
}
