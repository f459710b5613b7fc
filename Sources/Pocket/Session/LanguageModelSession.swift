import Foundation
import Observation
import Synchronization

/// A conversation with a language model: instructions, prompts, responses and tool calls,
/// kept in a ``Transcript``.
///
/// The session runs on any ``LanguageModel``: it creates the model's executor from
/// ``LanguageModel/executorConfiguration`` on first use, keeps it for its lifetime (so the
/// executor can keep a cache of the conversation), and calls
/// ``LanguageModelExecutor/respond(to:model:streamingInto:)`` for each round of a request,
/// running the tools the executor calls in between.
///
/// One request runs at a time; a second one while ``isResponding`` throws
/// ``Error/concurrentRequests``. A failed or cancelled request leaves the
/// transcript as it was before the request.
///
/// The session is `Observable`: SwiftUI views (or `withObservationTracking`) that read
/// ``isResponding`` or ``transcript`` are told when a request starts, ends or adds entries.
/// The model runs on a thread of the session's own (see `EngineExecutor`), never on Swift's
/// cooperative thread pool, so a long response does not hold up other tasks.
public final class LanguageModelSession: @unchecked Sendable {
    /// The model.
    ///
    /// A session made from a dynamic profile (``init(profile:history:)``) shows the model its
    /// profile chose when the session was made; each request runs on the model the profile
    /// chooses for it.
    public let model: any LanguageModel
    /// The tools the model may call (for a profile session: those of its profile when the
    /// session was made; each request offers those its profile lists then).
    public let tools: [any Tool]
    /// The guardrails of ``model`` (a profile's request uses its own model's).
    let guardrails: SystemLanguageModel.Guardrails
    private let state: Mutex<State>
    private let registrar = ObservationRegistrar()
    /// Where the model's executor runs; its serial queue is the only place `executorBoxes` is used.
    let engine = EngineExecutor(label: "Pocket.LanguageModelSession.engine")
    /// Each model's executor, made on first use and kept for the session; used only on
    /// `engine`'s queue. A profile that switches models keeps every model's executor (and cache).
    var executorBoxes: [ExecutorKey: ExecutorBox] = [:]
    /// The dynamic profile evaluated before every request, if the session was made from one.
    let profile: AnyDynamicProfile?

    /// The values of the session's managed properties.
    ///
    /// Profiles, dynamic instructions and tools read them through ``SessionProperty``; a change
    /// shows in the next request's evaluation.
    public let properties: SessionPropertyValues

    private struct State {
        var transcript: Transcript
        /// The usage of every response so far.
        var usage = Usage.zero
        /// Whether ``transcript`` was set while the active request ran.
        var transcriptReplaced = false
        /// The request holding the session, if any.
        var active: RequestTicket?
        var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
        /// The identity of the profile the last request activated, and its deactivation hooks.
        var activeProfile: (identity: String, onDeactivate: [ResolvedProfile.ActivationHook])?
    }

    /// The session's policy for managing the transcript when errors occur.
    ///
    /// `nil` (the default) reverts: a failed or cancelled request leaves the transcript as it
    /// was before the request. A profile's ``DynamicProfile/transcriptErrorHandlingPolicy(_:)``
    /// takes precedence for the requests it serves.
    public var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy? {
        get { state.withLock { $0.transcriptErrorHandlingPolicy } }
        set { state.withLock { $0.transcriptErrorHandlingPolicy = newValue } }
    }

    /// Identifies one request, so that ending or abandoning it never frees the session from a
    /// later one.
    final class RequestTicket: Sendable {
        /// Set (under the session's lock) when the request's consumer left it.
        let abandoned = Atomic(false)
    }

    /// The conversation so far.
    ///
    /// Setting it replaces the conversation the next request continues (the model's cache
    /// keeps what the new transcript shares with the old one). A request running meanwhile
    /// fails with ``Error/transcriptMutationWhileResponding`` and adds nothing to the new
    /// transcript.
    public var transcript: Transcript {
        get {
            registrar.access(self, keyPath: \.transcript)
            return state.withLock { $0.transcript }
        }
        set {
            registrar.withMutation(of: self, keyPath: \.transcript) {
                state.withLock { s in
                    s.transcript = newValue
                    if s.active != nil { s.transcriptReplaced = true }
                }
            }
        }
    }

