/// The part of a model that generates responses, as in Apple's FoundationModels (iOS/macOS 27).
///
/// A ``LanguageModelSession`` creates one executor from its model's
/// ``LanguageModel/executorConfiguration`` when it first needs it, keeps it for the session's
/// lifetime (so an executor may keep per-conversation state, such as a KV cache), and calls
/// ``respond(to:model:streamingInto:)`` once per round: after each round of tool calls the
/// session runs the tools and calls again with the outputs in the transcript.
///
/// Pocket runs every executor call of a session on the session's own thread, outside Swift's
/// cooperative pool, one call at a time; a call may block that thread for as long as the
/// work takes, and sees the request's task cancellation.
public protocol LanguageModelExecutor: Sendable {
    /// What an executor is created from.
    associatedtype Configuration: Hashable & Sendable
    /// The model this executor runs.
    associatedtype Model: LanguageModel

    /// Creates an executor.
    ///
    /// - Throws: An error when the executor cannot be made (the request that needed it fails
    ///   with that error).
    init(configuration: Configuration) throws

    /// Prepares for a conversation that starts with `transcript` (for example, evaluates it into
    /// a cache), so a later response starts sooner. Called by
    /// ``LanguageModelSession/prewarm(promptPrefix:)``; the default does nothing.
    func prewarm(model: Model, transcript: Transcript)

    /// Generates the next response to `request.transcript`, streaming it into `channel`.
    ///
    /// The response ends when this method returns, or fails with what it throws. Text goes in
    /// as ``LanguageModelExecutorGenerationChannel/Response/Action/appendText(_:segmentID:tokenCount:)``
    /// actions; a tool call as a ``LanguageModelExecutorGenerationChannel/ToolCalls/Action/toolCall(id:name:action:)``
    /// action, after which the session runs the tools and asks again.
    ///
    /// - Parameters:
    ///   - request: The transcript so far (its last entries are the prompt, or tool outputs),
    ///     tools, schema and options.
    ///   - model: The model.
    ///   - channel: Where the response goes.
    /// - Throws: ``LanguageModelError`` for the failures it names; `CancellationError` when
    ///   the task is cancelled.
    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: Model,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws
}

extension LanguageModelExecutor {
    /// Does nothing.
    public func prewarm(model: Model, transcript: Transcript) {}
}
