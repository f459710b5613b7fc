import Foundation
import Synchronization

extension LanguageModelSession {
    /// A response delivered as it is generated: a sequence of snapshots of the whole content so far.
    ///
    /// For text, each snapshot's content is the text so far. For structured output it is the
    /// partially generated value, parsed from the incomplete JSON: properties appear as they
    /// are generated, and those already filled only grow.
    public struct ResponseStream<Content: Generable>: AsyncSequence, @unchecked Sendable {
        /// A snapshot of the response so far.
        public struct Snapshot: @unchecked Sendable {
            /// The content so far.
            public var content: Content.PartiallyGenerated
            /// The content so far as generated content.
            public var rawContent: GeneratedContent
            /// How many tokens the response has taken so far. While the model streams, the
            /// output count is the executor's count of the fragments received (Pocket's engine
            /// counts one per fragment, a lower bound); the input counts appear when the
            /// executor reports them (Pocket's engine: when the round ends). The complete
            /// figures are the response's ``Response/usage``.
            public var usage: Usage
        }

        private let snapshots: AsyncThrowingStream<Snapshot, any Swift.Error>
        private let task: Task<Unchecked<Response<Content>>, any Swift.Error>
        private let session: LanguageModelSession
        private let ticket: LanguageModelSession.RequestTicket
        /// Set when the response is complete, before the stream finishes: a stream that ends
        /// without it was cancelled.
        private let completed: Completion

        init(
            session: LanguageModelSession, prompt: Prompt, schema: GenerationSchema?, includeSchemaInPrompt: Bool, options: GenerationOptions,
            contextOptions: ContextOptions = ContextOptions(), metadata: [String: any ConvertibleToGeneratedContent] = [:]
        ) {
            let (stream, continuation) = AsyncThrowingStream<Snapshot, any Swift.Error>.makeStream()
            let metadata = metadata.mapValues(\.generatedContent)
            snapshots = stream
            self.session = session
            let ticket = session.makeTicket()
            self.ticket = ticket
            let completed = Completion()
            self.completed = completed
            let structured = schema != nil
            task = Task {
                do {
                    let outcome = try await session.run(
                        prompt: prompt, schema: schema, schemaName: String(describing: Content.self),
                        includeSchemaInPrompt: includeSchemaInPrompt, options: options, contextOptions: contextOptions,
                        metadata: metadata, ticket: ticket
                    ) { text, usage in
                        let raw: GeneratedContent
                        if structured {
                            guard let partial = try? GeneratedContent(json: text) else { return }
                            raw = partial
                        } else {
                            raw = GeneratedContent(kind: .string(text))
                        }
                        guard let content = try? Content.PartiallyGenerated(raw) else { return }
                        continuation.yield(Snapshot(content: content, rawContent: raw, usage: usage))
                    }
                    let raw = structured ? try outcome.parsedStructure() : GeneratedContent(kind: .string(outcome.text))
                    let content: Content
                    do { content = try Content(raw) } catch {
                        throw GenerationError.decodingFailure(.init(debugDescription: "the response does not convert to \(Content.self): \(error)"))
                    }
                    if structured { continuation.yield(Snapshot(content: content.asPartiallyGenerated(), rawContent: raw, usage: outcome.usage)) }
                    completed.flag.store(true, ordering: .releasing)
                    continuation.finish()
                    return Unchecked(value: Response(content: content, rawContent: raw, transcriptEntries: outcome.entries[...], usage: outcome.usage))
                } catch {
                    continuation.finish(throwing: error)
                    throw error
                }
            }
            let task = self.task
            // The consuming task was cancelled: stop generating and free the session now.
            continuation.onTermination = { termination in
                if case .cancelled = termination {
                    task.cancel()
                    session.abandon(ticket)
                }
            }
        }

        /// Whether a response completed (shared by the generation task and the iterators).
        final class Completion: Sendable {
            let flag = Atomic(false)
        }

