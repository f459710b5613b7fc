import Foundation

extension PrivateCloudComputeLanguageModel {
    /// The user's per-user request budget for Private Cloud Compute and where usage stands
    /// against it (independent of ``PrivateCloudComputeLanguageModel/availability``).
    ///
    /// On Pocket there is no service, so ``PrivateCloudComputeLanguageModel/quotaUsage`` is
    /// always `.belowLimit` and not approaching the limit.
    public struct QuotaUsage: Sendable {
        /// Where usage stands against the limit.
        public var status: Status
        /// An action the user can take to raise the limit, if the provider offers one.
        public var limitIncreaseSuggestion: LimitIncreaseSuggestion?
        /// When the quota resets, if known.
        public var resetDate: Date?

        /// Whether the limit has been reached.
        public var isLimitReached: Bool {
            if case .limitReached = status { return true }
            return false
        }

        /// Where usage stands against the limit.
        public enum Status: Sendable {
            /// Usage is below the limit.
            case belowLimit(BelowLimit)
            /// The limit has been reached.
            case limitReached

            /// Details of usage below the limit.
            public struct BelowLimit: Sendable {
                /// Whether usage is close to the limit.
                public var isApproachingLimit: Bool

                /// Creates the details.
                ///
                /// - Parameter isApproachingLimit: Whether usage is close to the limit.
                public init(isApproachingLimit: Bool) {
                    self.isApproachingLimit = isApproachingLimit
                }
            }
        }

        /// An action the user can take to raise their quota (on Apple's platforms, a
        /// subscription offer). Pocket never makes one.
        public struct LimitIncreaseSuggestion: Sendable {
            /// A description of the suggestion.
            public var description: String
        }
    }
}
