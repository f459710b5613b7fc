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
        /// The tool calls, in the order they began.
        var toolCalls: [(id: String, name: String, arguments: String)] = []
        /// Token counts (from `updateUsage`) and timings (from `updateMetadata`).
        var usage = Usage()

        /// Applies one event. Returns whether the text changed.
        mutating func apply(_ event: LanguageModelExecutorGenerationChannel.Event) -> Bool {
            switch event {
            case .response(_, .appendText(let fragment)):
                text += fragment.content
                return !fragment.content.isEmpty
            case .response(_, .replaceTextSegment(let replacement)):
                text = replacement.content
                return true
            case .response(_, .updateUsage(let counts)), .toolCalls(_, .updateUsage(let counts)):
                usage.inputTokens = max(0, counts.input.totalTokenCount - counts.input.cachedTokenCount)
                usage.cachedTokens = counts.input.cachedTokenCount
                usage.outputTokens = counts.output.totalTokenCount
            case .response(_, .updateMetadata(let metadata)), .toolCalls(_, .updateMetadata(let metadata)):
                if let seconds = metadata.values[SystemLanguageModel.Executor.timeToFirstTokenKey] as? Double {
                    usage.timeToFirstToken = .nanoseconds(Int64(seconds * 1e9))
                }
                if let rate = metadata.values[SystemLanguageModel.Executor.tokensPerSecondKey] as? Double {
                    usage.tokensPerSecond = rate
                }
            case .toolCalls(_, .toolCall(let call)):
                guard case .appendArguments(let fragment) = call.action else { break }
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
    /// - Parameter onText: Receives the response text accumulated so far, each time it changes.
    /// - Throws: The executor's errors; its ``LanguageModelError/contextSizeExceeded(_:)`` as
    ///   ``GenerationError/exceededContextWindowSize(_:)``, the error sessions have always reported.
    func generate(_ request: LanguageModelExecutorGenerationRequest, onText: @escaping (String) -> Void) async throws -> Reply {
        let collector = ReplyCollector()
        // The channel calls back during `respond`, which the session awaits: the callback never
        // outlives the request.
        let callback = Unchecked(value: onText)
        let channel = LanguageModelExecutorGenerationChannel { event in
            guard let text = collector.reply.withLock({ $0.apply(event) ? $0.text : nil }) else { return }
            callback.value(text)
        }
        do {
            try await withTaskExecutorPreference(engine) {
                try Task.checkCancellation()
                try await self.executor().respond(request, channel)
            }
        } catch LanguageModelError.contextSizeExceeded(let info) {
            throw GenerationError.exceededContextWindowSize(.init(debugDescription: info.debugDescription))
        }
        return collector.reply.withLock { $0 }
    }

    /// Holds the reply a channel's events build.
    final class ReplyCollector: Sendable {
        let reply = Mutex(Reply())
    }

    /// The session's executor, made from the model's configuration on first use. Called only on
    /// `engine`'s queue.
    func executor() throws -> ExecutorBox {
        if let executorBox { return executorBox }
        let made = try ExecutorBox.make(for: model)
        executorBox = made
        return made
    }
}
