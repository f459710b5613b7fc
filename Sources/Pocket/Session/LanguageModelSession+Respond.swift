import Foundation

extension LanguageModelSession {
    /// A response to a request.
    public struct Response<Content> {
        /// The response's content.
        public let content: Content
        /// The response as generated content (text, or the structured value).
        public let rawContent: GeneratedContent
        /// The transcript entries this request added (prompt, tool calls and outputs, response).
        public let transcriptEntries: ArraySlice<Transcript.Entry>
        /// How many tokens the response took, all of its rounds together (with Pocket's cache
        /// figures and timings).
        public let usage: Usage
    }

    /// The schema flag a request uses: the caller's, or `fallback` when it left it `nil`.
    static func resolvedIncludeSchema(_ contextOptions: ContextOptions, fallback: Bool) -> Bool {
        contextOptions.includeSchemaInPrompt ?? fallback
    }

    // MARK: Text

    /// Responds to a prompt with text.
    @discardableResult
    public func respond(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        try await respond(to: prompt, options: options, contextOptions: ContextOptions(), metadata: [:])
    }

    /// Responds to a prompt with text, with context options and metadata.
    ///
    /// ```swift
    /// let response = try await session.respond(
    ///     to: "Why is the sky blue?", contextOptions: ContextOptions(reasoningLevel: .light))
    /// ```
    ///
    /// - Parameters:
    ///   - prompt: The prompt.
    ///   - options: Sampling and length settings.
    ///   - contextOptions: How the model is prompted; a reasoning level needs a model with the
    ///     ``LanguageModelCapabilities/Capability/reasoning`` capability.
    ///   - metadata: Values attached to the request; the executor receives each as its JSON
    ///     text in ``LanguageModelExecutorGenerationRequest/metadata``.
    /// - Throws: ``LanguageModelError/unsupportedCapability(_:)`` for a reasoning level the
    ///   model cannot honour, and the errors of ``respond(to:options:)``.
    @discardableResult
    public func respond(
        to prompt: Prompt, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<String> {
        let outcome = try await run(
            prompt: prompt, schema: nil, schemaName: nil, includeSchemaInPrompt: false, options: options,
            contextOptions: contextOptions, metadata: metadata.mapValues(\.generatedContent)) { _, _ in }
        return Response(content: outcome.text, rawContent: GeneratedContent(kind: .string(outcome.text)),
                        transcriptEntries: outcome.entries[...], usage: outcome.usage)
    }

    /// Responds to a prompt given as text.
    @discardableResult
    public func respond(to prompt: String, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        try await respond(to: Prompt(prompt), options: options)
    }

    /// Responds to a prompt given as text, with context options and metadata.
    @discardableResult
    public func respond(
        to prompt: String, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<String> {
        try await respond(to: Prompt(prompt), options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// Responds to a prompt built by a closure.
    @discardableResult
    public func respond(
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<String> {
        try await respond(to: try prompt(), options: options)
    }

    /// Responds to a prompt built by a closure, with context options and metadata.
    @discardableResult
    public func respond(
        options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<String> {
        try await respond(to: try prompt(), options: options, contextOptions: contextOptions, metadata: metadata)
    }

    // MARK: Schema

    /// Responds with content that follows `schema`, generated under its grammar.
    @discardableResult
    public func respond(
        to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await respond(
            to: prompt, schema: schema, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt))
    }

    /// Responds with content that follows `schema`, with context options and metadata.
    ///
    /// - Parameters:
    ///   - prompt: The prompt.
    ///   - schema: The schema the content follows.
    ///   - options: Sampling and length settings.
    ///   - contextOptions: How the model is prompted (a `nil` schema flag shows the schema).
    ///   - metadata: Values attached to the request.
    @discardableResult
    public func respond(
        to prompt: Prompt, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<GeneratedContent> {
        let outcome = try await run(
            prompt: prompt, schema: schema, schemaName: "schema",
            includeSchemaInPrompt: Self.resolvedIncludeSchema(contextOptions, fallback: true), options: options,
            contextOptions: contextOptions, metadata: metadata.mapValues(\.generatedContent)) { _, _ in }
        let content = try outcome.parsedStructure()
        return Response(content: content, rawContent: content, transcriptEntries: outcome.entries[...], usage: outcome.usage)
    }

    /// Responds with content that follows `schema`, to a prompt given as text.
    @discardableResult
    public func respond(
        to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        try await respond(to: Prompt(prompt), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with content that follows `schema`, to a prompt given as text, with context
    /// options and metadata.
    @discardableResult
    public func respond(
        to prompt: String, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<GeneratedContent> {
        try await respond(to: Prompt(prompt), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// Responds with content that follows `schema`, to a prompt built by a closure.
    @discardableResult
    public func respond(
        schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await respond(to: try prompt(), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with content that follows `schema`, to a prompt built by a closure, with
    /// context options and metadata.
    @discardableResult
    public func respond(
        schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: [String: any ConvertibleToGeneratedContent] = [:],
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await respond(to: try prompt(), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    // MARK: Generable

    /// Responds with a value of `type`, generated under the grammar of its schema.
    @discardableResult
    public func respond<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await respond(
            to: prompt, generating: type, options: options, contextOptions: ContextOptions(includeSchemaInPrompt: includeSchemaInPrompt))
    }

    /// Responds with a value of `type`, with context options and metadata.
    ///
    /// ```swift
    /// let trip = try await session.respond(
    ///     to: "Plan a day in Lisbon.", generating: Itinerary.self,
    ///     contextOptions: ContextOptions(includeSchemaInPrompt: false))
    /// ```
    ///
    /// - Parameters:
    ///   - prompt: The prompt.
    ///   - type: The type of the value.
    ///   - options: Sampling and length settings.
    ///   - contextOptions: How the model is prompted (a `nil` schema flag shows the schema).
    ///   - metadata: Values attached to the request.
    @discardableResult
    public func respond<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<Content> {
        if type == String.self {
            let text = try await respond(to: prompt, options: options, contextOptions: contextOptions, metadata: metadata)
            return Response(content: text.content as! Content, rawContent: text.rawContent,
                            transcriptEntries: text.transcriptEntries, usage: text.usage)
        }
        let outcome = try await run(
            prompt: prompt, schema: type.generationSchema, schemaName: String(describing: type),
            includeSchemaInPrompt: Self.resolvedIncludeSchema(contextOptions, fallback: true), options: options,
            contextOptions: contextOptions, metadata: metadata.mapValues(\.generatedContent)) { _, _ in }
        let raw = try outcome.parsedStructure()
        let content: Content
        do { content = try Content(raw) } catch {
            throw GenerationError.decodingFailure(.init(debugDescription: "the response does not convert to \(type): \(error)"))
        }
        return Response(content: content, rawContent: raw, transcriptEntries: outcome.entries[...], usage: outcome.usage)
    }

    /// Responds with a value of `type`, to a prompt given as text.
    @discardableResult
    public func respond<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        try await respond(to: Prompt(prompt), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with a value of `type`, to a prompt given as text, with context options and metadata.
    @discardableResult
    public func respond<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) async throws -> Response<Content> {
        try await respond(to: Prompt(prompt), generating: type, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// Responds with a value of `type`, to a prompt built by a closure.
    @discardableResult
    public func respond<Content: Generable>(
        generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await respond(to: try prompt(), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Responds with a value of `type`, to a prompt built by a closure, with context options
    /// and metadata.
    @discardableResult
    public func respond<Content: Generable>(
        generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true), metadata: [String: any ConvertibleToGeneratedContent] = [:],
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await respond(to: try prompt(), generating: type, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// A structured response's value from its JSON.
    ///
    /// - Throws: ``GenerationError/decodingFailure(_:)`` when the text is not JSON.
    static func decode(_ json: String) throws -> GeneratedContent {
        do { return try GeneratedContent(json: json) } catch {
            throw GenerationError.decodingFailure(.init(debugDescription: "the response is not valid JSON: \(error)"))
        }
    }
}

extension LanguageModelSession.Outcome {
    /// The structured value ``LanguageModelSession/run`` parsed (a request with a schema always
    /// has one).
    func parsedStructure() throws -> GeneratedContent {
        guard let structure else {
            throw LanguageModelSession.GenerationError.decodingFailure(.init(debugDescription: "the response has no structured value"))
        }
        return structure
    }
}

extension LanguageModelSession.Response: Sendable where Content: Sendable {}
