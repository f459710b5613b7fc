import PocketGGUF

/// A weight matrix repacked at load into groups of sixteen rows, lanes being rows: the layout
/// of the row-group kernels (``RowGroupKernel``), which multiply one activation word with
/// sixteen rows per instruction and do their float work once per block of sixteen rows instead
/// of once per row.
///
/// Group `g` holds rows `16g…16g+15`. Its blocks are stored column after column; one column
/// is the sixteen rows' blocks `b`. A column has
/// exactly the bytes of the sixteen blocks, so the copy is the size of the matrix; the mapped
/// original can then be released (``WeightMatrix/withRowGroups(pool:)``). How a column is laid
/// out is the format's (``RowGroupFormat``); for the 32-weight formats (``WordGroupFormat``):
///
/// ```
/// column b of group g:  d[row 0] … d[row 15] | (m[row 0] … m[row 15]) | word 0 of rows 0…15 | word 1 … 
/// ```
public final class RowGroups: @unchecked Sendable {
    /// Rows per group: one per 32-bit lane of a 512-bit vector.
    public static let rowsPerGroup = 16

    /// The block format of the weights.
    public let type: GGMLType
    /// Number of groups (the matrix's rows divided by 16).
    public let groups: Int
    /// The format's blocks per row.
    public let blocks: Int
    /// Bytes of one column of a group: sixteen blocks.
    public let columnBytes: Int
    /// The repacked bytes, 64-byte aligned; immutable after init.
    private let storage: UnsafeMutableRawPointer

    /// Bytes per group: a row group's share of the matrix.
    public var groupBytes: Int { blocks * columnBytes }

    /// Repacks `matrix` into groups, splitting them over `pool` when given. Products use the
    /// groups through ``WeightMatrix/withRowGroups(pool:)``, which builds them only where this
    /// build has a kernel for them; this initializer builds them for any row-group format.
    ///
    /// - Precondition: `matrix` is of `format`'s type and its rows are a multiple of 16.
    public init<F: RowGroupFormat>(_ format: F.Type, _ matrix: WeightMatrix, pool: ThreadPool?) {
        precondition(matrix.type == F.type && matrix.rows % Self.rowsPerGroup == 0)
        type = F.type
        groups = matrix.rows / Self.rowsPerGroup
        blocks = matrix.columns / F.weightsPerBlock
        columnBytes = F.groupColumnBytes
        let groupBytes = blocks * columnBytes
        storage = .allocate(byteCount: groups * groupBytes, alignment: 64)
        let storage = storage, blocks = blocks, columnBytes = columnBytes
        let body: (Range<Int>) -> Void = { range in
            for g in range {
                let rows = matrix.row(g * Self.rowsPerGroup)
                for b in 0..<blocks {
                    F.interleave(rows: rows, rowBytes: matrix.rowBytes, block: b, into: storage + g * groupBytes + b * columnBytes)
                }
            }
        }
        if let pool { pool.parallelFor(groups, body) } else { body(0..<groups) }
    }

    deinit { storage.deallocate() }

    /// First byte of group `g`.
    @inline(__always) public func group(_ g: Int) -> UnsafeRawPointer { UnsafeRawPointer(storage + g * groupBytes) }

    /// Copies row `row`'s block `block` back out of the groups, as the format stores it.
    public func copyBlock<F: RowGroupFormat>(
        _ format: F.Type, row: Int, block: Int, into destination: UnsafeMutableRawPointer
    ) {
        precondition(F.type == type && row < groups * Self.rowsPerGroup && block < blocks)
        let g = row / Self.rowsPerGroup
        F.deinterleave(column: group(g) + block * columnBytes, row: row % Self.rowsPerGroup, into: destination)
    }
}
