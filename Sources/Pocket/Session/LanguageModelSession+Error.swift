import Foundation

extension LanguageModelSession {
    /// A failure caused by using a session incorrectly, as in Apple's FoundationModels (27).
    ///
    /// ```swift
    /// do {
    ///     let answer = try await session.respond(to: "Hello")
    /// } catch LanguageModelSession.Error.concurrentRequests {
    ///     // wait for isResponding to turn false, then ask again
    /// }
    /// ```
    ///
    /// With the 27 SDK Apple's sessions throw this instead of the deprecated
    /// ``GenerationError/concurrentRequests(_:)``; Pocket does the same.
    public enum Error: Swift.Error, Hashable, LocalizedError, CustomDebugStringConvertible, Sendable {
        /// The session received a request while it was responding to another: a session
        /// answers one request at a time.
        case concurrentRequests
        /// The session's transcript was replaced while a request was running; the request's
        /// entries are not added to the new transcript.
        case transcriptMutationWhileResponding

        /// The failure's name.
        public var debugDescription: String {
            switch self {
            case .concurrentRequests: "concurrentRequests: the session is already responding to a request"
            case .transcriptMutationWhileResponding: "transcriptMutationWhileResponding: the transcript was replaced while a request was running"
            }
        }

        /// What went wrong.
        public var errorDescription: String? {
            switch self {
            case .concurrentRequests: "The session is already responding."
            case .transcriptMutationWhileResponding: "The session's transcript changed while it was responding."
            }
        }

        /// How to avoid the failure.
        public var recoverySuggestion: String? {
            switch self {
            case .concurrentRequests: "Wait for the current response (isResponding) before sending another request."
            case .transcriptMutationWhileResponding: "Set the transcript only while isResponding is false, or send the request again."
            }
        }
    }
}
