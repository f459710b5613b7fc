/// A malformed, truncated or unsupported GGUF file.
///
/// Every error names what is wrong and, where it applies, the byte offset in the file:
///
/// ```
/// GGUF: truncated file: need 8 bytes at offset 1234, the file has 1236
/// ```
public struct GGUFError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The kinds of problem.
    public enum Kind: Sendable, Equatable {
        /// The file does not start with `GGUF`.
        case badMagic
        /// A format version other than 2 or 3.
        case unsupportedVersion
        /// The file ends before a value it announces.
        case truncated
        /// An offset, size or count points outside the file.
        case outOfBounds
        /// A metadata value type number GGUF does not define.
        case unknownValueType
        /// A tensor type number Pocket does not know.
        case unknownTensorType
        /// Tensor dimensions that are zero, too many, or overflow.
        case absurdDimensions
        /// A string that is not valid UTF-8.
        case invalidUTF8
        /// The same metadata key or tensor name twice.
        case duplicate
        /// A tensor offset that is not a multiple of the alignment, or a bad alignment value.
        case misaligned
        /// A required metadata key is absent.
        case missingKey
        /// A metadata key has a value of another type than expected.
        case wrongType
        /// Arrays nested deeper than the reader allows.
        case nestingTooDeep
        /// The file could not be opened or mapped.
        case io
    }

    /// What is wrong.
    public let kind: Kind
    /// Where in the file, when the problem is at a byte position.
    public let offset: Int?
    /// A human-readable explanation.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, at offset: Int? = nil, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    public var description: String {
        if let offset { "GGUF: \(message) (at byte offset \(offset))" } else { "GGUF: \(message)" }
    }
}
