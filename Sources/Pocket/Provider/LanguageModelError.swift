import Foundation

/// A failure any language model may report while generating a response, as in Apple's
/// FoundationModels (iOS/macOS 27).
///
/// Executors throw it from ``LanguageModelExecutor/respond(to:model:streamingInto:)``; sessions
/// pass it on to the caller unchanged, and throw ``unsupportedCapability(_:)`` themselves for a
/// request that needs a capability the model does not declare.
public enum LanguageModelError: Error, LocalizedError, CustomDebugStringConvertible {
    /// The session's transcript exceeded the model's context size. Recover by removing entries from the transcript and trying again.
    case contextSizeExceeded(ContextSizeExceeded)
    /// The session has been rate limited (Pocket's own model never is).
    case rateLimited(RateLimited)
    /// The model declined to answer (Pocket's own model never does).
    case refusal(Refusal)
    /// Safety guardrails rejected the prompt or the response.
    case guardrailViolation(GuardrailViolation)
    /// The request needs a capability the model lacks, such as guided generation or tool calling.
    case unsupportedCapability(UnsupportedCapability)
    /// The transcript holds content the model cannot process.
    case unsupportedTranscriptContent(UnsupportedTranscriptContent)
    /// A generation guide (a schema's constraint) is not supported by the model.
    case unsupportedGenerationGuide(UnsupportedGenerationGuide)
    /// The request is in a language or locale the model does not support.
    case unsupportedLanguageOrLocale(UnsupportedLanguageOrLocale)
    /// The request timed out before the model produced a response.
    case timeout(Timeout)

    /// Information about exceeding the context window size.
    public struct ContextSizeExceeded: Sendable, CustomDebugStringConvertible {
        /// The model's context size, in tokens.
        public var contextSize: Int
        /// The number of tokens the request needed.
        public var tokenCount: Int
        /// A description of the failure for developers.
        public var debugDescription: String
        /// Additional information about the failure, keyed by name.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(contextSize: Int, tokenCount: Int, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.contextSize = contextSize
            self.tokenCount = tokenCount
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a rate limiting event.
    public struct RateLimited: Sendable, CustomDebugStringConvertible {
        /// When the limit resets and requests may be sent again, if the provider says.
        public var resetDate: Date?
        /// A description of the failure for developers.
        public var debugDescription: String
        /// Additional information about the failure, keyed by name.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        ///
        /// - Parameters:
        ///   - resetDate: When the limit resets, if known.
        ///   - debugDescription: A description of the failure for developers.
        ///   - metadata: Additional information, keyed by name.
        public init(resetDate: Date? = nil, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.resetDate = resetDate
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a refusal.
    ///
    /// Pocket's own model never refuses; providers report refusals with the explanation their
    /// model gave, which ``explanation`` and ``explanationStream`` hand back as a response.
    public struct Refusal: Sendable, CustomDebugStringConvertible {
        /// The explanation text the provider gave, or `nil`.
        let explanationText: String?
        /// A description of the failure for developers.
        public var debugDescription: String
        /// Additional information about the failure, keyed by name.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        ///
        /// - Parameters:
        ///   - explanation: Why the model refused, in its words.
        ///   - debugDescription: A description of the failure for developers.
        ///   - metadata: Additional information, keyed by name.
        public init(explanation: String, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.explanationText = explanation
            self.debugDescription = debugDescription
            self.metadata = metadata
        }

        /// Creates the information without an explanation (``explanation`` then answers with
        /// `debugDescription`).
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.explanationText = nil
            self.debugDescription = debugDescription
            self.metadata = metadata
        }

        /// The model's explanation of the refusal, as a text response: the explanation the
        /// provider gave (or the debug description when it gave none). No model is asked.
        public var explanation: LanguageModelSession.Response<String> {
            get async throws {
                try await CannedTextModel.session(answering: explanationText ?? debugDescription).respond(to: "")
            }
        }

        /// The model's explanation of the refusal as a stream (one snapshot with all of it).
        public var explanationStream: LanguageModelSession.ResponseStream<String> {
            CannedTextModel.session(answering: explanationText ?? debugDescription).streamResponse(to: "")
        }
    }

