import Foundation

extension LanguageModelSession {
    /// Errors a session threw while generating with Apple's 26 SDK.
    ///
    /// As Apple's framework does for apps built with the 27 SDK, Pocket's sessions throw the
    /// 27 types wherever they have a case: ``LanguageModelError`` (context size, guardrails,
    /// unsupported guides and languages, refusals, rate limits), ``SystemLanguageModel/Error``
    /// (missing model file) and ``LanguageModelSession/Error`` (concurrent requests, a
    /// transcript replaced mid-request). Only ``decodingFailure(_:)``, which has no 27
    /// counterpart, is still thrown; the other cases remain so that 26-era code compiles.
    ///
    /// `description` (and so `print(error)` and `"\(error)"`) is the readable message: the
    /// ``errorDescription`` followed by the ``recoverySuggestion``, never an enum dump.
    public enum GenerationError: Swift.Error, LocalizedError, CustomStringConvertible, Sendable {
        /// Context of an error.
        public struct Context: Sendable {
            /// What happened, for developers.
            public let debugDescription: String

            /// Creates a context.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// An explanation from the model of why it refused a request.
        public struct Refusal: Sendable {
            /// The transcript entries in which the model refused.
            public let transcriptEntries: [Transcript.Entry]

            /// Creates a refusal.
            public init(transcriptEntries: [Transcript.Entry]) {
                self.transcriptEntries = transcriptEntries
            }

            /// What ``explanation`` answers: the text of the last response entry of
            /// ``transcriptEntries`` (the model's own words when it declined), or a fixed
            /// sentence when there is none.
            var explanationText: String {
                for entry in transcriptEntries.reversed() {
                    if case .response(let response) = entry, !response.segments.isEmpty { return response.segments.text }
                }
                return "The model declined to respond to this request."
            }

            /// An explanation of the refusal, as a text response.
            ///
            /// Pocket's models never refuse, so a refusal comes from app or provider code; no
            /// model is asked. The content is the text of the last response entry in
            /// ``transcriptEntries`` or, without one, "The model declined to respond to this
            /// request."
            public var explanation: LanguageModelSession.Response<String> {
                get async throws { try await CannedTextModel.session(answering: explanationText).respond(to: "") }
            }

            /// The explanation of ``explanation`` as a stream (one snapshot with all of it).
            public var explanationStream: LanguageModelSession.ResponseStream<String> {
                CannedTextModel.session(answering: explanationText).streamResponse(to: "")
            }
        }

        /// The conversation does not fit the context window (27:
        /// ``LanguageModelError/contextSizeExceeded(_:)``).
        case exceededContextWindowSize(Context)
        /// The model's weights are not available (27:
        /// ``SystemLanguageModel/Error/assetsUnavailable(_:)``).
        case assetsUnavailable(Context)
        /// A guardrail rejected the prompt or the response (27:
        /// ``LanguageModelError/guardrailViolation(_:)``).
        case guardrailViolation(Context)
        /// The schema uses a guide the engine cannot enforce (27:
        /// ``LanguageModelError/unsupportedGenerationGuide(_:)``).
        case unsupportedGuide(Context)
        /// The prompt is in a language the model does not support (27:
        /// ``LanguageModelError/unsupportedLanguageOrLocale(_:)``).
        case unsupportedLanguageOrLocale(Context)
        /// The model's output could not be read as the requested type.
        case decodingFailure(Context)
        /// Too many requests (never thrown by Pocket, kept for source compatibility).
        case rateLimited(Context)
        /// The session is already responding to another request (27:
        /// ``LanguageModelSession/Error/concurrentRequests``).
        case concurrentRequests(Context)
        /// The model refused the request.
        case refusal(Refusal, Context)

        /// The error's context.
        public var context: Context {
            switch self {
            case .exceededContextWindowSize(let c), .assetsUnavailable(let c), .guardrailViolation(let c),
                 .unsupportedGuide(let c), .unsupportedLanguageOrLocale(let c), .decodingFailure(let c),
                 .rateLimited(let c), .concurrentRequests(let c), .refusal(_, let c):
                return c
            }
        }

        /// A description of the error.
        public var errorDescription: String? {
            switch self {
            case .exceededContextWindowSize: "The conversation exceeds the model's context window. \(context.debugDescription)"
            case .assetsUnavailable: "The model is unavailable. \(context.debugDescription)"
            case .guardrailViolation: "The request was rejected by a guardrail. \(context.debugDescription)"
            case .unsupportedGuide: "A generation guide is not supported. \(context.debugDescription)"
            case .unsupportedLanguageOrLocale: "The language is not supported. \(context.debugDescription)"
            case .decodingFailure: "The response could not be decoded. \(context.debugDescription)"
            case .rateLimited: "Too many requests. \(context.debugDescription)"
            case .concurrentRequests: "The session is already responding. \(context.debugDescription)"
            case .refusal: "The model refused the request. \(context.debugDescription)"
            }
        }

        /// A suggestion to fix the error.
        public var recoverySuggestion: String? {
            switch self {
            case .exceededContextWindowSize: "Start a new session with a shorter transcript, or ask for a shorter response."
            case .concurrentRequests: "Wait for the current response (isResponding) before sending another request."
            case .assetsUnavailable: "Run Weights/fetch in the Pocket checkout or set POCKET_MODEL."
            default: nil
            }
        }

        /// The readable message: what happened, then how to fix it when there is a suggestion.
        public var description: String {
            let what = errorDescription ?? ""
            guard let suggestion = recoverySuggestion else { return what }
            // Contexts are written without a final period; end the sentence before the next.
            return (what.hasSuffix(".") ? what : what + ".") + " " + suggestion
        }
    }
}
