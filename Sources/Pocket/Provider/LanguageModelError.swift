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

    /// Information about a refusal.
    public struct Refusal: Sendable, CustomDebugStringConvertible {
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

    /// What went wrong.
    public var errorDescription: String? { debugDescription }
}
