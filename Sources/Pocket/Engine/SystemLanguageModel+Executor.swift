import Foundation
import Synchronization

extension SystemLanguageModel {
    /// Runs a GGUF model for one session: Pocket's ``LanguageModelExecutor``.
    ///
    /// The executor keeps a transformer whose KV cache holds the session's conversation: each
    /// response evaluates only the tokens after the longest prefix the cache already has, so a
    /// follow-up turn prefills only its new entries. Inside it stay the chat template's
    /// rendering of the transcript, grammar-constrained sampling for schemas and tool
    /// arguments, the template's native tool-call format, and the repetition penalties.
    ///
    /// It streams into the channel:
    /// - for a model whose chat template has a thinking section (Qwen3's `<think>…</think>`), the
    ///   reasoning as `.reasoning(action: .appendText(…))` events, never as response text;
    /// - the answer's text as `appendText` actions;
    /// - a tool call as one `toolCall(id:name:action: .appendArguments(json))` action per call
    ///   (the arguments whole, as a JSON object), nothing else;
    /// - the token counts as `updateUsage`, and Pocket's timings as `updateMetadata` with
    ///   ``timeToFirstTokenKey`` and ``tokensPerSecondKey`` (seconds and tokens per second,
    ///   as `Double`); the output's `reasoningTokenCount` is the thinking section's tokens, and
    ///   the usage's metadata carries prompt lookup's counts under ``draftedTokensKey`` and
    ///   ``acceptedDraftTokensKey`` (as `Int`).
    public final class Executor: LanguageModelExecutor, Sendable {
        /// What an executor is made from.
        public struct Configuration: Hashable, Sendable {
            /// The model file.
            public var url: URL
            /// The context window, in tokens.
            public var contextSize: Int

            /// Creates a configuration.
            public init(url: URL, contextSize: Int) {
                self.url = url
                self.contextSize = contextSize
            }
        }

        /// The metadata key of the time from the request to the first token, in seconds (a Pocket addition).
        public static let timeToFirstTokenKey = "timeToFirstToken"
        /// The metadata key of the generated tokens per second after the first (a Pocket addition).
        public static let tokensPerSecondKey = "tokensPerSecond"
        /// The metadata key of the tokens prompt lookup drafted (a Pocket addition; see
        /// ``SystemLanguageModel/DecodingShortcuts``).
        public static let draftedTokensKey = "draftedTokens"
        /// The metadata key of the drafted tokens the model then chose (a Pocket addition).
        public static let acceptedDraftTokensKey = "acceptedDraftTokens"

        /// The configuration.
        public let configuration: Configuration
        /// The conversation's transformer, made on first use; held for the whole of a call, so
        /// calls never overlap.
        private let context = Mutex<TransformerContext?>(nil)

        /// Creates an executor; the transformer is made when it is first needed.
        public init(configuration: Configuration) throws {
            self.configuration = configuration
        }

        /// Evaluates `transcript` (instructions, tools, a prompt prefix) into the cache.
        public func prewarm(model: SystemLanguageModel, transcript: Transcript) {
            let request = RenderedRequest(
                messages: RenderedRequest.messages(from: transcript), tools: RenderedRequest.toolDefinitions(in: transcript))
            try? withContext(model) { try $0.prefill(request) }
        }

        /// Generates the response to `request` on the calling thread.
        ///
        /// - Throws: ``LanguageModelError/contextSizeExceeded(_:)`` when the transcript or the
        ///   response does not fit the context window; ``LanguageModelSession/GenerationError/decodingFailure(_:)``
        ///   when a structured value or tool call is cut off; ``LanguageModelSession/GenerationError/unsupportedGuide(_:)``
        ///   when the schema cannot be enforced; `CancellationError` (checked before every token).
        public func respond(
            to request: LanguageModelExecutorGenerationRequest, model: SystemLanguageModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            try Task.checkCancellation()
            let rendered = try RenderedRequest(request)
            let contextSize = configuration.contextSize
            let reply: RenderedReply = try withContext(model) { context in
                let needed = context.tokenCount(of: rendered)
                guard needed < contextSize else {
                    throw LanguageModelError.contextSizeExceeded(.init(
                        contextSize: contextSize, tokenCount: needed,
                        debugDescription: "the request needs \(needed) tokens before the response; the context size is \(contextSize)"))
                }
                do {
                    return try context.generate(
                        rendered,
                        onText: { piece, tokens in channel.emit(.response(action: .appendText(piece, tokenCount: tokens))) },
                        onReasoning: { piece, tokens in channel.emit(.reasoning(action: .appendText(piece, tokenCount: tokens))) })
                } catch TransformerContextError.contextFull(let needed, let capacity) {
                    throw LanguageModelError.contextSizeExceeded(.init(
                        contextSize: capacity, tokenCount: needed,
                        debugDescription: "the response ran into the context window (\(needed) of \(capacity) tokens)"))
                } catch TransformerContextError.decodingFailure(let detail) {
                    throw LanguageModelSession.GenerationError.decodingFailure(.init(debugDescription: detail))
                }
            }
            if reply.isToolCall {
                for call in try Self.toolCalls(in: reply.text) {
                    channel.emit(.toolCalls(action: .toolCall(
                        id: UUID().uuidString, name: call.name, action: .appendArguments(call.arguments))))
                }
            }
            let usage = reply.usage
            let seconds = usage.timeToFirstToken.seconds
            channel.emit(.response(action: .updateUsage(
                input: .init(totalTokenCount: usage.inputTokens + usage.cachedTokens, cachedTokenCount: usage.cachedTokens),
                output: .init(totalTokenCount: usage.outputTokens, reasoningTokenCount: reply.reasoningTokens),
                metadata: [Self.draftedTokensKey: usage.draftedTokens, Self.acceptedDraftTokensKey: usage.acceptedDraftTokens])))
            channel.emit(.response(action: .updateMetadata([
                Self.timeToFirstTokenKey: seconds, Self.tokensPerSecondKey: usage.tokensPerSecond,
            ])))
        }

        /// Runs `body` with the conversation's transformer, made on first use.
        private func withContext<R: Sendable>(_ model: SystemLanguageModel, _ body: (TransformerContext) throws -> R) throws -> R {
            try context.withLock { slot in
                let context = try slot ?? model.makeTransformerContext()
                slot = context
                return try body(context)
            }
        }

        /// The calls of a tool-call reply (one call object, or an array of them) as names and
        /// arguments JSON text; the arguments are `"arguments"` (Hermes, Pocket) or `"parameters"`
        /// (Llama 3.1).
        static func toolCalls(in json: String) throws -> [(name: String, arguments: String)] {
            guard let content = try? GeneratedContent(json: json) else {
                throw LanguageModelSession.GenerationError.decodingFailure(.init(debugDescription: "the tool call is not JSON: \(json)"))
            }
            let items: [GeneratedContent]
            switch content.kind {
            case .array(let array): items = array
            case .structure: items = [content]
            default:
                throw LanguageModelSession.GenerationError.decodingFailure(.init(
                    debugDescription: "the tool call is not a JSON object or array: \(json)"))
            }
            return try items.map { item in
                guard case .structure(let properties, _) = item.kind,
                      case .string(let name)? = properties["name"]?.kind,
                      let arguments = properties["arguments"] ?? properties["parameters"] else {
                    throw LanguageModelSession.GenerationError.decodingFailure(.init(
                        debugDescription: "a tool call lacks name or arguments: \(item.jsonString)"))
                }
                return (name, arguments.jsonString)
            }
        }
    }
}
