import Foundation
import Observation
import Synchronization

/// A conversation with a language model: instructions, prompts, responses and tool calls,
/// kept in a ``Transcript`` and in the model's cache.
///
/// One request runs at a time; a second one while ``isResponding`` throws
/// ``GenerationError/concurrentRequests(_:)``. A failed or cancelled request leaves the
/// transcript as it was before the request.
///
/// The session is `Observable`: SwiftUI views (or `withObservationTracking`) that read
/// ``isResponding`` or ``transcript`` are told when a request starts, ends or adds entries.
/// The model runs on a thread of the session's own (see `EngineExecutor`), never on Swift's
/// cooperative thread pool, so a long response does not hold up other tasks.
public final class LanguageModelSession: @unchecked Sendable {
    /// The model.
    public let model: any LanguageModel
    /// The tools the model may call.
    public let tools: [any Tool]
    private let guardrails: SystemLanguageModel.Guardrails
    private let state: Mutex<State>
    private let registrar = ObservationRegistrar()
    /// Where the model runs; its serial queue is the only place `context` is used.
    let engine = EngineExecutor(label: "Pocket.LanguageModelSession.engine")
    /// The model's per-session state; used only on `engine`'s queue.
    private var context: (any LanguageModelContext)?

    private struct State {
        var transcript: Transcript
        /// The request holding the session, if any.
        var active: RequestTicket?
    }

    /// Identifies one request, so that ending or abandoning it never frees the session from a
    /// later one.
    final class RequestTicket: Sendable {
        /// Set (under the session's lock) when the request's consumer left it.
        let abandoned = Atomic(false)
    }

    /// The conversation so far.
    public var transcript: Transcript {
        registrar.access(self, keyPath: \.transcript)
        return state.withLock { $0.transcript }
    }

    /// Whether a request is running.
    ///
    /// It is `false` again as soon as a request ends, or as soon as a stream's consumer
    /// stops iterating it (the generation then stops within a token, and a new request
    /// waits for that before it uses the model).
    public var isResponding: Bool {
        registrar.access(self, keyPath: \.isResponding)
        return state.withLock { $0.active != nil }
    }

    /// Creates a session.
    ///
    /// - Parameters:
    ///   - model: The model (the default model unless given).
    ///   - tools: Tools the model may call.
    ///   - instructions: Instructions that steer every response.
    public init(model: any LanguageModel = SystemLanguageModel.default, tools: [any Tool] = [], instructions: Instructions? = nil) {
        self.model = model
        self.tools = tools
        guardrails = (model as? SystemLanguageModel)?.guardrails ?? .default
        var entries: [Transcript.Entry] = []
        let definitions = tools.compactMap { try? Transcript.ToolDefinition(tool: $0) }
        if instructions != nil || !definitions.isEmpty {
            let segments = instructions.map { [Transcript.Segment.text(.init(content: $0.text))] } ?? []
            entries.append(.instructions(.init(segments: segments, toolDefinitions: definitions)))
        }
        state = Mutex(State(transcript: Transcript(entries: entries)))
    }

    /// Creates a session with instructions given as text.
    public convenience init(model: any LanguageModel = SystemLanguageModel.default, tools: [any Tool] = [], instructions: String) {
        self.init(model: model, tools: tools, instructions: Instructions(instructions))
    }

    /// Creates a session with instructions from a builder.
    public convenience init(
        model: any LanguageModel = SystemLanguageModel.default, tools: [any Tool] = [],
        @InstructionsBuilder instructions: () throws -> Instructions
    ) rethrows {
        self.init(model: model, tools: tools, instructions: try instructions())
    }

    /// Continues a saved conversation; the cache is rebuilt on the first request.
    public init(model: any LanguageModel = SystemLanguageModel.default, tools: [any Tool] = [], transcript: Transcript) {
        self.model = model
        self.tools = tools
        guardrails = (model as? SystemLanguageModel)?.guardrails ?? .default
        state = Mutex(State(transcript: transcript))
    }

