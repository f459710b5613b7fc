/// Options for controlling how a language model session manages the transcript when errors
/// occur, as in Apple's FoundationModels (iOS/macOS 27).
///
/// Set it on a session (``LanguageModelSession/transcriptErrorHandlingPolicy``) or per profile
/// (``LanguageModelSession/DynamicProfile/transcriptErrorHandlingPolicy(_:)``). Without one a
/// session reverts, as Pocket sessions always have.
public struct TranscriptErrorHandlingPolicy: Sendable, Hashable {
    enum Kind: Sendable, Hashable {
        case preserve
        case revert
    }

    let kind: Kind

    /// A policy that keeps the current transcript as is: the entries the failed request added
    /// (its prompt, and any tool calls and outputs it got to) stay in the transcript.
    public static let preserveTranscript = TranscriptErrorHandlingPolicy(kind: .preserve)

    /// A policy that reverts the transcript back to the state it was in just before the most
    /// recent request.
    public static let revertTranscript = TranscriptErrorHandlingPolicy(kind: .revert)
}
