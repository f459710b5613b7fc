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

/// How a request prompts the model, as in Apple's FoundationModels (iOS/macOS 27): whether a
/// structured response's schema is shown to the model, and how much the model may reason
/// before it answers.
///
/// ```swift
/// let response = try await session.respond(
///     to: "Plan a three-day trip to Kyoto.",
///     contextOptions: ContextOptions(reasoningLevel: .moderate))
/// ```
///
/// A reasoning level other than `nil` needs a model with the
/// ``LanguageModelCapabilities/Capability/reasoning`` capability; the session throws
/// ``LanguageModelError/unsupportedCapability(_:)`` before the model runs otherwise.
public struct ContextOptions: Sendable, Hashable {
    /// How much a model may reason before it produces its response.
    public enum ReasoningLevel: Sendable, Hashable {
        /// A little reasoning, for quick responses.
        case light
        /// A moderate amount of reasoning.
        case moderate
        /// Much reasoning, for requests that need analysis.
        case deep
        /// A level the other cases do not name, by the model's own name for it.
        case custom(String)
    }

    /// Whether the schema of a structured response is shown to the model in the prompt (it
    /// constrains generation either way); `nil` leaves it to the request (shown for the
    /// structured `respond` and `streamResponse` calls, whose default is `true`).
    public var includeSchemaInPrompt: Bool?
    /// How much the model may reason before it responds; `nil` is the model's default.
    public var reasoningLevel: ReasoningLevel?

    /// Creates options; `nil` keeps a default.
    ///
    /// - Parameters:
    ///   - includeSchemaInPrompt: Whether a structured response's schema is shown to the model.
    ///   - reasoningLevel: How much the model may reason before it responds.
    public init(includeSchemaInPrompt: Bool? = nil, reasoningLevel: ReasoningLevel? = nil) {
        self.includeSchemaInPrompt = includeSchemaInPrompt
        self.reasoningLevel = reasoningLevel
    }
}
