import Foundation

/// A model that a ``LanguageModelSession`` can talk to.
///
/// A Pocket addition: Apple's sessions only take ``SystemLanguageModel``. Sessions speak to a
/// model in rendered chat messages; the model owns tokenization, its chat format, its cache
/// and sampling. ``SystemLanguageModel`` runs a GGUF model; tests and apps can supply their own.
public protocol LanguageModel: Sendable {
    /// The most tokens one conversation may hold (instructions, transcript, prompt and reply).
    var contextSize: Int { get }

    /// Creates the per-session state (for a transformer: its KV cache).
    func makeContext() throws -> any LanguageModelContext
}

/// The state one session keeps on a model, such as the KV cache of its transcript.
///
/// A context is used by one request at a time (the session guarantees it).
public protocol LanguageModelContext: AnyObject {
    /// The number of tokens `messages` take, with the opening of a reply if `addGenerationPrompt`.
    func tokenCount(of messages: [LanguageModelMessage], addGenerationPrompt: Bool) -> Int

    /// Evaluates `messages` ahead of time so a later request that starts with them is faster.
    func prefill(_ messages: [LanguageModelMessage]) throws

    /// Generates the assistant's reply to `request.messages`.
    ///
    /// - Parameter onText: Receives the reply's text as it grows (each call: new text only).
    /// - Throws: ``LanguageModelContextError`` when the context window fills up;
    ///   `CancellationError` when the task is cancelled (checked before every token).
    func generate(_ request: LanguageModelRequest, onText: (String) throws -> Void) throws -> LanguageModelReply
}

/// Errors a ``LanguageModelContext`` reports to the session.
public enum LanguageModelContextError: Error, Sendable, Equatable {
    /// The conversation plus the reply does not fit the context window.
    case contextFull(needed: Int, capacity: Int)
    /// The model could not produce text of the required format.
    case decodingFailure(String)
}

/// One rendered message of a conversation.
public struct LanguageModelMessage: Sendable, Equatable, Hashable {
    /// Who wrote a message.
    public enum Role: String, Sendable, Hashable {
        case system, user, assistant, tool
    }

    /// The author.
    public var role: Role
    /// The text, which a model encodes as plain text (never as special tokens).
    public var content: String

    /// Creates a message.
    public init(role: Role, content: String) {
        self.role = role
        self.content = content
    }
}

/// What a session asks a model for.
public struct LanguageModelRequest: Sendable {
    /// The conversation so far; the reply is the assistant's next message.
    public var messages: [LanguageModelMessage]
    /// Sampling settings.
    public var options: GenerationOptions
    /// JSON Schema text the whole reply must follow, or `nil` for free text.
    public var schema: String?
    /// How the model may call tools instead of answering, or `nil` when no tools are available.
    public var toolCalls: ToolCallFormat?

    /// Creates a request.
    public init(
        messages: [LanguageModelMessage], options: GenerationOptions = GenerationOptions(),
        schema: String? = nil, toolCalls: ToolCallFormat? = nil
    ) {
        self.messages = messages
        self.options = options
        self.schema = schema
        self.toolCalls = toolCalls
    }
}

/// How a reply calls tools: a marker, then a JSON array of calls following a schema.
///
/// A reply that starts with ``marker`` (after optional whitespace) is a tool call; the rest of
/// the reply is then constrained to ``schema``. Any other reply is an answer.
public struct ToolCallFormat: Sendable, Equatable {
    /// The text that opens a call (`<tool_call>`).
    public var marker: String
    /// JSON Schema text of the array of calls (`[{"name": …, "arguments": {…}}]`).
    public var schema: String

    /// Creates a format.
    public init(marker: String = "<tool_call>", schema: String) {
        self.marker = marker
        self.schema = schema
    }
}

/// A model's reply.
public struct LanguageModelReply: Sendable {
    /// The reply's text (for a tool call: the JSON array after the marker).
    public var text: String
    /// Whether the reply is a tool call.
    public var isToolCall: Bool
    /// Token counts and timings.
    public var usage: Usage

    /// Creates a reply.
    public init(text: String, isToolCall: Bool = false, usage: Usage = Usage()) {
        self.text = text
        self.isToolCall = isToolCall
        self.usage = usage
    }
}

/// Token counts and timings of a request (a Pocket addition).
public struct Usage: Sendable, Equatable, CustomStringConvertible {
    /// Tokens of the conversation that were evaluated for this request.
    public var inputTokens = 0
    /// Tokens of the conversation that were reused from the cache instead.
    public var cachedTokens = 0
    /// Tokens generated.
    public var outputTokens = 0
    /// From the start of the request to the first generated token.
    public var timeToFirstToken: Duration = .zero
    /// Generated tokens per second after the first.
    public var tokensPerSecond: Double = 0

    /// Creates usage numbers.
    public init(
        inputTokens: Int = 0, cachedTokens: Int = 0, outputTokens: Int = 0,
        timeToFirstToken: Duration = .zero, tokensPerSecond: Double = 0
    ) {
        self.inputTokens = inputTokens
        self.cachedTokens = cachedTokens
        self.outputTokens = outputTokens
        self.timeToFirstToken = timeToFirstToken
        self.tokensPerSecond = tokensPerSecond
    }

    /// Adds the counts of another round (tool loops); keeps the first round's time to first token.
    mutating func add(_ other: Usage) {
        if inputTokens + cachedTokens + outputTokens == 0 { timeToFirstToken = other.timeToFirstToken }
        inputTokens += other.inputTokens
        cachedTokens += other.cachedTokens
        outputTokens += other.outputTokens
        tokensPerSecond = other.tokensPerSecond
    }

    public var description: String {
        "input \(inputTokens) tokens (\(cachedTokens) cached), output \(outputTokens) tokens, "
            + "first token after \(timeToFirstToken), \(String(format: "%.1f", tokensPerSecond)) tokens/s"
    }
}
