import PocketGGUF

/// A weight matrix repacked at load into groups of sixteen rows, lanes being rows: the layout
/// of the row-group kernels (``RowGroupKernel``), which multiply one activation word with
/// sixteen rows per instruction and do their float work once per block of sixteen rows instead
/// of once per row.
///
/// Group `g` holds rows `16g…16g+15`. Its blocks are stored column after column; one column
/// is the sixteen rows' blocks `b`, with each fp16 field as sixteen consecutive values and
/// each word of weights as sixteen consecutive words (``RowGroupFormat``). A column has
/// exactly the bytes of the sixteen blocks, so the copy is the size of the matrix; the mapped
/// original can then be released (``WeightMatrix/withRowGroups(pool:)``).
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
    /// 32-weight blocks per row.
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
        precondition(matrix.type == F.type && matrix.rows % Self.rowsPerGroup == 0 && F.weightsPerBlock == 32)
        type = F.type
        groups = matrix.rows / Self.rowsPerGroup
        blocks = matrix.columns / F.weightsPerBlock
        columnBytes = Self.rowsPerGroup * F.bytesPerBlock
        let groupBytes = blocks * columnBytes
        storage = .allocate(byteCount: groups * groupBytes, alignment: 64)
        let storage = storage, blocks = blocks, columnBytes = columnBytes
        let body: (Range<Int>) -> Void = { range in
            for g in range {
                let rows = matrix.row(g * Self.rowsPerGroup)
                for b in 0..<blocks {
                    Self.interleave(F.self, rows: rows, rowBytes: matrix.rowBytes, block: b,
                                    into: storage + g * groupBytes + b * columnBytes)
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
        Self.deinterleave(F.self, column: group(g) + block * columnBytes, row: row % Self.rowsPerGroup, into: destination)
    }

    /// Writes block `block` of sixteen rows (`rows` is the first, the others `rowBytes` apart)
    /// as one column at `destination`.
    @inline(__always)
    static func interleave<F: RowGroupFormat>(
        _ format: F.Type, rows: UnsafeRawPointer, rowBytes: Int, block: Int, into destination: UnsafeMutableRawPointer
    ) {
        let halves = 2 * F.halfCount, words = 32 * F.halfCount
        for r in 0..<rowsPerGroup {
            let source = rows + r * rowBytes + block * F.bytesPerBlock
            for h in 0..<F.halfCount {
                destination.storeBytes(of: source.loadUnaligned(fromByteOffset: 2 * h, as: UInt16.self),
                                       toByteOffset: 32 * h + 2 * r, as: UInt16.self)
            }
            for k in 0..<F.wordCount {
                let word = source.loadUnaligned(fromByteOffset: halves + 4 * k, as: UInt32.self)
                destination.storeBytes(of: F.groupWord(word, at: k), toByteOffset: words + 64 * k + 4 * r, as: UInt32.self)
            }
        }
    }

    /// Writes row `row`'s block of a column at `destination` as the format stores it.
    static func deinterleave<F: RowGroupFormat>(
        _ format: F.Type, column: UnsafeRawPointer, row: Int, into destination: UnsafeMutableRawPointer
    ) {
        let halves = 2 * F.halfCount, words = 32 * F.halfCount
        for h in 0..<F.halfCount {
            destination.storeBytes(of: column.loadUnaligned(fromByteOffset: 32 * h + 2 * row, as: UInt16.self),
                                   toByteOffset: 2 * h, as: UInt16.self)
        }
        for k in 0..<F.wordCount {
            let word = column.loadUnaligned(fromByteOffset: words + 64 * k + 4 * row, as: UInt32.self)
            destination.storeBytes(of: F.blockWord(word, at: k), toByteOffset: halves + 4 * k, as: UInt32.self)
        }
    }
}

extension RowGroupFormat {
    /// The row-group kernels' product of row `row` of a group with `x`, one weight at a time,
    /// with the kernels' integers and float operations in their order (the scalar reference
    /// of ``RowGroupKernel/groupDot(_:_:blocks:)``): per block, the integer sum of the unsigned
    /// weights times the activations minus the offset times their sum, then one fused
    /// multiply-add with `d·d_x` (and one with `m` and the activations' sum).
    public static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float {
        let block = UnsafeMutableRawPointer.allocate(byteCount: bytesPerBlock, alignment: 4)
        defer { block.deallocate() }
        var sum: Float = 0
        for b in 0..<blocks {
            RowGroups.deinterleave(Self.self, column: group + b * RowGroups.rowsPerGroup * bytesPerBlock, row: row, into: block)
            let q = unsignedWeights(block)
            var integer = -weightOffset * x.blockIntegerSums[b]
            for i in 0..<32 { integer += Int32(q[i]) * Int32(x.bytes[32 * b + i]) }
            sum = sum.addingProduct(Float(integer), UnsafeRawPointer(block).loadHalf(at: 0) * x.scales[b])
            if halfCount == 2 { sum = sum.addingProduct(UnsafeRawPointer(block).loadHalf(at: 2), x.sums[b]) }
        }
        return sum
    }
}
