import Foundation

/// A provider whose every response is a fixed text, used to hand out refusal explanations as
/// real ``LanguageModelSession/Response`` and ``LanguageModelSession/ResponseStream`` values
/// (Pocket's own model never refuses, so there is nothing to ask it).
struct CannedTextModel: LanguageModel {
    typealias Executor = CannedTextExecutor

    /// The text every response consists of.
    let text: String

    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([]) }
    var executorConfiguration: CannedTextExecutor.Configuration { .init(text: text) }

    /// A session whose responses are `text`.
    static func session(answering text: String) -> LanguageModelSession {
        LanguageModelSession(model: CannedTextModel(text: text))
    }
}

/// The executor of ``CannedTextModel``: sends its text as one piece.
struct CannedTextExecutor: LanguageModelExecutor {
    typealias Model = CannedTextModel

    /// The text to send.
    struct Configuration: Hashable, Sendable { let text: String }

    let text: String

    init(configuration: Configuration) { text = configuration.text }

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: CannedTextModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        await channel.send(.response(action: .appendText(text)))
    }
}
