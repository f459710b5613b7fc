import Foundation

extension PrivateCloudComputeLanguageModel {
    /// Failures of requests to Private Cloud Compute, as in Apple's FoundationModels (27).
    ///
    /// On Pocket every request to ``PrivateCloudComputeLanguageModel`` throws
    /// ``serviceUnavailable(_:)``; the other cases exist so that code handling them compiles.
    ///
    /// ```swift
    /// do {
    ///     _ = try await LanguageModelSession(model: PrivateCloudComputeLanguageModel()).respond(to: "Hi")
    /// } catch let error as PrivateCloudComputeLanguageModel.Error {
    ///     print(error.debugDescription)  // serviceUnavailable: Private Cloud Compute is not available in Pocket…
    /// }
    /// ```
    public enum Error: Swift.Error, LocalizedError, CustomDebugStringConvertible, Sendable {
        /// The user's usage quota has been reached (never thrown by Pocket).
        case quotaLimitReached(QuotaLimitReached)
        /// A network is available but Private Cloud Compute cannot be reached (never thrown by Pocket).
        case networkFailure(NetworkFailure)
        /// The service cannot handle requests: always thrown by Pocket, which has no access to it.
        case serviceUnavailable(ServiceUnavailable)

        /// Information about a reached usage quota.
        public struct QuotaLimitReached: Sendable, CustomDebugStringConvertible {
            /// An action the user can take to raise the limit, if offered.
            public var limitIncreaseSuggestion: QuotaUsage.LimitIncreaseSuggestion?
            /// When the quota resets, if known.
            public var resetDate: Date?
            /// A description of the failure for developers.
            public var debugDescription: String

            /// Creates the information.
            ///
            /// - Parameters:
            ///   - limitIncreaseSuggestion: An action that raises the limit, if offered.
            ///   - resetDate: When the quota resets, if known.
            ///   - debugDescription: A description of the failure for developers.
            public init(limitIncreaseSuggestion: QuotaUsage.LimitIncreaseSuggestion?, resetDate: Date?, debugDescription: String) {
                self.limitIncreaseSuggestion = limitIncreaseSuggestion
                self.resetDate = resetDate
                self.debugDescription = debugDescription
            }
        }

        /// Information about a network problem that stopped a request.
        public struct NetworkFailure: Sendable, CustomDebugStringConvertible {
            /// A description of the failure for developers.
            public var debugDescription: String

            /// Creates the information.
            ///
            /// - Parameter debugDescription: A description of the failure for developers.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// Information about the service being unable to handle a request.
        public struct ServiceUnavailable: Sendable, CustomDebugStringConvertible {
            /// A description of the failure for developers: on Pocket, that Private Cloud
            /// Compute is not available and what to use instead.
            public var debugDescription: String

            /// Creates the information.
            ///
            /// - Parameter debugDescription: A description of the failure for developers.
            public init(debugDescription: String) {
                self.debugDescription = debugDescription
            }
        }

        /// The failure's name and description.
        public var debugDescription: String {
            switch self {
            case .quotaLimitReached(let info): "quotaLimitReached: \(info.debugDescription)"
            case .networkFailure(let info): "networkFailure: \(info.debugDescription)"
            case .serviceUnavailable(let info): "serviceUnavailable: \(info.debugDescription)"
            }
        }

        /// What went wrong.
        public var errorDescription: String? { debugDescription }
    }
}
