import Foundation

/// Apple's server model on Private Cloud Compute, as in Apple's FoundationModels (27); on
/// Pocket always unavailable.
///
/// Pocket runs models on the local CPU only and has no access to Private Cloud Compute. This
/// type exists so that apps written for Apple's SDK compile and take their fallback path:
///
/// ```swift
/// let cloud = PrivateCloudComputeLanguageModel()
/// let model: any LanguageModel
/// if case .unavailable(let reason) = cloud.availability {
///     print("Falling back to the on-device model: \(reason)")
///     model = SystemLanguageModel.default
/// } else {
///     model = cloud
/// }
/// let session = LanguageModelSession(model: model)
/// ```
///
/// - ``availability`` is always `.unavailable(.deviceNotEligible)`.
/// - ``quotaUsage`` is below the limit, not approaching it, with no reset date.
/// - A session on this model throws ``Error/serviceUnavailable(_:)`` from every request, before
///   any generation; the transcript is unchanged.
public final class PrivateCloudComputeLanguageModel: LanguageModel, Sendable {
    /// Creates the Private Cloud Compute model (always unavailable on Pocket).
    public init() {}

    /// Whether the model can be used.
    public enum Availability: Sendable, Equatable {
        /// Why the model is unavailable.
        public enum UnavailableReason: Sendable, Equatable, CustomStringConvertible {
            /// The device cannot use Private Cloud Compute. Always the reason on Pocket, which
            /// runs models locally only.
            case deviceNotEligible
            /// Apple Intelligence is turned off (never reported by Pocket).
            case appleIntelligenceNotEnabled
            /// The service is not ready (never reported by Pocket).
            case modelNotReady

            /// What the reason means on Pocket.
            public var description: String {
                switch self {
                case .deviceNotEligible:
                    "Private Cloud Compute is not available in Pocket, which runs models on this machine only; "
                        + "use SystemLanguageModel.default instead"
                case .appleIntelligenceNotEnabled: "not applicable to Pocket"
                case .modelNotReady: "not applicable to Pocket"
                }
            }
        }
        /// Ready to use (never on Pocket).
        case available
        /// Not usable, and why.
        case unavailable(UnavailableReason)
    }

    /// Whether the model can be used: on Pocket always `.unavailable(.deviceNotEligible)`.
    public var availability: Availability { .unavailable(.deviceNotEligible) }

    /// Whether ``availability`` is `.available`: on Pocket always `false`.
    public var isAvailable: Bool { availability == .available }

    /// The user's usage quota: on Pocket always below the limit and not approaching it, with
    /// no reset date and no suggestion (there is no service to count requests).
    public var quotaUsage: QuotaUsage {
        QuotaUsage(status: .belowLimit(.init(isApproachingLimit: false)), limitIncreaseSuggestion: nil, resetDate: nil)
    }

    /// What Apple's server model offers (guided generation, tool calling, reasoning), so that
    /// a session reaches the executor, which reports the model unavailable.
    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities([.guidedGeneration, .toolCalling, .reasoning])
    }

    /// The executor's configuration (there is nothing to configure).
    public var executorConfiguration: Executor.Configuration { Executor.Configuration() }

    /// The executor of ``PrivateCloudComputeLanguageModel``: on Pocket every request throws
    /// ``PrivateCloudComputeLanguageModel/Error/serviceUnavailable(_:)``.
    public struct Executor: LanguageModelExecutor {
        /// The model this executor serves.
        public typealias Model = PrivateCloudComputeLanguageModel

        /// An empty configuration.
        public struct Configuration: Hashable, Sendable {
            /// Creates the configuration.
            public init() {}
        }

        /// Creates the executor.
        ///
        /// - Parameter configuration: The (empty) configuration.
        public init(configuration: Configuration) {}

        /// Throws ``PrivateCloudComputeLanguageModel/Error/serviceUnavailable(_:)``: Pocket has
        /// no access to Private Cloud Compute.
        ///
        /// - Throws: ``PrivateCloudComputeLanguageModel/Error/serviceUnavailable(_:)``, always.
        public func respond(
            to request: LanguageModelExecutorGenerationRequest, model: PrivateCloudComputeLanguageModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            throw PrivateCloudComputeLanguageModel.Error.serviceUnavailable(.init(
                debugDescription: "Private Cloud Compute is not available in Pocket, which runs models on this machine only; "
                    + "check PrivateCloudComputeLanguageModel().availability and fall back to SystemLanguageModel.default"))
        }
    }
}
