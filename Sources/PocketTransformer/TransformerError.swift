import PocketGGUF
import PocketKernels

/// Errors from loading or running a transformer.
public enum TransformerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// `general.architecture` names a model family this engine does not implement (no case of
    /// ``Architecture``).
    case unsupportedArchitecture(String)
    /// Hyper-parameters are missing or inconsistent.
    case invalidConfiguration(String)
    /// A metadata key is missing, has the wrong type, or contradicts the other keys or the
    /// tensors: the key, what the file has (`"uint32 7"`, `"absent"`) and what was expected.
    case invalidMetadata(key: String, found: String, expected: String)
    /// A tensor the architecture needs is absent.
    case missingTensor(String)
    /// A tensor has the wrong shape or an unusable type.
    case invalidTensor(name: String, reason: String)
    /// The tokens to evaluate do not fit in the KV cache.
    case contextOverflow(needed: Int, capacity: Int)
    /// A token id outside the vocabulary.
    case invalidToken(Int, vocabularySize: Int)

    /// A readable explanation naming what was found and what was expected.
    public var description: String {
        switch self {
        case .unsupportedArchitecture(let name):
            "unsupported architecture: 'general.architecture' is \"\(name)\", expected one of "
                + Architecture.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        case .invalidConfiguration(let detail): "invalid model configuration: \(detail)"
        case .invalidMetadata(let key, let found, let expected):
            "invalid model metadata: '\(key)' is \(found), expected \(expected)"
        case .missingTensor(let name): "the model file has no tensor '\(name)'"
        case .invalidTensor(let name, let reason): "tensor '\(name)': \(reason)"
        case .contextOverflow(let needed, let capacity):
            "context window exceeded: \(needed) tokens needed, the context holds \(capacity)"
        case .invalidToken(let id, let size): "token id \(id) is outside the vocabulary (0..<\(size))"
        }
    }
}
