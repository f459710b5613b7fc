// IQ4_XS in row groups (``RowGroups``). A column is one super-block of sixteen rows, in exactly
// the sixteen blocks' 2,176 bytes:
//
//   0..<32       d of rows 0…15 (fp16)
//   32..<96      scales_l of rows 0…15, one 32-bit lane each: bits 4s…4s+3 = the low four bits
//                of ls of sub-block s
//   96..<128     scales_h of rows r and r + 8 in 32-bit lane r (r < 8), low and high half: bits
//                2s, 2s + 1 = the high two bits of ls of sub-block s
//   128..<2176   the 32 words of nibbles `qs` as the block holds them, word k of the sixteen rows
//                as one vector: words 4s…4s+3 are sub-block s, laid out as an IQ4_NL block's
//
// The scale fields keep their bits, so a column is the blocks' bytes rearranged; the kernel
// makes a sub-block's scale with two shifts and masks and one float conversion per column, for
// all sixteen rows. scales_h goes in pairs of rows so that no lane is wider than its field: a
// 16-to-32-bit widening of a vector was a library call (`HalfConversion.zeroExtended`), here
// it is a mask or a shift.
//
// Sub-block s of super-block sb is an IQ4_NL block (activation block 8sb + s) with the scale
// d·(ls − 32), exact in a float (11 × 6 significant bits): the kernel runs the 32-weight
// kernels' block product (``GroupBlockKernel``) on the nibbles looked up in the codebook plus
// 128, as IQ4_NL's does (`IQ4_NL+RowGroups.swift`), with that scale where theirs has d.

extension IQ4_XS: RowGroupFormat {
    /// Where the low scale bits, the high scale bits and the weights start in a column.
    static let groupLowScalesOffset = 32, groupHighScalesOffset = 96, groupWeightsOffset = 128

    /// Where row `r`'s scales_h is in a column.
    @inline(__always)
    static func groupHighScalesByte(_ r: Int) -> Int { groupHighScalesOffset + 4 * (r % 8) + 2 * (r / 8) }

    /// Writes block `block` of sixteen rows as one column, every field moved as it is.
    public static func interleave(rows: UnsafeRawPointer, rowBytes: Int, block: Int, into destination: UnsafeMutableRawPointer) {
        for r in 0..<RowGroups.rowsPerGroup {
            let source = rows + r * rowBytes + block * bytesPerBlock
            destination.storeBytes(of: source.loadUnaligned(fromByteOffset: dOffset, as: UInt16.self), toByteOffset: 2 * r, as: UInt16.self)
            destination.storeBytes(of: source.loadUnaligned(fromByteOffset: scalesLowOffset, as: UInt32.self),
                                   toByteOffset: groupLowScalesOffset + 4 * r, as: UInt32.self)
            destination.storeBytes(of: source.loadUnaligned(fromByteOffset: scalesHighOffset, as: UInt16.self),
                                   toByteOffset: groupHighScalesByte(r), as: UInt16.self)
            for k in 0..<32 {
                destination.storeBytes(of: source.loadUnaligned(fromByteOffset: qsOffset + 4 * k, as: UInt32.self),
                                       toByteOffset: groupWeightsOffset + 64 * k + 4 * r, as: UInt32.self)
            }
        }
    }

    /// Writes row `r`'s block of a column at `destination` exactly as the block was stored.
    public static func deinterleave(column: UnsafeRawPointer, row r: Int, into destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: column.loadUnaligned(fromByteOffset: 2 * r, as: UInt16.self), toByteOffset: dOffset, as: UInt16.self)
        destination.storeBytes(of: column.loadUnaligned(fromByteOffset: groupHighScalesByte(r), as: UInt16.self),
                               toByteOffset: scalesHighOffset, as: UInt16.self)
        destination.storeBytes(of: column.loadUnaligned(fromByteOffset: groupLowScalesOffset + 4 * r, as: UInt32.self),
                               toByteOffset: scalesLowOffset, as: UInt32.self)
        for k in 0..<32 {
            destination.storeBytes(of: column.loadUnaligned(fromByteOffset: groupWeightsOffset + 64 * k + 4 * r, as: UInt32.self),
                                   toByteOffset: qsOffset + 4 * k, as: UInt32.self)
        }
    }

    /// Per sub-block (one activation block each), as IQ4_NL's reference
    /// (``WordGroupFormat/groupDotReference(_:row:_:blocks:)``) with the scale d·(ls − 32):
    /// the integer sum of the codebook values plus 128 times the activations minus 128 times
    /// their sum, then one fused multiply-add with d·(ls − 32)·d_x.
    public static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float {
        withUnsafeTemporaryAllocation(byteCount: bytesPerBlock, alignment: 4) { buffer in
            let block = buffer.baseAddress!
            var sum: Float = 0
            for sb in 0..<blocks {
                deinterleave(column: group + sb * groupColumnBytes, row: row, into: block)
                let d = UnsafeRawPointer(block).loadHalf(at: dOffset)
                for s in 0..<8 {
                    let b = 8 * sb + s
                    var integer = -128 * x.blockIntegerSums[b]
                    for j in 0..<16 {
                        let byte = block.load(fromByteOffset: qsOffset + 16 * s + j, as: UInt8.self)
                        integer += (Int32(IQ4_NL.codebook[Int(byte & 0xF)]) + 128) * Int32(x.bytes[32 * b + j])
                        integer += (Int32(IQ4_NL.codebook[Int(byte &>> 4)]) + 128) * Int32(x.bytes[32 * b + 16 + j])
                    }
                    let dl = d * Float(subBlockScale(UnsafeRawPointer(block), s))
                    sum = sum.plusProduct(Float(integer), dl * x.scales[b])
                }
            }
            return sum
        }
    }
}

