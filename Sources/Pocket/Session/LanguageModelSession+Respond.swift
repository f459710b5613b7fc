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
        /// Token counts and timings (a Pocket addition).
        public let usage: Usage
    }

    // MARK: Text

    /// Responds to a prompt with text.
    @discardableResult
    public func respond(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        let outcome = try await run(prompt: prompt, schema: nil, schemaName: nil, includeSchemaInPrompt: false, options: options) { _ in }
        return Response(content: outcome.text, rawContent: GeneratedContent(kind: .string(outcome.text)),
                        transcriptEntries: outcome.entries[...], usage: outcome.usage)
    }

    /// Responds to a prompt given as text.
    @discardableResult
    public func respond(to prompt: String, options: GenerationOptions = GenerationOptions()) async throws -> Response<String> {
        try await respond(to: Prompt(prompt), options: options)
    }

    /// Responds to a prompt built by a closure.
    @discardableResult
    public func respond(
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<String> {
        try await respond(to: try prompt(), options: options)
    }

    // MARK: Schema

    /// Responds with content that follows `schema`, generated under its grammar.
    @discardableResult
    public func respond(
        to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<GeneratedContent> {
        let outcome = try await run(
            prompt: prompt, schema: schema, schemaName: "schema", includeSchemaInPrompt: includeSchemaInPrompt, options: options
        ) { _ in }
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

    /// Responds with content that follows `schema`, to a prompt built by a closure.
    @discardableResult
    public func respond(
        schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<GeneratedContent> {
        try await respond(to: try prompt(), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    // MARK: Generable

    /// Responds with a value of `type`, generated under the grammar of its schema.
    @discardableResult
    public func respond<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) async throws -> Response<Content> {
        if type == String.self {
            let text = try await respond(to: prompt, options: options)
            return Response(content: text.content as! Content, rawContent: text.rawContent,
                            transcriptEntries: text.transcriptEntries, usage: text.usage)
        }
        let outcome = try await run(
            prompt: prompt, schema: type.generationSchema, schemaName: String(describing: type),
            includeSchemaInPrompt: includeSchemaInPrompt, options: options) { _ in }
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

    /// Responds with a value of `type`, to a prompt built by a closure.
    @discardableResult
    public func respond<Content: Generable>(
        generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) async throws -> Response<Content> {
        try await respond(to: try prompt(), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
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
