import PocketGGUF

/// A 2-D weight tensor as stored in a GGUF file: `rows` rows of `columns` weights each, every row
/// a whole number of blocks of its ``type``.
///
/// The matrix does not own its bytes; they usually live in the memory-mapped model file, which
/// must outlive it.
public struct WeightMatrix: @unchecked Sendable {
    /// How the weights are encoded.
    public let type: GGMLType
    /// Number of rows (output features).
    public let rows: Int
    /// Number of weights per row (input features).
    public let columns: Int
    /// First byte of row 0.
    public let data: UnsafeRawPointer
    /// Bytes per row.
    public let rowBytes: Int
    /// The decoder for ``type``, looked up once from ``BlockFormats``.
    private let format: any BlockFormat.Type

    /// Describes a matrix over existing bytes.
    ///
    /// - Throws: ``KernelError`` when the type has no decoder, `columns` is not a whole number
    ///   of blocks, or `byteCount` does not match the shape.
    public init(type: GGMLType, rows: Int, columns: Int, data: UnsafeRawPointer, byteCount: Int) throws(KernelError) {
        guard let format = BlockFormats.format(for: type) else {
            throw .unsupportedType(type)
        }
        guard rows > 0, columns > 0, let rowBytes = type.byteCount(elements: columns) else {
            throw .badShape("\(rows)×\(columns) is not a whole number of \(type) blocks of \(type.blockSize)")
        }
        guard rows.multipliedReportingOverflow(by: rowBytes) == (byteCount, false) else {
            throw .badShape("\(rows)×\(columns) \(type) needs \(rows * rowBytes) bytes, found \(byteCount)")
        }
        self.type = type
        self.rows = rows
        self.columns = columns
        self.data = data
        self.rowBytes = rowBytes
        self.format = format
    }

    /// First byte of row `r`.
    @inline(__always) public func row(_ r: Int) -> UnsafeRawPointer { data + r * rowBytes }

    /// Decodes row `r` into `columns` floats at `destination`.
    ///
    /// Every type accepted by the initializer has a decoder in ``BlockFormats``, F32 included.
    public func dequantizeRow(_ r: Int, into destination: UnsafeMutablePointer<Float>) {
        format.dequantize(row(r), blocks: columns / format.weightsPerBlock, into: destination)
    }
}

/// Errors from the kernel layer.
public enum KernelError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The tensor type has no kernel or decoder in this build.
    case unsupportedType(GGMLType)
    /// Dimensions or byte counts that do not describe a valid matrix.
    case badShape(String)

    public var description: String {
        switch self {
        case .unsupportedType(let type): "unsupported tensor type \(type)"
        case .badShape(let detail): "bad matrix shape: \(detail)"
        }
    }
}
