/// A block format that can be repacked into ``RowGroups``: it says how sixteen rows' blocks of
/// one column are interleaved, how to read one back, and what its row-group kernel computes.
public protocol RowGroupFormat: BlockFormat {
    /// Writes block `block` of sixteen rows (`rows` is the first, the others `rowBytes` apart)
    /// as one column of `16 × bytesPerBlock` bytes at `destination`.
    static func interleave(rows: UnsafeRawPointer, rowBytes: Int, block: Int, into destination: UnsafeMutableRawPointer)
    /// Writes row `row`'s block of a column at `destination` as the format stores it.
    static func deinterleave(column: UnsafeRawPointer, row: Int, into destination: UnsafeMutableRawPointer)
    /// The product of row `row` of a group with `x` as the format's row-group kernel computes
    /// it, one weight at a time, read back through the groups: the kernel's scalar reference,
    /// which it equals bit for bit. `blocks` counts the format's blocks per row.
    static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float
}

extension RowGroupFormat {
    /// Bytes of one column: the sixteen rows' blocks, the same bytes as in the rows.
    @inline(__always) public static var groupColumnBytes: Int { RowGroups.rowsPerGroup * bytesPerBlock }
}

/// A 32-weight row-group format whose block is ``halfCount`` fp16 fields followed by 32-bit
/// words of quantized weights (Q4_0, Q4_1, Q5_0, Q5_1, Q8_0, IQ4_NL), with unsigned weights `q`
/// and `x = d·(q − offset)` (or `x = d·q + m` for Q4_1 and Q5_1, ``AffineGroupFormat``).
///
/// In a column, field `f` of the sixteen rows' blocks is sixteen consecutive fp16 values and
/// word `k` sixteen consecutive words, so a 512-bit load holds one word of every row: the
/// lanes of the kernels are rows (docs/kernels.md, "Row groups").
public protocol WordGroupFormat: RowGroupFormat {
    /// The fp16 fields at the start of a block: 1 (`d`) or 2 (`d`, then the minimum `m`).
    static var halfCount: Int { get }
    /// What the unsigned weights exceed the signed ones by (Q4_0 8, Q5_0 16, Q8_0 and IQ4_NL 128); 0 for
    /// the formats with a minimum.
    static var weightOffset: Int32 { get }
    /// The words of a block (lanes `0..<wordCount`, the others zero) as the column stores them:
    /// the format may rearrange its bits so that its kernel unpacks them with fewer
    /// instructions.
    static func groupWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32>
    /// The inverse of ``groupWords(_:)``.
    static func blockWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32>
    /// The block's 32 weights as unsigned bytes `q`, in weight order.
    static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8]
}

extension WordGroupFormat {
    /// Words of weights per block.
    public static var wordCount: Int { (bytesPerBlock - 2 * halfCount) / 4 }

    /// The 32 nibbles of the 16 bytes at `offset` of a block in weight order: byte j holds
    /// weight j in its low nibble and weight j + 16 in its high one (Q4_0, Q4_1, Q5_0's `qs`).
    static func nibbles(_ block: UnsafeRawPointer, at offset: Int) -> [UInt8] {
        var q = [UInt8](repeating: 0, count: 32)
        for j in 0..<16 {
            let byte = block.byte(at: offset + j)
            q[j] = byte & 0xF
            q[j + 16] = byte &>> 4
        }
        return q
    }

    /// The 32 five-bit weights of a block in weight order: the nibbles of the 16 bytes at
    /// `qsOffset` (see ``nibbles(_:at:)``), each with its fifth bit from the little-endian word
    /// at `qhOffset` (bit i for weight i: Q5_0's and Q5_1's `qh`).
    static func fiveBitWeights(_ block: UnsafeRawPointer, qhOffset: Int, qsOffset: Int) -> [UInt8] {
        let qh = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self))
        return nibbles(block, at: qsOffset).enumerated().map { i, q in q | UInt8(qh &>> UInt32(i) & 1) &<< 4 }
    }

    /// Stored as in the block.
    public static func groupWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32> { words }
    /// Stored as in the block.
    public static func blockWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32> { words }

    public static func interleave(rows: UnsafeRawPointer, rowBytes: Int, block: Int, into destination: UnsafeMutableRawPointer) {
        let halves = 2 * halfCount, words = 32 * halfCount
        for r in 0..<RowGroups.rowsPerGroup {
            let source = rows + r * rowBytes + block * bytesPerBlock
            for h in 0..<halfCount {
                destination.storeBytes(of: source.loadUnaligned(fromByteOffset: 2 * h, as: UInt16.self),
                                       toByteOffset: 32 * h + 2 * r, as: UInt16.self)
            }
            var block = SIMD8<UInt32>()
            for k in 0..<wordCount { block[k] = source.loadUnaligned(fromByteOffset: halves + 4 * k, as: UInt32.self) }
            let grouped = groupWords(block)
            for k in 0..<wordCount {
                destination.storeBytes(of: grouped[k], toByteOffset: words + 64 * k + 4 * r, as: UInt32.self)
            }
        }
    }

    public static func deinterleave(column: UnsafeRawPointer, row: Int, into destination: UnsafeMutableRawPointer) {
        let halves = 2 * halfCount, words = 32 * halfCount
        for h in 0..<halfCount {
            destination.storeBytes(of: column.loadUnaligned(fromByteOffset: 32 * h + 2 * row, as: UInt16.self),
                                   toByteOffset: 2 * h, as: UInt16.self)
        }
        var grouped = SIMD8<UInt32>()
        for k in 0..<wordCount { grouped[k] = column.loadUnaligned(fromByteOffset: words + 64 * k + 4 * row, as: UInt32.self) }
        let block = blockWords(grouped)
        for k in 0..<wordCount {
            destination.storeBytes(of: block[k], toByteOffset: halves + 4 * k, as: UInt32.self)
        }
    }

    /// The shared kernels' order for the formats with an offset: per block, the integer sum of
    /// the unsigned weights times the activations minus the offset times their sum, then one
    /// fused multiply-add with `d·d_x`. (Q4_1 and Q5_1, with a minimum, keep llama.cpp's order:
    /// ``AffineGroupFormat``.)
    public static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float {
        let block = UnsafeMutableRawPointer.allocate(byteCount: bytesPerBlock, alignment: 4)
        defer { block.deallocate() }
        var sum: Float = 0
        for b in 0..<blocks {
            deinterleave(column: group + b * groupColumnBytes, row: row, into: block)
            let q = unsignedWeights(block)
            var integer = -weightOffset * x.blockIntegerSums[b]
            for i in 0..<32 { integer += Int32(q[i]) * Int32(x.bytes[32 * b + i]) }
            sum = sum.plusProduct(Float(integer), UnsafeRawPointer(block).loadHalf(at: 0) * x.scales[b])
        }
        return sum
    }
}
