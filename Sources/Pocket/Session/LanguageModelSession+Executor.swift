import Foundation
import Synchronization

// How a session drives its model's executor: it makes the executor once, calls
// `respond(to:model:streamingInto:)` on the session's engine thread, and collects what the
// executor streams into the channel into one reply per round.

extension LanguageModelSession {
    /// A model's executor with the model, behind closures so the session can hold any model.
    struct ExecutorBox: Sendable {
        let respond: @Sendable (LanguageModelExecutorGenerationRequest, LanguageModelExecutorGenerationChannel) async throws -> Void
        let prewarm: @Sendable (Transcript) -> Void

        /// Creates `model`'s executor from its configuration.
        ///
        /// - Throws: What the executor's `init(configuration:)` throws.
        static func make<Model: LanguageModel>(for model: Model) throws -> ExecutorBox {
            let executor = try Model.Executor(configuration: model.executorConfiguration)
            return ExecutorBox(
                respond: { request, channel in try await executor.respond(to: request, model: model, streamingInto: channel) },
                prewarm: { transcript in executor.prewarm(model: model, transcript: transcript) })
        }
    }

    /// What one round of the executor produced.
    struct Reply {
        /// The response text (the last text segment as replaced, with what was appended).
        var text = ""
        /// The reasoning text, kept apart from the response (never part of its content).
        var reasoning = ""
        /// The reasoning's latest signature, if the executor sent one.
        var reasoningSignature: Data?
        /// The tool calls, in the order they began.
        var toolCalls: [(id: String, name: String, arguments: String)] = []
        /// The token counts the executor reported (`updateUsage`, the last one of any entry)
        /// and Pocket's timings (from `updateMetadata`).
        var reported = Usage.zero
        /// Whether the executor sent `updateUsage`.
        var hasReportedUsage = false
        /// The values of the round's `updateMetadata` events (later ones win): the response
        /// entry's ``Transcript/Response/metadata``.
        var metadata: [String: GeneratedContent] = [:]
        /// Output tokens counted from the fragments streamed so far: a fragment's `tokenCount`,
        /// or one for a non-empty fragment that does not count its tokens.
        var streamedTokens = 0
        /// The part of ``streamedTokens`` (and of signatures) that was reasoning.
        var streamedReasoningTokens = 0

        /// The round's usage: the executor's counts once it reported them, with the streamed
        /// count as a lower bound on the output while it streams.
        var usage: Usage {
            var usage = reported
            usage.output.totalTokenCount = max(usage.output.totalTokenCount, hasReportedUsage ? 0 : streamedTokens)
            if !hasReportedUsage { usage.output.reasoningTokenCount = streamedReasoningTokens }
            return usage
        }

        /// The usage to show while the round streams: the output counted so far never lags
        /// behind the fragments received.
        var streamingUsage: Usage {
            var usage = self.usage
            usage.output.totalTokenCount = max(usage.output.totalTokenCount, streamedTokens)
            return usage
        }

        /// Counts a streamed fragment's tokens.
        private mutating func count(_ content: String, tokenCount: Int, reasoning: Bool) {
            let tokens = tokenCount > 0 ? tokenCount : (content.isEmpty ? 0 : 1)
            streamedTokens += tokens
            if reasoning { streamedReasoningTokens += tokens }
        }

        /// Takes the counts of an `updateUsage` event.
        private mutating func take(_ counts: LanguageModelExecutorGenerationChannel.Usage) {
            reported.input = .init(totalTokenCount: counts.input.totalTokenCount, cachedTokenCount: counts.input.cachedTokenCount)
            reported.output = .init(totalTokenCount: counts.output.totalTokenCount, reasoningTokenCount: counts.output.reasoningTokenCount)
            reported.metadata.merge(counts.metadata) { _, later in later }
            hasReportedUsage = true
        }

        /// Takes Pocket's timings from an `updateMetadata` event.
        private mutating func take(_ metadata: LanguageModelExecutorGenerationChannel.Metadata) {
            for (key, value) in metadata.values {
                if let content = Self.generatedContent(value) { self.metadata[key] = content }
            }
            if let seconds = metadata.values[SystemLanguageModel.Executor.timeToFirstTokenKey] as? Double {
                reported.timeToFirstToken = .nanoseconds(Int64(seconds * 1e9))
            }
            if let rate = metadata.values[SystemLanguageModel.Executor.tokensPerSecondKey] as? Double {
                reported.tokensPerSecond = rate
            }
        }

