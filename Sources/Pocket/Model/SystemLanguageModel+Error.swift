import Foundation

extension SystemLanguageModel {
    /// A failure specific to the on-device system model, as in Apple's FoundationModels (27).
    ///
    /// ```swift
    /// do { … } catch SystemLanguageModel.Error.assetsUnavailable(let info) {
    ///     print(info.debugDescription)
    /// }
    /// ```
    ///
    /// Pocket's sessions still report a missing model file as
    /// ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` (the 26 SDK's error), which
    /// code written for either SDK catches; this type is here so that code catching Apple's 27
    /// error compiles.
    public enum Error: Swift.Error, LocalizedError, CustomDebugStringConvertible, Sendable {
        /// The model's assets (for Pocket: the GGUF file) are not available.
        case assetsUnavailable(AssetsUnavailable)

        /// Information about unavailable model assets.
        public struct AssetsUnavailable: Sendable, CustomDebugStringConvertible {
            /// A description of the failure for developers.
            public var debugDescription: String
            /// Additional information about the failure, keyed by name.
            public var metadata: [String: any Sendable]

            /// Creates the information.
            ///
            /// - Parameters:
            ///   - debugDescription: A description of the failure for developers.
            ///   - metadata: Additional information, keyed by name.
            public init(debugDescription: String, metadata: [String: any Sendable] = [:]) {
                self.debugDescription = debugDescription
                self.metadata = metadata
            }
        }

        /// The failure's name and description.
        public var debugDescription: String {
            switch self {
            case .assetsUnavailable(let info): "assetsUnavailable: \(info.debugDescription)"
            }
        }

        /// What went wrong.
        public var errorDescription: String? { debugDescription }
    }
}
