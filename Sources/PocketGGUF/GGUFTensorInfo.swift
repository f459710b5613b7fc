/// One entry of a GGUF file's tensor table: name, shape, element type and where its bytes are.
public struct GGUFTensorInfo: Sendable, Equatable {
    /// The tensor's name, e.g. `blk.0.attn_q.weight`.
    public let name: String
    /// Sizes of each dimension, innermost first (`ne0` is the row length).
    public let dimensions: [Int]
    /// How the elements are encoded.
    public let type: GGMLType
    /// Offset of the first byte relative to the start of the tensor data section.
    public let offset: Int

    /// Creates a tensor description.
    public init(name: String, dimensions: [Int], type: GGMLType, offset: Int) {
        self.name = name
        self.dimensions = dimensions
        self.type = type
        self.offset = offset
    }

    /// Total number of elements.
    public var elementCount: Int { dimensions.reduce(1, *) }

    /// Bytes the tensor occupies: whole blocks of rows.
    public var byteCount: Int {
        (elementCount / type.blockSize) * type.typeSize
    }
}