        /// Iterates the snapshots. An iterator dropped before the end (a `break` out of the
        /// loop) cancels the generation and frees the session at once: a request made right
        /// after the loop is accepted.
        public struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<Snapshot, any Swift.Error>.AsyncIterator
            let watch: Watch

            /// The next snapshot, or `nil` when the response is complete.
            ///
            /// - Throws: The request's error; `CancellationError` when the consuming task was
            ///   cancelled before the response was complete (so a cut-off answer is never
            ///   mistaken for a whole one).
            public mutating func next() async throws -> Snapshot? {
                do {
                    guard let snapshot = try await base.next() else {
                        watch.finished.withLock { $0 = true }
                        guard watch.completed.flag.load(ordering: .acquiring) else { throw CancellationError() }
                        return nil
                    }
                    return snapshot
                } catch {
                    watch.finished.withLock { $0 = true }
                    throw error
                }
            }
        }

        /// Cancels the generation and frees the session when the last copy of an unfinished
        /// iterator goes away.
        final class Watch: Sendable {
            let task: Task<Unchecked<Response<Content>>, any Swift.Error>
            let session: LanguageModelSession
            let ticket: LanguageModelSession.RequestTicket
            let completed: Completion
            let finished = Mutex(false)

            init(task: Task<Unchecked<Response<Content>>, any Swift.Error>, session: LanguageModelSession,
                 ticket: LanguageModelSession.RequestTicket, completed: Completion) {
                self.task = task
                self.session = session
                self.ticket = ticket
                self.completed = completed
            }

            deinit {
                if !finished.withLock({ $0 }) {
                    task.cancel()
                    session.abandon(ticket)
                }
            }
        }

