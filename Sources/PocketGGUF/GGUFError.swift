/// An error reading or writing a GGUF file: what went wrong, where, and what was expected.
///
/// Every malformed-input case the reader detects surfaces as one of these, never as a crash.
/// Errors compare equal when their kind, offset and message are equal, so tests can match them
/// precisely.
///
/// ```swift
/// do {
///     let file = try GGUFFile(contentsOf: url)
/// } catch {
///     print(error)   // GGUF: truncated file: need 8 bytes at offset 1234, file has 1236
///     if error.kind == .truncated { ... }
/// }
/// ```
public struct GGUFError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The category of a ``GGUFError``.
    ///
    /// A struct over a private enum (the swift-nio pattern) rather than a public enum, so that a
    /// new category is not a source-breaking change for code that switches over kinds: compare
    /// with `==` (`error.kind == .truncated`).
    public struct Kind: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable, CaseIterable {
            case badMagic, unsupportedVersion, truncated, outOfBounds, absurdCount, unknownValueType
            case unknownTensorType, absurdDimensions, invalidUTF8, nestingTooDeep, duplicateKey
            case duplicateTensor, overlappingTensors, misaligned, missingKey, wrongType
            case invalidValue, ioError, notRegularFile
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The file does not start with the four bytes `GGUF`.
        public static let badMagic = Kind(.badMagic)
        /// The version is not 2 or 3 (or the file is big-endian).
        public static let unsupportedVersion = Kind(.unsupportedVersion)
        /// A read needed more bytes than the file has left.
        public static let truncated = Kind(.truncated)
        /// An offset or size points outside the file (for example tensor data past its end).
        public static let outOfBounds = Kind(.outOfBounds)
        /// A count (of keys, tensors or array elements) cannot fit in the bytes that remain.
        public static let absurdCount = Kind(.absurdCount)
        /// A metadata value type number that GGUF does not define.
        public static let unknownValueType = Kind(.unknownValueType)
        /// A tensor type number that ``GGMLType`` does not know.
        public static let unknownTensorType = Kind(.unknownTensorType)
        /// Tensor dimensions that make no sense: too many, zero, overflowing, or not whole blocks.
        public static let absurdDimensions = Kind(.absurdDimensions)
        /// A string that is not valid UTF-8.
        public static let invalidUTF8 = Kind(.invalidUTF8)
        /// Arrays nested deeper than the reader allows.
        public static let nestingTooDeep = Kind(.nestingTooDeep)
        /// The same metadata key appears twice.
        public static let duplicateKey = Kind(.duplicateKey)
        /// The same tensor name appears twice.
        public static let duplicateTensor = Kind(.duplicateTensor)
        /// Two tensors' data ranges overlap.
        public static let overlappingTensors = Kind(.overlappingTensors)
        /// A tensor offset that is not a multiple of the alignment, or an invalid alignment.
        public static let misaligned = Kind(.misaligned)
        /// A required metadata key is absent.
        public static let missingKey = Kind(.missingKey)
        /// A metadata value has another type than the one asked for.
        public static let wrongType = Kind(.wrongType)
        /// The writer was given values it cannot encode (mixed arrays, size mismatches).
        public static let invalidValue = Kind(.invalidValue)
        /// Opening, mapping, reading or writing the file failed at the OS level.
        public static let ioError = Kind(.ioError)
        /// The path names a named pipe, directory, device or socket rather than a regular file.
        public static let notRegularFile = Kind(.notRegularFile)

        /// Every category, in declaration order.
        public static var allCases: [Kind] { Base.allCases.map(Kind.init) }

        /// The category's name (`"truncated"`).
        public var description: String { base.rawValue }
    }

    /// What went wrong.
    public let kind: Kind
    /// Absolute byte offset in the file where the problem was found, when it has one.
    public let offset: Int?
    /// A human-readable explanation naming the field, the value found and what was expected.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: The category.
    ///   - offset: The absolute file offset the problem was found at, if any.
    ///   - message: What was found and what was expected.
    public init(_ kind: Kind, offset: Int? = nil, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    /// `"GGUF: <message>"`, with ` (at offset N)` appended when the message does not already
    /// mention the offset.
    public var description: String {
        if let offset, !message.contains("offset") {
            return "GGUF: \(message) (at offset \(offset))"
        }
        return "GGUF: \(message)"
    }
}

extension GGUFError {
    /// A read of `needed` bytes at `offset` that runs past the end of a `fileSize`-byte file.
    static func truncated(need needed: UInt64, at offset: Int, fileSize: Int, what: String) -> GGUFError {
        GGUFError(.truncated, offset: offset,
                  "truncated file: need \(needed) bytes at offset \(offset) for \(what), file has \(fileSize)")
    }
}
