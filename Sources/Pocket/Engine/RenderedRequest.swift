import Foundation

// The conversation as a GGUF model's chat template sees it: what `SystemLanguageModel`'s
// executor renders a request's transcript into before tokenizing. Internal to Pocket's engine;
// providers receive the `Transcript` itself (`LanguageModelExecutorGenerationRequest`).

/// One rendered message of a conversation.
struct RenderedMessage: Sendable, Equatable, Hashable {
    /// Who wrote a message.
    enum Role: String, Sendable, Hashable {
        case system, user, assistant, tool
    }

    /// A call to a tool in an assistant message.
    struct ToolCall: Sendable, Equatable, Hashable {
        /// The tool's name.
        var name: String
        /// The arguments, as JSON text (an object).
        var argumentsJSON: String
    }

    /// The author.
    var role: Role
    /// The text, which a model encodes as plain text (never as special tokens).
    var content: String
    /// The tools an assistant message calls (empty for answers and other roles).
    var toolCalls: [ToolCall] = []
}

/// A tool a request offers to the model.
struct RenderedToolDefinition: Sendable {
    /// The tool's name.
    var name: String
    /// What the tool does.
    var description: String
    /// The arguments' schema: what calls are constrained to (lowered to the grammar directly).
    var parameters: GenerationSchema
    /// The JSON Schema text of the arguments (an object): what the model is shown.
    var parametersJSON: String
    /// Whether the model is shown the arguments' schema (calls are constrained to it either way).
    var includesSchemaInInstructions: Bool
}

/// What a session asks a model for.
struct RenderedRequest: Sendable {
    /// The conversation so far; the reply is the assistant's next message.
    var messages: [RenderedMessage]
    /// Sampling settings.
    var options: GenerationOptions
    /// The schema the reply must follow when it is an answer, or `nil` for free text.
    var schema: GenerationSchema?
    /// Tools the model may call instead of answering (also with a ``schema``: the reply is then
    /// either a call or the structured value).
    var tools: [RenderedToolDefinition]
    /// Whether the reply may call one of ``tools``. `false` keeps the tools in the rendered
    /// conversation (and the cache) but asks for an answer: the session sets it after a model
    /// repeated a call it already has the output of.
    var allowsToolCalls: Bool
    /// How much the model reasons before it replies (``ReasoningBudget``); `nil` is the model's
    /// default.
    var reasoningLevel: ContextOptions.ReasoningLevel?

    /// Creates a request.
    init(
        messages: [RenderedMessage], options: GenerationOptions = GenerationOptions(),
        schema: GenerationSchema? = nil, tools: [RenderedToolDefinition] = [], allowsToolCalls: Bool = true,
        reasoningLevel: ContextOptions.ReasoningLevel? = nil
    ) {
        self.messages = messages
        self.options = options
        self.schema = schema
        self.tools = tools
        self.allowsToolCalls = allowsToolCalls
        self.reasoningLevel = reasoningLevel
    }
}

/// A model's reply.
struct RenderedReply: Sendable {
    /// The reply's text; for a tool call, the calls as JSON: one `{"name": …, "arguments": …}`
    /// object or an array of them.
    var text: String
    /// Whether the reply is a tool call.
    var isToolCall = false
    /// The reasoning the model wrote in its template's thinking section before the reply
    /// (never part of ``text``); empty for a reply that did not reason.
    var reasoning = ""
    /// The tokens of the thinking section (part of the usage's output tokens).
    var reasoningTokens = 0
    /// Token counts and timings.
    var usage = Usage()
}

extension RenderedRequest {
    /// Renders an executor request: the transcript as messages, the schema resolved.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/unsupportedGuide(_:)`` when the schema
    ///   cannot be resolved.
    init(_ request: LanguageModelExecutorGenerationRequest) throws {
        if let schema = request.schema {
            do { _ = try schema.resolved() } catch {
                throw LanguageModelSession.GenerationError.unsupportedGuide(.init(debugDescription: "the schema cannot be resolved: \(error)"))
            }
        }
        self.init(
            messages: Self.messages(from: request.transcript), options: request.generationOptions, schema: request.schema,
            tools: request.enabledToolDefinitions.map(RenderedToolDefinition.init), allowsToolCalls: request.allowsToolCalls,
            reasoningLevel: request.contextOptions.reasoningLevel)
    }

    /// The transcript as chat messages. User and tool text stays text: the model encodes it
    /// without special-token parsing, so it cannot open or close a turn. Attachments appear as
    /// their placeholder text (`[image: label]`); reasoning entries are left out. Tool definitions are
    /// not part of the messages: requests carry them, and the model shows them in its format.
    static func messages(from transcript: some Sequence<Transcript.Entry>) -> [RenderedMessage] {
        var messages: [RenderedMessage] = []
        for entry in transcript {
            switch entry {
            case .instructions(let e):
                messages.append(.init(role: .system, content: e.segments.text))
            case .prompt(let e):
                var text = e.segments.text
                if let format = e.responseFormat, format.includedInPrompt == true {
                    text += schemaHint + format.schemaJSON
                }
                messages.append(.init(role: .user, content: text))
            case .toolCalls(let e):
                messages.append(.init(role: .assistant, content: "", toolCalls: e.calls.map {
                    .init(name: $0.toolName, argumentsJSON: $0.arguments.jsonString)
                }))
            case .toolOutput(let e):
                messages.append(.init(role: .tool, content: e.segments.text))
            case .response(let e):
                messages.append(.init(role: .assistant, content: e.segments.text))
            case .reasoning:
                continue  // a provider's reasoning is not shown back to Pocket's models
            }
        }
        return messages
    }

    /// The tools a transcript's instructions define, as a request offers them.
    static func toolDefinitions(in transcript: some Sequence<Transcript.Entry>) -> [RenderedToolDefinition] {
        transcript.flatMap { entry -> [RenderedToolDefinition] in
            guard case .instructions(let e) = entry else { return [] }
            return e.toolDefinitions.map(RenderedToolDefinition.init)
        }
    }

    /// What precedes a schema shown to the model in a prompt.
    static let schemaHint = "\n\nRespond with JSON that follows this JSON Schema:\n"
}

extension RenderedToolDefinition {
    /// A transcript's tool definition as a request offers it.
    init(_ definition: Transcript.ToolDefinition) {
        self.init(name: definition.name, description: definition.description, parameters: definition.parameters,
                  parametersJSON: definition.parametersJSON,
                  includesSchemaInInstructions: definition.includesSchemaInInstructions != false)
    }
}