        /// Creates an iterator.
        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: snapshots.makeAsyncIterator(), watch: Watch(task: task, session: session, ticket: ticket, completed: completed))
        }

        /// Waits for the whole response.
        public func collect() async throws -> Response<Content> {
            let task = self.task
            return try await withTaskCancellationHandler {
                try await task.value.value
            } onCancel: {
                task.cancel()
            }
        }
    }

    /// Carries a value whose type is not `Sendable` out of the generation task; the value is
    /// created there and only read afterwards.
    struct Unchecked<Value>: @unchecked Sendable {
        let value: Value
    }

    // MARK: Text

    /// Streams the text response to a prompt.
    public func streamResponse(to prompt: Prompt, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
        ResponseStream(session: self, prompt: prompt, schema: nil, includeSchemaInPrompt: false, options: options)
    }

    /// Streams the text response to a prompt given as text.
    public func streamResponse(to prompt: String, options: GenerationOptions = GenerationOptions()) -> ResponseStream<String> {
        streamResponse(to: Prompt(prompt), options: options)
    }

    /// Streams the text response to a prompt built by a closure.
    public func streamResponse(
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<String> {
        streamResponse(to: try prompt(), options: options)
    }

    // MARK: Schema

    /// Streams content that follows `schema`.
    public func streamResponse(
        to prompt: Prompt, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<GeneratedContent> {
        ResponseStream(session: self, prompt: prompt, schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams content that follows `schema`, for a prompt given as text.
    public func streamResponse(
        to prompt: String, schema: GenerationSchema, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<GeneratedContent> {
        streamResponse(to: Prompt(prompt), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams content that follows `schema`, for a prompt built by a closure.
    public func streamResponse(
        schema: GenerationSchema, includeSchemaInPrompt: Bool = true, options: GenerationOptions = GenerationOptions(),
        @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<GeneratedContent> {
        streamResponse(to: try prompt(), schema: schema, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    // MARK: Generable

    /// Streams a value of `type` as partially generated snapshots.
    public func streamResponse<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<Content> {
        ResponseStream(session: self, prompt: prompt, schema: type == String.self ? nil : type.generationSchema,
                       includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams a value of `type`, for a prompt given as text.
    public func streamResponse<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions()
    ) -> ResponseStream<Content> {
        streamResponse(to: Prompt(prompt), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    /// Streams a value of `type`, for a prompt built by a closure.
    public func streamResponse<Content: Generable>(
        generating type: Content.Type = Content.self, includeSchemaInPrompt: Bool = true,
        options: GenerationOptions = GenerationOptions(), @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<Content> {
        streamResponse(to: try prompt(), generating: type, includeSchemaInPrompt: includeSchemaInPrompt, options: options)
    }

    // MARK: With context options and metadata

    /// Streams the text response to a prompt, with context options and metadata.
    ///
    /// ```swift
    /// for try await snapshot in session.streamResponse(to: "Tell me a story.", contextOptions: ContextOptions()) {
    ///     print(snapshot.content, snapshot.usage.output.totalTokenCount)
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - prompt: The prompt.
    ///   - options: Sampling and length settings.
    ///   - contextOptions: How the model is prompted; a reasoning level needs a model with the
    ///     ``LanguageModelCapabilities/Capability/reasoning`` capability (the stream throws
    ///     ``LanguageModelError/unsupportedCapability(_:)`` otherwise).
    ///   - metadata: Values attached to the request; the executor receives each as its JSON text.
    public func streamResponse(
        to prompt: Prompt, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> ResponseStream<String> {
        ResponseStream(
            session: self, prompt: prompt, schema: nil, includeSchemaInPrompt: false, options: options,
            contextOptions: contextOptions, metadata: metadata)
    }

    /// Streams the text response to a prompt given as text, with context options and metadata.
    public func streamResponse(
        to prompt: String, options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> ResponseStream<String> {
        streamResponse(to: Prompt(prompt), options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// Streams the text response to a prompt built by a closure, with context options and metadata.
    public func streamResponse(
        options: GenerationOptions = GenerationOptions(), contextOptions: ContextOptions = ContextOptions(),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<String> {
        streamResponse(to: try prompt(), options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// Streams content that follows `schema`, with context options and metadata.
    public func streamResponse(
        to prompt: Prompt, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> ResponseStream<GeneratedContent> {
        ResponseStream(
            session: self, prompt: prompt, schema: schema, includeSchemaInPrompt: Self.resolvedIncludeSchema(contextOptions, fallback: true),
            options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// Streams content that follows `schema`, for a prompt given as text, with context options
    /// and metadata.
    public func streamResponse(
        to prompt: String, schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> ResponseStream<GeneratedContent> {
        streamResponse(to: Prompt(prompt), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// Streams content that follows `schema`, for a prompt built by a closure, with context
    /// options and metadata.
    public func streamResponse(
        schema: GenerationSchema, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<GeneratedContent> {
        streamResponse(to: try prompt(), schema: schema, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// Streams a value of `type` as partially generated snapshots, with context options and metadata.
    public func streamResponse<Content: Generable>(
        to prompt: Prompt, generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> ResponseStream<Content> {
        ResponseStream(
            session: self, prompt: prompt, schema: type == String.self ? nil : type.generationSchema,
            includeSchemaInPrompt: Self.resolvedIncludeSchema(contextOptions, fallback: true), options: options,
            contextOptions: contextOptions, metadata: metadata)
    }

    /// Streams a value of `type`, for a prompt given as text, with context options and metadata.
    public func streamResponse<Content: Generable>(
        to prompt: String, generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> ResponseStream<Content> {
        streamResponse(to: Prompt(prompt), generating: type, options: options, contextOptions: contextOptions, metadata: metadata)
    }

    /// Streams a value of `type`, for a prompt built by a closure, with context options and metadata.
    public func streamResponse<Content: Generable>(
        generating type: Content.Type = Content.self, options: GenerationOptions = GenerationOptions(),
        contextOptions: ContextOptions = ContextOptions(includeSchemaInPrompt: true),
        metadata: [String: any ConvertibleToGeneratedContent] = [:], @PromptBuilder prompt: () throws -> Prompt
    ) rethrows -> ResponseStream<Content> {
        streamResponse(to: try prompt(), generating: type, options: options, contextOptions: contextOptions, metadata: metadata)
    }
}
