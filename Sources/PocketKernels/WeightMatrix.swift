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
    /// The same weights repacked in groups of sixteen rows, which the products then read
    /// instead of ``data`` (see ``withRowGroups(pool:)``); `nil` for the row-by-row layout.
    public private(set) var rowGroups: RowGroups?

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

    /// The matrix with its weights also repacked into ``RowGroups``, when the kernels that
    /// compute products (this build's, or a loaded kernel tier library's) have a row-group kernel for its format (the x86 tiers: Q2_K, Q4_0, Q4_1, Q4_K, Q5_0, Q5_1, Q6_K, Q8_0, IQ4_NL, IQ4_XS)
    /// and its rows are a multiple of 16; otherwise the matrix unchanged. The result reads only the groups
    /// (products and ``dequantizeRow(_:into:)``), so the caller may release the pages of
    /// ``data``.
    ///
    /// - Parameter pool: Threads to split the repacking over.
    public func withRowGroups(pool: ThreadPool? = nil) -> WeightMatrix {
        guard rowGroups == nil, rows % RowGroups.rowsPerGroup == 0, KernelTable.traits(of: type)?.groupsPerTileAtLeast != nil,
              let format = format as? any RowGroupFormat.Type else { return self }
        var grouped = self
        grouped.rowGroups = RowGroups(format, self, pool: pool)
        return grouped
    }

    /// First byte of row `r`.
    @inline(__always) public func row(_ r: Int) -> UnsafeRawPointer { data + r * rowBytes }

    /// Decodes row `r` into `columns` floats at `destination`, from the ``rowGroups`` when the
    /// matrix has them (so the pages of ``data`` may stay released).
    ///
    /// Every type accepted by the initializer has a decoder in ``BlockFormats``, F32 included.
    public func dequantizeRow(_ r: Int, into destination: UnsafeMutablePointer<Float>) {
        let blocks = columns / format.weightsPerBlock
        if let groups = rowGroups, let grouped = format as? any RowGroupFormat.Type {
            withUnsafeTemporaryAllocation(byteCount: rowBytes, alignment: 16) { row in
                Self.copyRow(grouped, groups, r, into: row.baseAddress!)
                format.dequantize(UnsafeRawPointer(row.baseAddress!), blocks: blocks, into: destination)
            }
        } else {
            format.dequantize(row(r), blocks: blocks, into: destination)
        }
    }

    /// Copies row `r`'s blocks out of `groups`, as the format stores them.
    private static func copyRow<F: RowGroupFormat>(_ format: F.Type, _ groups: RowGroups, _ r: Int, into row: UnsafeMutableRawPointer) {
        for b in 0..<groups.blocks { groups.copyBlock(F.self, row: r, block: b, into: row + b * F.bytesPerBlock) }
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
