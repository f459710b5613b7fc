import Foundation

/// A language model a ``LanguageModelSession`` can run on, as in Apple's FoundationModels
/// (iOS/macOS 27).
///
/// A model describes itself (``capabilities``) and says how to make its executor
/// (``executorConfiguration``); the ``Executor`` does the generating. A session creates one
/// executor from the configuration, keeps it for its lifetime, and calls
/// ``LanguageModelExecutor/respond(to:model:streamingInto:)`` for every round of a request.
///
/// ```swift
/// struct EchoModel: LanguageModel {
///     typealias Executor = EchoExecutor
///     var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([]) }
///     var executorConfiguration: EchoExecutor.Configuration { .init() }
/// }
///
/// struct EchoExecutor: LanguageModelExecutor {
///     typealias Model = EchoModel
///     struct Configuration: Hashable, Sendable {}
///     init(configuration: Configuration) throws {}
///     func respond(
///         to request: LanguageModelExecutorGenerationRequest, model: EchoModel,
///         streamingInto channel: LanguageModelExecutorGenerationChannel
///     ) async throws {
///         await channel.send(.response(action: .appendText("Hello")))
///     }
/// }
///
/// let session = LanguageModelSession(model: EchoModel())
/// ```
///
/// ``SystemLanguageModel`` is Pocket's own provider: it runs GGUF models on the CPU.
public protocol LanguageModel: Sendable {
    /// The executor type that generates this model's responses.
    associatedtype Executor: LanguageModelExecutor where Executor.Model == Self

    /// What the model can do; a session refuses requests that need more (guided generation,
    /// tool calling) with ``LanguageModelError/unsupportedCapability(_:)`` before calling the
    /// executor.
    var capabilities: LanguageModelCapabilities { get }

    /// The configuration a session creates its executor from.
    var executorConfiguration: Executor.Configuration { get }
}

extension LanguageModel where Self == SystemLanguageModel {
    /// The default model, so that `LanguageModelSession(model: .default)` reads as with Apple's API.
    public static var `default`: SystemLanguageModel { SystemLanguageModel.default }
}
