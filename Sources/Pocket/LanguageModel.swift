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
/// A context is used by one request at a time (the session guarantees it), always on the
/// session's own model thread: its methods may block for as long as the work takes without
/// holding up Swift's cooperative thread pool. `generate` runs inside the requesting task, so
/// `Task.checkCancellation()` sees the request's cancellation.
public protocol LanguageModelContext: AnyObject {
    /// The number of tokens `request`'s conversation and tool definitions take, with the
    /// opening of the reply.
    func tokenCount(of request: LanguageModelRequest) -> Int

    /// Evaluates `request`'s conversation (without the opening of a reply) ahead of time, so a
    /// later request that starts with it is faster.
    func prefill(_ request: LanguageModelRequest) throws

    /// Generates the assistant's reply to `request.messages`.
    ///
    /// A model that offers ``LanguageModelRequest/tools`` renders them in its own chat format
    /// and decides, as the reply begins, whether it is an answer or a tool call.
    ///
    /// - Parameter onText: Receives the reply's text as it grows (each call: new text only;
    ///   never the text of a tool call).
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

    /// A call to a tool in an assistant message.
    public struct ToolCall: Sendable, Equatable, Hashable {
        /// The tool's name.
        public var name: String
        /// The arguments, as JSON text (an object).
        public var argumentsJSON: String

        /// Creates a call.
        public init(name: String, argumentsJSON: String) {
            self.name = name
            self.argumentsJSON = argumentsJSON
        }
    }

    /// The author.
    public var role: Role
    /// The text, which a model encodes as plain text (never as special tokens).
    public var content: String
    /// The tools an assistant message calls (empty for answers and other roles).
    public var toolCalls: [ToolCall]

    /// Creates a message.
    public init(role: Role, content: String, toolCalls: [ToolCall] = []) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
    }
}

/// A tool a request offers to the model.
public struct LanguageModelToolDefinition: Sendable, Equatable, Hashable {
    /// The tool's name.
    public var name: String
    /// What the tool does.
    public var description: String
    /// The JSON Schema text of the arguments (an object).
    public var parametersJSON: String
    /// Whether the model is shown the arguments' schema (calls are constrained to it either way).
    public var includesSchemaInInstructions: Bool

    /// Creates a definition.
    public init(name: String, description: String, parametersJSON: String, includesSchemaInInstructions: Bool = true) {
        self.name = name
        self.description = description
        self.parametersJSON = parametersJSON
        self.includesSchemaInInstructions = includesSchemaInInstructions
    }
}

/// What a session asks a model for.
public struct LanguageModelRequest: Sendable {
    /// The conversation so far; the reply is the assistant's next message.
    public var messages: [LanguageModelMessage]
    /// Sampling settings.
    public var options: GenerationOptions
    /// JSON Schema text the reply must follow when it is an answer, or `nil` for free text.
    public var schema: String?
    /// Tools the model may call instead of answering (also with a ``schema``: the reply is then
    /// either a call or the structured value).
    public var tools: [LanguageModelToolDefinition]
    /// Whether the reply may call one of ``tools``. `false` keeps the tools in the rendered
    /// conversation (and the cache) but asks for an answer: the session sets it after a model
    /// repeated a call it already has the output of.
    public var allowsToolCalls: Bool

    /// Creates a request.
    public init(
        messages: [LanguageModelMessage], options: GenerationOptions = GenerationOptions(),
        schema: String? = nil, tools: [LanguageModelToolDefinition] = [], allowsToolCalls: Bool = true
    ) {
        self.messages = messages
        self.options = options
        self.schema = schema
        self.tools = tools
        self.allowsToolCalls = allowsToolCalls
    }
}

/// A model's reply.
public struct LanguageModelReply: Sendable {
    /// The reply's text; for a tool call, the calls as JSON: one `{"name": …, "arguments": …}`
    /// object or an array of them.
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