    /// Evaluates the instructions (and `promptPrefix`) ahead of time so the first response
    /// starts sooner. Returns at once: the work runs on the session's model thread, before
    /// any request made afterwards. Does nothing while a request is running.
    public func prewarm(promptPrefix: Prompt? = nil) {
        guard let transcript = state.withLock({ $0.active == nil ? $0.transcript : nil }) else { return }
        var messages = Self.render(transcript)
        if let promptPrefix { messages.append(LanguageModelMessage(role: .user, content: promptPrefix.text)) }
        let request = LanguageModelRequest(messages: messages, tools: Self.toolDefinitions(in: transcript))
        engine.queue.async {
            try? self.modelContext().prefill(request)
        }
    }

    /// The model context, made on first use. Called only on `engine`'s queue.
    private func modelContext() throws -> any LanguageModelContext {
        if let context { return context }
        let made = try model.makeContext()
        context = made
        return made
    }

    // MARK: - Request lifecycle

    /// A ticket for a request that has not started yet (streams make theirs before their task runs).
    func makeTicket() -> RequestTicket { RequestTicket() }

    /// Makes `ticket` the running request and returns the transcript it starts from.
    ///
    /// - Throws: `CancellationError` when the request was abandoned before it started;
    ///   ``GenerationError/concurrentRequests(_:)`` when another request holds the session.
    private func begin(_ ticket: RequestTicket) throws -> Transcript {
        func check(_ s: State) throws {
            if ticket.abandoned.load(ordering: .relaxed) { throw CancellationError() }
            guard s.active == nil else {
                throw GenerationError.concurrentRequests(.init(debugDescription: "the session is already responding to a request"))
            }
        }
        // A rejected request does not notify observers; the check is repeated under the
        // mutation in case another request started in between.
        try state.withLock { try check($0) }
        return try registrar.withMutation(of: self, keyPath: \.isResponding) {
            try state.withLock { s in
                try check(s)
                s.active = ticket
                return s.transcript
            }
        }
    }

    /// Frees the session from `ticket`'s request, if it still holds it.
    private func end(_ ticket: RequestTicket) {
        guard state.withLock({ $0.active === ticket }) else { return }
        registrar.withMutation(of: self, keyPath: \.isResponding) {
            state.withLock { s in if s.active === ticket { s.active = nil } }
        }
    }

    /// Frees the session at once from a request whose consumer left it (a stream's loop was
    /// left early, or its task cancelled). The request's task, cancelled by the caller, stops
    /// within a token and commits nothing; the next request's model work queues behind it.
    func abandon(_ ticket: RequestTicket) {
        let held = state.withLock { s -> Bool in
            ticket.abandoned.store(true, ordering: .relaxed)
            return s.active === ticket
        }
        guard held else { return }
        registrar.withMutation(of: self, keyPath: \.isResponding) {
            state.withLock { s in if s.active === ticket { s.active = nil } }
        }
    }

    /// Adds a finished request's entries to the transcript, unless the request was abandoned.
    private func commit(_ entries: [Transcript.Entry], for ticket: RequestTicket) throws {
        try registrar.withMutation(of: self, keyPath: \.transcript) {
            try state.withLock { s in
                guard s.active === ticket else { throw CancellationError() }
                s.transcript.entries += entries
            }
        }
    }

    // MARK: - Rendering