    /// Information about a guardrail violation.
    public struct GuardrailViolation: Sendable, CustomDebugStringConvertible {
        /// A description of the failure for developers.
        public var debugDescription: String
        /// Additional information about the failure, keyed by name.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a missing capability.
    public struct UnsupportedCapability: Sendable, CustomDebugStringConvertible {
        /// The capability the request needs.
        public var capability: LanguageModelCapabilities.Capability
        /// A description of the failure for developers.
        public var debugDescription: String
        /// Additional information about the failure, keyed by name.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(capability: LanguageModelCapabilities.Capability, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.capability = capability
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about unsupported transcript content.
    public struct UnsupportedTranscriptContent: Sendable, CustomDebugStringConvertible {
        /// A description of the failure for developers.
        public var debugDescription: String
        /// Additional information about the failure, keyed by name.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about an unsupported generation guide.
    public struct UnsupportedGenerationGuide: Sendable, CustomDebugStringConvertible {
        /// The name of the schema whose guide is not supported, if known.
        public var schemaName: String?
        /// A description of the failure for developers.
        public var debugDescription: String
        /// Additional information about the failure, keyed by name.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        ///
        /// - Parameters:
        ///   - schemaName: The name of the schema whose guide is not supported, if known.
        ///   - debugDescription: A description of the failure for developers.
        ///   - metadata: Additional information, keyed by name.
        public init(schemaName: String?, debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.schemaName = schemaName
            self.debugDescription = debugDescription
            self.metadata = metadata
        }

        /// Creates the information without a schema name.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.init(schemaName: nil, debugDescription: debugDescription, metadata: metadata)
        }
    }

    /// Information about an unsupported language or locale.
    public struct UnsupportedLanguageOrLocale: Sendable, CustomDebugStringConvertible {
        /// A description of the failure for developers.
        public var debugDescription: String
        /// Additional information about the failure, keyed by name.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// Information about a timeout.
    public struct Timeout: Sendable, CustomDebugStringConvertible {
        /// A description of the failure for developers.
        public var debugDescription: String
        /// Additional information about the failure, keyed by name.
        public var metadata: [String: any Sendable]

        /// Creates the information.
        public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
            self.debugDescription = debugDescription
            self.metadata = metadata
        }
    }

    /// The failure's name and description.
    public var debugDescription: String {
        switch self {
        case .contextSizeExceeded(let info): "contextSizeExceeded: \(info.debugDescription)"
        case .rateLimited(let info): "rateLimited: \(info.debugDescription)"
        case .refusal(let info): "refusal: \(info.debugDescription)"
        case .guardrailViolation(let info): "guardrailViolation: \(info.debugDescription)"
        case .unsupportedCapability(let info): "unsupportedCapability: \(info.debugDescription)"
        case .unsupportedTranscriptContent(let info): "unsupportedTranscriptContent: \(info.debugDescription)"
        case .unsupportedGenerationGuide(let info): "unsupportedGenerationGuide: \(info.debugDescription)"
        case .unsupportedLanguageOrLocale(let info): "unsupportedLanguageOrLocale: \(info.debugDescription)"
        case .timeout(let info): "timeout: \(info.debugDescription)"
        }
    }

    /// What went wrong, as a sentence, followed by the details.
    public var errorDescription: String? {
        let (summary, details): (String, String) = switch self {
        case .contextSizeExceeded(let info): ("The conversation exceeds the model's context window.", info.debugDescription)
        case .rateLimited(let info): ("Too many requests.", info.debugDescription)
        case .refusal(let info): ("The model refused the request.", info.debugDescription)
        case .guardrailViolation(let info): ("The request was rejected by a guardrail.", info.debugDescription)
        case .unsupportedCapability(let info): ("The model lacks a capability the request needs.", info.debugDescription)
        case .unsupportedTranscriptContent(let info): ("The transcript has content the model cannot read.", info.debugDescription)
        case .unsupportedGenerationGuide(let info): ("A generation guide is not supported.", info.debugDescription)
        case .unsupportedLanguageOrLocale(let info): ("The language is not supported.", info.debugDescription)
        case .timeout(let info): ("The request timed out.", info.debugDescription)
        }
        return details.isEmpty ? summary : "\(summary) \(details)"
    }

    /// How to avoid the failure, where there is a general answer.
    public var recoverySuggestion: String? {
        switch self {
        case .contextSizeExceeded: "Start a new session with a shorter transcript, or ask for a shorter response."
        case .unsupportedLanguageOrLocale: "Check SystemLanguageModel.supportedLanguages before sending a prompt."
        default: nil
        }
    }
}