    /// The usage of every response the session has produced, added up: it only grows.
    ///
    /// ```swift
    /// _ = try await session.respond(to: "Hello")
    /// _ = try await session.respond(to: "And again")
    /// print(session.usage.totalTokenCount)
    /// ```
    ///
    /// A response counts once it is complete (a failed or cancelled request adds nothing).
    public var usage: Usage {
        registrar.access(self, keyPath: \.usage)
        return state.withLock { $0.usage }
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
    ///   - model: The model: ``SystemLanguageModel/default`` unless given, or any provider's.
    ///   - tools: Tools the model may call.
    ///   - instructions: Instructions that steer every response.
    public init(model: any LanguageModel = SystemLanguageModel.default, tools: [any Tool] = [], instructions: Instructions? = nil) {
        self.model = model
        self.tools = tools
        guardrails = (model as? SystemLanguageModel)?.guardrails ?? .default
        var entries: [Transcript.Entry] = []
        // A tool whose arguments' schema cannot be resolved is left out, as before 27.
        let definitions = tools.map { Transcript.ToolDefinition(tool: $0) }.filter { $0.parametersError == nil }
        if instructions != nil || !definitions.isEmpty {
            let segments = instructions.map { [Transcript.Segment.text(.init(content: $0.text))] } ?? []
            entries.append(.instructions(.init(segments: segments, toolDefinitions: definitions)))
        }
        state = Mutex(State(transcript: Transcript(entries: entries)))
        profile = nil
        properties = SessionPropertyValues()
        properties.attach(to: self)
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
        profile = nil
        properties = SessionPropertyValues()
        properties.attach(to: self)
    }

    /// Creates a session driven by a dynamic profile; `model` makes the model that serves
    /// requests whose profile sets none.
    ///
    /// The profile is evaluated once here (for ``model``, ``tools`` and the transcript's
    /// instructions entry), then again before every request. A leading instructions entry in
    /// `history` is dropped: the profile defines the instructions.
    init(model: () -> any LanguageModel, profile: AnyDynamicProfile, history: [Transcript.Entry]) {
        let properties = SessionPropertyValues()
        // A profile that cannot be resolved fails its first request with the reason.
        let (resolved, content) = SessionPropertyValues.$current.withValue(properties) {
            let resolved = try? profile.resolvedProfile()
            return (resolved, resolved?.instructions?.resolved())
        }
        // `model` is only asked for when the profile chooses none (it may load a model file).
        self.model = resolved?.model ?? model()
        tools = content?.tools ?? []
        guardrails = (self.model as? SystemLanguageModel)?.guardrails ?? .default
        let instructions = content.flatMap { Self.instructionsEntry(for: $0, replacing: nil) }
        var history = history
        if case .instructions = history.first { history.removeFirst() }
        state = Mutex(State(transcript: Transcript(entries: (instructions.map { [$0] } ?? []) + history)))
        self.profile = profile
        self.properties = properties
        properties.attach(to: self)
    }

    /// Evaluates the instructions (and `promptPrefix`) ahead of time so the first response
    /// starts sooner: calls the executor's ``LanguageModelExecutor/prewarm(model:transcript:)``
    /// with the transcript (and the prefix as a prompt). Returns at once: the work runs on the
    /// session's model thread, before any request made afterwards. Does nothing while a request
    /// is running. A profile session evaluates its profile as a request would, and warms the
    /// model the profile chooses with the instructions and history it would send.
    public func prewarm(promptPrefix: Prompt? = nil) {
        guard let transcript = state.withLock({ $0.active == nil ? $0.transcript : nil }) else { return }
        // A profile session warms what its profile would send now, on the model it would choose.
        let setup = SessionPropertyValues.$current.withValue(properties) { try? requestSetup(for: transcript) }
        var entries = setup?.base ?? Array(transcript)
        if let promptPrefix { entries.append(.prompt(.init(segments: [.text(.init(content: promptPrefix.text))]))) }
        let prefix = Transcript(entries: entries)
        let model = setup?.model ?? self.model
        engine.queue.async {
            try? self.executor(for: model).prewarm(prefix)
        }
    }

    // MARK: - Request lifecycle

    /// A ticket for a request that has not started yet (streams make theirs before their task runs).
    func makeTicket() -> RequestTicket { RequestTicket() }

    /// Makes `ticket` the running request and returns the transcript it starts from.
    ///
    /// - Throws: `CancellationError` when the request was abandoned before it started;
    ///   ``Error/concurrentRequests`` when another request holds the session.
    private func begin(_ ticket: RequestTicket) throws -> Transcript {
        func check(_ s: State) throws {
            if ticket.abandoned.load(ordering: .relaxed) { throw CancellationError() }
            guard s.active == nil else { throw Error.concurrentRequests }
        }
        // A rejected request does not notify observers; the check is repeated under the
        // mutation in case another request started in between.
        try state.withLock { try check($0) }
        return try registrar.withMutation(of: self, keyPath: \.isResponding) {
            try state.withLock { s in
                try check(s)
                s.active = ticket
                s.transcriptReplaced = false
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

    /// Adds a finished request's entries to the transcript and its usage to the session's,
    /// unless the request was abandoned or the transcript was replaced while it ran.
    ///
    /// - Parameter instructions: For a profile session, the instructions entry the request's
    ///   evaluation produced (`nil`: none), which replaces the transcript's leading one.
    private func commit(
        _ entries: [Transcript.Entry], usage: Usage, for ticket: RequestTicket, instructions: Transcript.Entry?? = .none
    ) throws {
        try registrar.withMutation(of: self, keyPath: \.usage) {
            try registrar.withMutation(of: self, keyPath: \.transcript) {
                try state.withLock { s in
                    guard s.active === ticket else { throw CancellationError() }
                    guard !s.transcriptReplaced else { throw Error.transcriptMutationWhileResponding }
                    if case .some(let instructions) = instructions {
                        let history = SessionPropertyValues.history(of: s.transcript)
                        s.transcript.entries = (instructions.map { [$0] } ?? []) + history
                    }
                    s.transcript.entries += entries
                    s.usage.add(usage)
                }
            }
        }
    }

    /// Replaces the conversation after the instructions entry (``SessionPropertyValues/history``).
    func replaceHistory(with history: [Transcript.Entry]) {
        registrar.withMutation(of: self, keyPath: \.transcript) {
            state.withLock { s in
                var head = s.transcript.entries.first.map { [$0] } ?? []
                if case .instructions = head.first {} else { head = [] }
                s.transcript.entries = head + history
            }
        }
    }

    // MARK: - Running a request

    /// The result of ``run``.
    struct Outcome {
        /// The response's text (a structured value's JSON).
        var text: String
        /// The structured value, parsed once from ``text``; `nil` for a text response.
        var structure: GeneratedContent?
        var entries: [Transcript.Entry]
        /// The usage of all the request's rounds.
        var usage: Usage
        /// The reasoning text of the answering round (never part of ``text``).
        var reasoning: String
    }

    /// Runs one request: checks, the executor's rounds, the tool loop; commits the transcript
    /// on success.
    ///
    /// Each round sends the executor the transcript with this request's entries so far. A round
    /// that streams tool calls has them run (concurrently) and their outputs added, then the
    /// next round starts; a round without calls is the response.
    ///
    /// - Parameters:
    ///   - includeSchemaInPrompt: Whether the schema is shown to the model (resolved by the caller).
    ///   - contextOptions: The caller's context options (the reasoning level is passed on).
    ///   - metadata: Values attached to the request, passed to the executor as JSON text.
    ///   - onText: Receives the response text accumulated so far, with the request's usage so far.
    func run(
        prompt: Prompt, schema: GenerationSchema?, schemaName: String?, includeSchemaInPrompt: Bool,
        options: GenerationOptions, contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: GeneratedContent] = [:],
        ticket: RequestTicket? = nil, onText: @escaping (String, Usage) -> Void
    ) async throws -> Outcome {
        // Profiles, hooks and tools read this session's properties through `SessionProperty`.
        try await SessionPropertyValues.$current.withValue(properties) {
            try await runBound(
                prompt: prompt, schema: schema, schemaName: schemaName, includeSchemaInPrompt: includeSchemaInPrompt,
                options: options, contextOptions: contextOptions, metadata: metadata, ticket: ticket ?? RequestTicket(), onText: onText)
        }
    }

    /// ``run(prompt:schema:schemaName:includeSchemaInPrompt:options:contextOptions:metadata:ticket:onText:)``
    /// with the session's properties bound.
    private func runBound(
        prompt: Prompt, schema: GenerationSchema?, schemaName: String?, includeSchemaInPrompt: Bool,
        options: GenerationOptions, contextOptions: ContextOptions, metadata: [String: GeneratedContent],
        ticket: RequestTicket, onText: @escaping (String, Usage) -> Void
    ) async throws -> Outcome {
        let transcript = try begin(ticket)
        defer { end(ticket) }

        let setup = try requestSetup(for: transcript)
        let hooks = setup.profile
        let options = hooks?.generationOptions(over: options) ?? options
        let reasoningLevel = contextOptions.reasoningLevel ?? hooks?.reasoningLevel
        let definitions = setup.definitions
        try check(prompt: prompt, schema: schema, tools: definitions, reasoningLevel: reasoningLevel, model: setup.model, guardrails: setup.guardrails)
        let requestMetadata = metadata.mapValues { $0.jsonString as any Sendable & Codable & Equatable }
        var format = schema.map { Transcript.ResponseFormat(schema: $0) }
        if let name = schemaName { format?.name = name }
        format?.includedInPrompt = includeSchemaInPrompt
        var newEntries: [Transcript.Entry] = [.prompt(.init(
            segments: prompt.transcriptSegments, options: options, responseFormat: format))]
        var loop = ToolLoop()
        var usage = Usage.zero
        var committed = false
        do {
            if let hooks {
                try await activate(hooks)
                for hook in hooks.onPrompt { try await hook.action() }
            }
            for _ in 0..<ToolLoop.maximumRounds {
                var request = LanguageModelExecutorGenerationRequest(
                    transcript: Transcript(entries: setup.base + newEntries), enabledTools: definitions, schema: schema,
                    generationOptions: options,
                    contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt, reasoningLevel: reasoningLevel),
                    metadata: requestMetadata)
                request.allowsToolCalls = loop.allowsToolCalls
                let before = usage
                let reply = try await generate(request, model: setup.model) { text, round in onText(text, before + round) }
                usage.add(reply.usage)
                // The round's reasoning is an entry of its own, before its calls or response.
                if !reply.reasoning.isEmpty || reply.reasoningSignature != nil {
                    newEntries.append(.reasoning(.init(
                        segments: [.text(.init(content: reply.reasoning))], signature: reply.reasoningSignature)))
                }
                if !reply.reasoning.isEmpty, let hooks {
                    for hook in hooks.onReasoning { try await hook.action() }
                }
                if !reply.toolCalls.isEmpty {
                    let calls = try Self.transcriptCalls(reply.toolCalls)
                    guard loop.admit(calls) else { continue }
                    newEntries.append(.toolCalls(.init(calls)))
                    if let hooks {
                        for call in calls { for hook in hooks.onToolCall { try await hook.action(call) } }
                    }
                    let outputs = try await runTools(calls, tools: setup.tools)
                    newEntries += outputs
                    if let hooks {
                        for _ in outputs { for hook in hooks.onToolOutput { try await hook.action() } }
                    }
                    continue
                }
                let (entry, structure) = try response(
                    reply.text, schema: schema, schemaName: schemaName, metadata: reply.metadata, guardrails: setup.guardrails)
                newEntries.append(entry)
                try commit(newEntries, usage: usage, for: ticket, instructions: setup.instructions)
                committed = true
                if let hooks {
                    for hook in hooks.onResponse { try await hook.action() }
                }
                return Outcome(text: reply.text, structure: structure, entries: newEntries, usage: usage, reasoning: reply.reasoning)
            }
            throw GenerationError.decodingFailure(.init(
                debugDescription: "the model kept calling tools for \(ToolLoop.maximumRounds) rounds without answering"))
        } catch {
            let policy = hooks?.transcriptErrorHandlingPolicy ?? state.withLock { $0.transcriptErrorHandlingPolicy }
            if !committed, policy == .preserveTranscript {
                // What the request added so far stays (an abandoned request's commit is refused).
                try? commit(newEntries, usage: .zero, for: ticket, instructions: setup.instructions)
            }
            throw error
        }
    }

    /// Runs the activation hooks when `resolved` is another profile than the previous
    /// request's: the previous one's `onDeactivate`, then this one's `onActivate`.
    private func activate(_ resolved: ResolvedProfile) async throws {
        let previous = state.withLock { s in
            defer { s.activeProfile = (resolved.identity, resolved.onDeactivate) }
            return s.activeProfile
        }
        guard previous?.identity != resolved.identity else { return }
        for hook in previous?.onDeactivate ?? [] { await hook.action() }
        for hook in resolved.onActivate { await hook.action() }
    }

    /// The checks a request passes before the model runs: the guardrails and languages on the
    /// prompt, the schema's resolution, and the model's capabilities for a schema, tools, a
    /// reasoning level and images.
    private func check(
        prompt: Prompt, schema: GenerationSchema?, tools: [Transcript.ToolDefinition], reasoningLevel: ContextOptions.ReasoningLevel? = nil,
        model: any LanguageModel, guardrails: SystemLanguageModel.Guardrails
    ) throws {
        guard guardrails.check(prompt.text) else {
            throw LanguageModelError.guardrailViolation(.init(debugDescription: "the prompt was rejected by the session's guardrails"))
        }
        if let model = model as? SystemLanguageModel, let language = LanguageDetection.unsupportedLanguage(of: prompt.text, supported: model.supportedLanguages) {
            throw LanguageModelError.unsupportedLanguageOrLocale(.init(
                debugDescription: "the prompt appears to be in \(language), which the model does not list in general.languages"))
        }
        if let schema {
            do { _ = try schema.jsonSchemaString() } catch {
                throw LanguageModelError.unsupportedGenerationGuide(.init(debugDescription: "the schema cannot be resolved: \(error)"))
            }
        }
        let capabilities = model.capabilities
        if schema != nil && !capabilities.contains(.guidedGeneration) {
            throw LanguageModelError.unsupportedCapability(.init(
                capability: .guidedGeneration, debugDescription: "the request has a schema; the model does not declare guided generation"))
        }
        if !tools.isEmpty && !capabilities.contains(.toolCalling) {
            throw LanguageModelError.unsupportedCapability(.init(
                capability: .toolCalling, debugDescription: "the session has tools; the model does not declare tool calling"))
        }
        if prompt.hasAttachments && !capabilities.contains(.vision) {
            throw LanguageModelError.unsupportedCapability(.init(
                capability: .vision, debugDescription: "the prompt has an image attachment; the model does not declare vision"))
        }
        if let reasoningLevel, !capabilities.contains(.reasoning) {
            throw LanguageModelError.unsupportedCapability(.init(
                capability: .reasoning,
                debugDescription: "the request asks for reasoning level \(reasoningLevel); the model does not declare reasoning"))
        }
    }

    /// The tools the transcript's instructions define.
    static func toolDefinitions(in transcript: Transcript) -> [Transcript.ToolDefinition] {
        transcript.flatMap { entry -> [Transcript.ToolDefinition] in
            guard case .instructions(let e) = entry else { return [] }
            return e.toolDefinitions
        }
    }

    /// A round's calls as transcript calls, their arguments parsed.
    private static func transcriptCalls(_ calls: [(id: String, name: String, arguments: String)]) throws -> [Transcript.ToolCall] {
        try calls.map { call in
            guard let arguments = try? GeneratedContent(json: call.arguments) else {
                throw GenerationError.decodingFailure(.init(
                    debugDescription: "the arguments of the call to '\(call.name)' are not JSON: \(call.arguments)"))
            }
            return Transcript.ToolCall(id: call.id, toolName: call.name, arguments: arguments)
        }
    }

    /// The response entry of a reply that answers, after the guardrails; a structured reply's
    /// value parsed once, here.
    private func response(
        _ text: String, schema: GenerationSchema?, schemaName: String?, metadata: [String: GeneratedContent],
        guardrails: SystemLanguageModel.Guardrails
    ) throws -> (Transcript.Entry, GeneratedContent?) {
        guard guardrails.check(text) else {
            throw LanguageModelError.guardrailViolation(.init(debugDescription: "the response was rejected by the session's guardrails"))
        }
        let structure = try schema.map { _ in try Self.decode(text) }
        let segment: Transcript.Segment = structure.map { .structure(.init(schemaName: schemaName ?? "schema", content: $0)) }
            ?? .text(.init(content: text))
        var entry = Transcript.Response(segments: [segment])
        entry.metadata = metadata
        return (.response(entry), structure)
    }

    /// The calls a request has answered so far: a model that repeats one is looping, and may
    /// not call in its next round, so it answers from the outputs it has.
    struct ToolLoop {
        /// Rounds of calls a request may take before it must answer.
        static let maximumRounds = 16
        private var answered: Set<String> = []
        /// Whether the next round may call tools.
        private(set) var allowsToolCalls = true

        /// Whether `calls` are to be run: `false` when every one was answered already (the next
        /// round then may not call).
        mutating func admit(_ calls: [Transcript.ToolCall]) -> Bool {
            let keys = calls.map { $0.toolName + "\u{0}" + $0.arguments.jsonString }
            if keys.allSatisfy(answered.contains) {
                allowsToolCalls = false
                return false
            }
            answered.formUnion(keys)
            return true
        }
    }

    /// Runs the calls concurrently; outputs come back in call order.
    private func runTools(_ calls: [Transcript.ToolCall], tools: [any Tool]) async throws -> [Transcript.Entry] {
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