        /// A metadata value as generated content: through its JSON encoding, or `nil` when it
        /// has none.
        static func generatedContent(_ value: any Sendable & Codable & Equatable) -> GeneratedContent? {
            guard let data = try? JSONEncoder().encode(value) else { return nil }
            return try? GeneratedContent(json: String(decoding: data, as: UTF8.self))
        }

        /// Applies one event. Returns whether the response text or the usage changed (what a
        /// stream's snapshot shows).
        mutating func apply(_ event: LanguageModelExecutorGenerationChannel.Event) -> Bool {
            switch event {
            case .response(_, .appendText(let fragment)):
                text += fragment.content
                count(fragment.content, tokenCount: fragment.tokenCount, reasoning: false)
                return !fragment.content.isEmpty
            case .response(_, .replaceTextSegment(let replacement)):
                text = replacement.content
                return true
            case .response(_, .updateUsage(let counts)), .toolCalls(_, .updateUsage(let counts)), .reasoning(_, .updateUsage(let counts)):
                take(counts)
            case .response(_, .updateMetadata(let metadata)), .toolCalls(_, .updateMetadata(let metadata)),
                .reasoning(_, .updateMetadata(let metadata)):
                take(metadata)
            case .reasoning(_, .appendText(let fragment)):
                reasoning += fragment.content
                count(fragment.content, tokenCount: fragment.tokenCount, reasoning: true)
            case .reasoning(_, .replaceTextSegment(let replacement)):
                reasoning = replacement.content
            case .reasoning(_, .updateSignature(let signature)):
                reasoningSignature = signature.signature
                streamedTokens += signature.tokenCount
                streamedReasoningTokens += signature.tokenCount
            case .toolCalls(_, .toolCall(let call)):
                guard case .appendArguments(let fragment) = call.action else { break }
                count(fragment.content, tokenCount: fragment.tokenCount, reasoning: false)
                if let index = toolCalls.firstIndex(where: { $0.id == call.id }) {
                    toolCalls[index].arguments += fragment.content
                } else {
                    toolCalls.append((call.id, call.name, fragment.content))
                }
            case .toolCalls(_, .removeToolCall(let id)):
                toolCalls.removeAll { $0.id == id }
            }
            return false
        }
    }

    /// Runs one round of the model's executor on the session's engine thread, in the calling task.
    ///
    /// - Parameter onText: Receives the response text accumulated so far, each time it changes,
    ///   with the round's usage so far.
    /// - Throws: The executor's errors, as they are (Apple's 27 errors, such as
    ///   ``LanguageModelError/contextSizeExceeded(_:)``).
    func generate(
        _ request: LanguageModelExecutorGenerationRequest, model: any LanguageModel, onText: @escaping (String, Usage) -> Void
    ) async throws -> Reply {
        let collector = ReplyCollector()
        // The channel calls back during `respond`, which the session awaits: the callback never
        // outlives the request.
        let callback = Unchecked(value: onText)
        let channel = LanguageModelExecutorGenerationChannel { event in
            guard let (text, usage) = collector.reply.withLock({ $0.apply(event) ? ($0.text, $0.streamingUsage) : nil }) else { return }
            callback.value(text, usage)
        }
        try await withTaskExecutorPreference(engine) {
            try Task.checkCancellation()
            try await self.executor(for: model).respond(request, channel)
        }
        return collector.reply.withLock { $0 }
    }

    /// Holds the reply a channel's events build.
    final class ReplyCollector: Sendable {
        let reply = Mutex(Reply())
    }

    /// Identifies a model's executor: the model's type and its executor configuration (two
    /// models that would make equal executors share one).
    struct ExecutorKey: Hashable {
        let modelType: ObjectIdentifier
        let configuration: AnyHashable

        init(_ model: some LanguageModel) {
            modelType = ObjectIdentifier(type(of: model))
            configuration = AnyHashable(model.executorConfiguration)
        }
    }

    /// The session's executor for its own ``model``. Called only on `engine`'s queue.
    func executor() throws -> ExecutorBox {
        try executor(for: model)
    }

    /// The executor of `model`, made from its configuration on first use and kept for the
    /// session (with its cache), so that a profile that switches models back and forth
    /// continues each model's cache. Called only on `engine`'s queue.
    func executor(for model: any LanguageModel) throws -> ExecutorBox {
        let key = ExecutorKey(model)
        if let box = executorBoxes[key] { return box }
        let made = try ExecutorBox.make(for: model)
        executorBoxes[key] = made
        return made
    }
}
