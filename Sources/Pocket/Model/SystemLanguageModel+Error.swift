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
    /// Pocket's sessions throw it when the model file cannot be loaded, as Apple's do with the
    /// 27 SDK (the 26 SDK's ``LanguageModelSession/GenerationError/assetsUnavailable(_:)`` is
    /// no longer thrown).
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

        /// What went wrong, as a sentence, followed by the details.
        public var errorDescription: String? {
            switch self {
            case .assetsUnavailable(let info): "The model is unavailable. \(info.debugDescription)"
            }
        }

        /// How to get the model.
        public var recoverySuggestion: String? {
            switch self {
            case .assetsUnavailable: "Run Weights/fetch in the Pocket checkout, set POCKET_MODEL, or load a file with SystemLanguageModel(contentsOf:)."
            }
        }
    }
}