#if POCKET_X86_KERNELS
extension IQ4_XS.X86: GroupBlockKernel {
    public typealias Format = IQ4_XS

    /// The looked-up weights are the codebook plus 128.
    static var offsetShift: Int32 { 7 }

    /// The sixteen rows of a group times `x`, in the order of
    /// ``IQ4_XS/groupDotReference(_:row:_:blocks:)``: per sub-block, the 32-weight kernels'
    /// block product with the scale d·(ls − 32). Sixteen rows on every tier, as theirs.
    public static func groupDot(_ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float> {
        var sum = SIMD16<Float>()
        var column = group
        for sb in 0..<blocks {
            let scales = SubBlockScales<SIMD16<UInt32>>(column, half: 0), d = self.scales(column)
            eachSubBlock { s in
                ColumnPrefetch.request(after: column, bytes: IQ4_XS.groupColumnBytes, part: s, of: 8)
                add(&sum, subBlockWeights(column, s, half: 0, as: SIMD16<UInt32>.self), scales.scale(s, d), x, 8 * sb + s)
            }
            column += IQ4_XS.groupColumnBytes
        }
        return sum
    }

    #if POCKET_512BIT_VECTORS  // 256-bit tiers have their own, in halves (`IQ4_XS+RowGroups+HalfWidth.swift`)
    /// The sixteen rows of a group times four vectors: each sub-block unpacked, and its scale
    /// made, once for the four.
    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        var s0 = SIMD16<Float>(), s1 = SIMD16<Float>(), s2 = SIMD16<Float>(), s3 = SIMD16<Float>()
        var column = group
        for sb in 0..<blocks {
            let scales = SubBlockScales<SIMD16<UInt32>>(column, half: 0), d = self.scales(column)
            eachSubBlock { s in
                let w = subBlockWeights(column, s, half: 0, as: SIMD16<UInt32>.self), dl = scales.scale(s, d), b = 8 * sb + s
                add(&s0, w, dl, x.0, b); add(&s1, w, dl, x.1, b)
                add(&s2, w, dl, x.2, b); add(&s3, w, dl, x.3, b)
            }
            column += IQ4_XS.groupColumnBytes
        }
        return (s0, s1, s2, s3)
    }
    #endif

    /// `body(s)` for the eight sub-blocks `s` of a column, written out: as a loop the scales'
    /// shifts would be computed at run time (see Q4_K's row-group kernel).
    @inline(__always)
    static func eachSubBlock(_ body: (Int) -> Void) {
        body(0); body(1); body(2); body(3); body(4); body(5); body(6); body(7)
    }

    /// Sub-block `s` of a column looked up in the codebook plus 128: of all sixteen rows
    /// (`SIMD16`, `half` 0), or of rows `8·half`…`8·half + 7` (`SIMD8`).
    @inline(__always)
    static func subBlockWeights<Lanes>(_ column: UnsafeRawPointer, _ s: Int, half: Int, as lanes: Lanes.Type)
        -> GroupWeights<Lanes> {
        GroupWeights<Lanes>.fourBit(column + IQ4_XS.groupWeightsOffset + 256 * s + 32 * half).lookedUp(in: IQ4_NL.X86.table)
    }

    /// The scale bits of a column's rows: of all sixteen (`SIMD16`) or of the eight of one
    /// half (`SIMD8`), one row per lane.
    struct SubBlockScales<Lanes: SIMD> where Lanes.Scalar == UInt32 {
        /// scales_l and scales_h of each row.
        let low, high: Lanes

        @inline(__always)
        init(_ column: UnsafeRawPointer, half: Int) {
            let pairs = column.loadUnaligned(fromByteOffset: IQ4_XS.groupHighScalesOffset, as: SIMD8<UInt32>.self)
            if Lanes.scalarCount == 16 {
                low = column.loadUnaligned(fromByteOffset: IQ4_XS.groupLowScalesOffset, as: Lanes.self)
                high = unsafeBitCast(SIMD16(lowHalf: pairs & 0xFFFF, highHalf: pairs &>> 16), to: Lanes.self)
            } else {
                low = column.loadUnaligned(fromByteOffset: IQ4_XS.groupLowScalesOffset + 32 * half, as: Lanes.self)
                high = unsafeBitCast(half == 0 ? pairs & 0xFFFF : pairs &>> 16, to: Lanes.self)
            }
        }

        /// ls − 32 of sub-block `s` of each row (−32…31).
        @inline(__always)
        func signed(_ s: Int) -> Lanes {
            let highBits = s < 2 ? high &<< UInt32(4 - 2 * s) : high &>> UInt32(2 * s - 4)
            return (low &>> UInt32(4 * s) & 0xF | highBits & 0x30) &- 32
        }
    }
}

extension IQ4_XS.X86.SubBlockScales where Lanes == SIMD16<UInt32> {
    /// d·(ls − 32) of sub-block `s` of the sixteen rows, exact, from their `d`.
    @inline(__always)
    func scale(_ s: Int, _ d: SIMD16<Float>) -> SIMD16<Float> {
        d * ByteDot.floats(unsafeBitCast(signed(s), to: SIMD16<Int32>.self))
    }
}
#endif