    /// The transcript as chat messages. User and tool text stays text: the model encodes it
    /// without special-token parsing, so it cannot open or close a turn. Tool definitions are
    /// not part of the messages: requests carry them, and the model shows them in its format.
    static func render(_ transcript: some Sequence<Transcript.Entry>) -> [LanguageModelMessage] {
        var messages: [LanguageModelMessage] = []
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
            }
        }
        return messages
    }

    /// The tools a transcript's instructions define, as a request offers them.
    static func toolDefinitions(in transcript: some Sequence<Transcript.Entry>) -> [LanguageModelToolDefinition] {
        transcript.flatMap { entry -> [LanguageModelToolDefinition] in
            guard case .instructions(let e) = entry else { return [] }
            return e.toolDefinitions.map {
                LanguageModelToolDefinition(name: $0.name, description: $0.description, parametersJSON: $0.parametersJSON,
                                            includesSchemaInInstructions: $0.includesSchemaInInstructions != false)
            }
        }
    }

    /// What precedes a schema shown to the model in a prompt.
    static let schemaHint = "\n\nRespond with JSON that follows this JSON Schema:\n"

    // MARK: - Running a request

    /// The result of ``run``.
    struct Outcome {
        var text: String
        var entries: [Transcript.Entry]
        var usage: Usage
    }

    /// Runs one request: checks, generation, the tool loop; commits the transcript on success.
    ///
    /// - Parameter onText: Receives the response text accumulated so far (answers only).
    func run(
        prompt: Prompt, schema: GenerationSchema?, schemaName: String?, includeSchemaInPrompt: Bool,
        options: GenerationOptions, ticket: RequestTicket? = nil, onText: (String) throws -> Void
    ) async throws -> Outcome {
        let ticket = ticket ?? RequestTicket()
        let transcript = try begin(ticket)
        defer { end(ticket) }

        let promptText = prompt.text
        guard guardrails.check(promptText) else {
            throw GenerationError.guardrailViolation(.init(debugDescription: "the prompt was rejected by the session's guardrails"))
        }
        if let model = model as? SystemLanguageModel, let language = LanguageDetection.unsupportedLanguage(of: promptText, supported: model.supportedLanguages) {
            throw GenerationError.unsupportedLanguageOrLocale(.init(
                debugDescription: "the prompt appears to be in \(language), which the model does not list in general.languages"))
        }
        var schemaJSON: String?
        if let schema {
            do { schemaJSON = try schema.jsonSchemaString() } catch {
                throw GenerationError.unsupportedGuide(.init(debugDescription: "the schema cannot be resolved: \(error)"))
            }
        }
        var format = schema.map { Transcript.ResponseFormat(schema: $0) }
        if let name = schemaName { format?.name = name }
        format?.includedInPrompt = includeSchemaInPrompt
        var newEntries: [Transcript.Entry] = [.prompt(.init(
            segments: [.text(.init(content: promptText))], options: options, responseFormat: format))]
        let definitions = Self.toolDefinitions(in: transcript)
        // Calls already answered in this request: a model that repeats one is looping, and
        // may not call in its next round, so it answers from the outputs it has.
        var answeredCalls: Set<String> = []
        var allowsToolCalls = true

        var usage = Usage()
        for _ in 0..<16 {
            let request = LanguageModelRequest(
                messages: Self.render(Array(transcript) + newEntries), options: options, schema: schemaJSON,
                tools: definitions, allowsToolCalls: allowsToolCalls)
            let reply: LanguageModelReply
            do {
                reply = try await generate(request, onText: onText)
            } catch let error as LanguageModelContextError {
                switch error {
                case .contextFull(let needed, let capacity):
                    throw GenerationError.exceededContextWindowSize(.init(
                        debugDescription: "the response ran into the context window (\(needed) of \(capacity) tokens)"))
                case .decodingFailure(let detail):
                    throw GenerationError.decodingFailure(.init(debugDescription: detail))
                }
            }
            usage.add(reply.usage)
            if reply.isToolCall {
                let calls = try parseToolCalls(reply.text)
                let keys = calls.map { $0.toolName + "\u{0}" + $0.arguments.jsonString }
                if keys.allSatisfy(answeredCalls.contains) {
                    allowsToolCalls = false
                    continue
                }
                answeredCalls.formUnion(keys)
                newEntries.append(.toolCalls(.init(calls)))
                newEntries += try await runTools(calls)
                continue
            }
            guard guardrails.check(reply.text) else {
                throw GenerationError.guardrailViolation(.init(debugDescription: "the response was rejected by the session's guardrails"))
            }
            let segment: Transcript.Segment
            if schema != nil {
                let content: GeneratedContent
                do { content = try GeneratedContent(json: reply.text) } catch {
                    throw GenerationError.decodingFailure(.init(debugDescription: "the response is not valid JSON: \(error)"))
                }
                segment = .structure(.init(source: schemaName ?? "schema", content: content))
            } else {
                segment = .text(.init(content: reply.text))
            }
            newEntries.append(.response(.init(segments: [segment])))
            try commit(newEntries, for: ticket)
            return Outcome(text: reply.text, entries: newEntries, usage: usage)
        }
        throw GenerationError.decodingFailure(.init(debugDescription: "the model kept calling tools for 16 rounds without answering"))
    }

    /// Runs one round of the model on the session's engine thread, in the calling task.
    ///
    /// Everything that touches the context happens in this one synchronous stretch, so the
    /// engine's serial queue keeps requests from using the context at the same time.
    private func generate(_ request: LanguageModelRequest, onText: (String) throws -> Void) async throws -> LanguageModelReply {
        try await withTaskExecutorPreference(engine) {
            try Task.checkCancellation()
            let context = try self.modelContext()
            let needed = context.tokenCount(of: request)
            guard needed < self.model.contextSize else {
                throw GenerationError.exceededContextWindowSize(.init(
                    debugDescription: "the request needs \(needed) tokens before the response; the context size is \(self.model.contextSize)"))
            }
            var accumulated = ""
            return try context.generate(request) { piece in
                accumulated += piece
                try onText(accumulated)
            }
        }
    }

    /// The calls of a reply: one call object, or an array of them.
    private func parseToolCalls(_ json: String) throws -> [Transcript.ToolCall] {
        guard let content = try? GeneratedContent(json: json) else {
            throw GenerationError.decodingFailure(.init(debugDescription: "the tool call is not JSON: \(json)"))
        }
        let items: [GeneratedContent]
        switch content.kind {
        case .array(let array): items = array
        case .structure: items = [content]
        default: throw GenerationError.decodingFailure(.init(debugDescription: "the tool call is not a JSON object or array: \(json)"))
        }
        return try items.map { item in
            guard case .structure(let properties, _) = item.kind,
                  case .string(let name)? = properties["name"]?.kind, let arguments = properties["arguments"] else {
                throw GenerationError.decodingFailure(.init(debugDescription: "a tool call lacks name or arguments: \(item.jsonString)"))
            }
            return Transcript.ToolCall(toolName: name, arguments: arguments)
        }
    }

    /// Runs the calls concurrently; outputs come back in call order.
    private func runTools(_ calls: [Transcript.ToolCall]) async throws -> [Transcript.Entry] {
        let tools = self.tools
        return try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, call) in calls.enumerated() {
                guard let tool = tools.first(where: { $0.name == call.toolName }) else {
                    throw GenerationError.decodingFailure(.init(debugDescription: "the model called an unknown tool '\(call.toolName)'"))
                }
                group.addTask {
                    do {
                        return (index, try await tool.callRendered(call.arguments))
                    } catch {
                        throw LanguageModelSession.ToolCallError(tool: tool, underlyingError: error)
                    }
                }
            }
            var outputs = [String](repeating: "", count: calls.count)
            for try await (index, output) in group { outputs[index] = output }
            return calls.enumerated().map { index, call in
                .toolOutput(.init(id: call.id, toolName: call.toolName, segments: [.text(.init(content: outputs[index]))]))
            }
        }
    }
}

/// SwiftUI and `withObservationTracking` observe ``LanguageModelSession/isResponding`` and
/// ``LanguageModelSession/transcript``.
extension LanguageModelSession: Observable {}
