/// Where one tensor lives in a GGUF file, and its shape and element type.
///
/// `dimensions` are in file order: `dimensions[0]` (ggml's `ne0`) is the innermost one, the
/// length of a row. A matrix of `rows` rows by `columns` columns has `dimensions == [columns,
/// rows]`. Instances produced by ``GGUFFile`` are validated: 1 to 4 positive dimensions, rows
/// made of whole blocks, and sizes that do not overflow.
public struct GGUFTensorInfo: Sendable, Equatable {
    /// The tensor's name (`"blk.0.attn_q.weight"`).
    public let name: String
    /// Sizes per dimension, innermost first (`ne0` = row length).
    public let dimensions: [Int]
    /// The element type (block format) of the data.
    public let type: GGMLType
    /// Byte offset of the data relative to the start of the tensor data section.
    public let offset: Int

    /// Creates a tensor description.
    ///
    /// - Precondition: `dimensions` has 1 to 4 positive entries, `dimensions[0]` is a multiple of
    ///   `type.blockSize`, the byte size fits `Int`, and `offset >= 0`. (``GGUFFile`` checks
    ///   untrusted input itself and throws instead.)
    public init(name: String, dimensions: [Int], type: GGMLType, offset: Int) {
        precondition(Self.byteCount(dimensions: dimensions, type: type) != nil,
                     "GGUFTensorInfo '\(name)': invalid dimensions \(dimensions) for type \(type)")
        precondition(offset >= 0, "GGUFTensorInfo '\(name)': negative offset \(offset)")
        self.name = name
        self.dimensions = dimensions
        self.type = type
        self.offset = offset
    }

    /// Total number of elements (the product of the dimensions).
    public var elementCount: Int { dimensions.reduce(1, *) }

    /// Bytes the data occupies: rows of whole blocks of `type.typeSize` bytes each.
    public var byteCount: Int { Self.byteCount(dimensions: dimensions, type: type)! }

    /// Number of rows: the product of every dimension but the first.
    public var rowCount: Int { dimensions.dropFirst().reduce(1, *) }

    /// The byte size of a tensor with this shape and type, or `nil` if the shape is invalid:
    /// not 1 to 4 dimensions, a dimension below 1, a row that is not a whole number of blocks,
    /// or an element or byte count that overflows `Int`.
    ///
    /// - Complexity: O(number of dimensions).
    public static func byteCount(dimensions: [Int], type: GGMLType) -> Int? {
        guard (1 ... 4).contains(dimensions.count), dimensions.allSatisfy({ $0 > 0 }) else { return nil }
        var elements = 1
        for dimension in dimensions {
            let (product, overflow) = elements.multipliedReportingOverflow(by: dimension)
            if overflow { return nil }
            elements = product
        }
        guard let rowBytes = type.byteCount(elements: dimensions[0]) else { return nil }
        let (bytes, overflow) = rowBytes.multipliedReportingOverflow(by: elements / dimensions[0])
        return overflow ? nil : bytes
    }
}
