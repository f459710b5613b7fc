// Q4_K in row groups (``RowGroups``). A column is one super-block of sixteen rows, in exactly
// the sixteen blocks' 2,304 bytes:
//
//   0..<32       d of rows 0…15 (fp16)
//   32..<64      dmin of rows 0…15 (fp16)
//   64..<192     two vectors of scale bytes: vector k, lane r, byte n = the 6-bit scale of
//                sub-block 4k+n of row r in bits 0…5, bits 4…5 of that sub-block's min in bits 6…7
//   192..<256    one vector of min nibbles: lane r, bits 4s…4s+3 = bits 0…3 of the min of
//                sub-block s of row r
//   256..<2304   the 32 words of nibbles `qs` as the block holds them, word k of the sixteen
//                rows as one vector: word 8c+j holds weights 64c+4j…64c+4j+3 (sub-block 2c) in
//                its low nibbles and 64c+32+4j… (sub-block 2c+1) in its high ones
//
// The scales and mins are unpacked once at load into the same 96 bits per row, so that a
// sub-block's scale is one shift and mask of a lane and its min one more. A word vector masked
// by 0x0F is four weights of sub-block 2c per lane, masked by 0xF0 sixteen times four weights
// of sub-block 2c+1 (no shift: the sum of its products is shifted right by 4, exactly); each
// meets one broadcast activation word in a `vpdpbusd`. The activations have one scale per 32
// values, one per sub-block, so per sub-block and row: the integer sum times the scale
// (`vpmulld`), then one float multiply-add with the activation scale; the mins meet the
// activations' exact block sums. Per super-block:
//   d·Σ_s a_s·(sc_s·Σ q·x) − dmin·Σ_s m_s·(a_s·Σ x)

extension Q4_K: RowGroupFormat {
    /// Where the scale bytes, the min nibbles and the weights start in a column.
    static let groupScalesOffset = 64, groupMinsOffset = 192, groupWeightsOffset = 256

    /// Writes block `block` of sixteen rows as one column: the scales and mins unpacked from
    /// their 12 bytes (``scaleAndMin(_:_:)``), the words of nibbles moved as they are.
    public static func interleave(rows: UnsafeRawPointer, rowBytes: Int, block: Int, into destination: UnsafeMutableRawPointer) {
        for r in 0..<RowGroups.rowsPerGroup {
            let source = rows + r * rowBytes + block * bytesPerBlock
            destination.storeBytes(of: source.loadUnaligned(fromByteOffset: dOffset, as: UInt16.self), toByteOffset: 2 * r, as: UInt16.self)
            destination.storeBytes(of: source.loadUnaligned(fromByteOffset: dminOffset, as: UInt16.self), toByteOffset: 32 + 2 * r, as: UInt16.self)
            var nibbles: UInt32 = 0
            for s in 0..<8 {
                let (scale, min) = scaleAndMin(source + scalesOffset, s)
                destination.storeBytes(of: scale | (min &>> 4) &<< 6,
                                       toByteOffset: groupScalesOffset + 64 * (s / 4) + 4 * r + s % 4, as: UInt8.self)
                nibbles |= UInt32(min & 0xF) &<< UInt32(4 * s)
            }
            destination.storeBytes(of: nibbles, toByteOffset: groupMinsOffset + 4 * r, as: UInt32.self)
            for k in 0..<32 {
                destination.storeBytes(of: source.loadUnaligned(fromByteOffset: qsOffset + 4 * k, as: UInt32.self),
                                       toByteOffset: groupWeightsOffset + 64 * k + 4 * r, as: UInt32.self)
            }
        }
    }

    /// The 6-bit scale and min of sub-block `s` of row `r` in a column.
    @inline(__always)
    static func groupScaleAndMin(_ column: UnsafeRawPointer, row r: Int, _ s: Int) -> (scale: UInt8, min: UInt8) {
        let packed = column.byte(at: groupScalesOffset + 64 * (s / 4) + 4 * r + s % 4)
        let nibble = UInt8(truncatingIfNeeded: column.loadUnaligned(fromByteOffset: groupMinsOffset + 4 * r, as: UInt32.self) &>> UInt32(4 * s)) & 0xF
        return (packed & 0x3F, nibble | (packed &>> 6) &<< 4)
    }

    /// The 4-bit value of weight `i` of row `r` in a column (the block's nibble order).
    @inline(__always)
    static func groupValue(_ column: UnsafeRawPointer, row r: Int, _ i: Int) -> UInt8 {
        // Weight 64c + 32n + l is nibble n of byte 32c + l, byte l % 4 of word 8c + l / 4.
        let c = i >> 6, n = (i >> 5) & 1, l = i & 31
        return column.byte(at: groupWeightsOffset + 64 * (8 * c + l / 4) + 4 * r + l % 4) &>> UInt8(4 * n) & 0xF
    }

    /// Writes row `r`'s block of a column at `destination` exactly as the block was stored.
    public static func deinterleave(column: UnsafeRawPointer, row r: Int, into destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: column.loadUnaligned(fromByteOffset: 2 * r, as: UInt16.self), toByteOffset: dOffset, as: UInt16.self)
        destination.storeBytes(of: column.loadUnaligned(fromByteOffset: 32 + 2 * r, as: UInt16.self), toByteOffset: dminOffset, as: UInt16.self)
        // The inverse of ``scaleAndMin(_:_:)``: the 96 bits hold the sixteen 6-bit values and
        // nothing else, so the block's bytes come back exactly.
        for j in 0..<4 {
            let (scale, min) = groupScaleAndMin(column, row: r, j)
            let (highScale, highMin) = groupScaleAndMin(column, row: r, j + 4)
            destination.storeBytes(of: scale | (highScale &>> 4) &<< 6, toByteOffset: scalesOffset + j, as: UInt8.self)
            destination.storeBytes(of: min | (highMin &>> 4) &<< 6, toByteOffset: scalesOffset + 4 + j, as: UInt8.self)
            destination.storeBytes(of: highScale & 0xF | (highMin & 0xF) &<< 4, toByteOffset: scalesOffset + 8 + j, as: UInt8.self)
        }
        for k in 0..<32 {
            destination.storeBytes(of: column.loadUnaligned(fromByteOffset: groupWeightsOffset + 64 * k + 4 * r, as: UInt32.self),
                                   toByteOffset: qsOffset + 4 * k, as: UInt32.self)
        }
    }

    /// Per super-block, sub-block by sub-block (one activation block each): the integer sum of
    /// q times the activations, times the scale, added as a float times the activation scale
    /// into `u`; the min times the activations' exact block sum added into `v`. Then one fused
    /// multiply-add with `d` and `u`, one with `−dmin` and `v`.
    public static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float {
        var sum: Float = 0
        for sb in 0..<blocks {
            let column = group + sb * groupColumnBytes
            var u: Float = 0, v: Float = 0
            for s in 0..<8 {
                let b = 8 * sb + s
                var products: Int32 = 0
                for k in 0..<32 {
                    products += Int32(groupValue(column, row: row, 32 * s + k)) * Int32(x.bytes[32 * b + k])
                }
                let (scale, min) = groupScaleAndMin(column, row: row, s)
                u = u.plusProduct(Float(Int32(scale) * products), x.scales[b])
                v = v.plusProduct(Float(min), x.blockSums[b])
            }
            sum = sum.plusProduct(column.loadHalf(at: 2 * row), u)
            sum = sum.plusProduct(-column.loadHalf(at: 32 + 2 * row), v)
        }
        return sum
    }
}

#if POCKET_X86_KERNELS
extension Q4_K.X86: RowGroupKernel {
    public typealias Format = Q4_K

    #if POCKET_512BIT_VECTORS  // 256-bit tiers have their own (`Q4_K+RowGroups+HalfWidth.swift`)
    /// The sixteen rows of a group times `x`, in the order of
    /// ``Q4_K/groupDotReference(_:row:_:blocks:)``.
    public static func groupDot(_ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float> {
        var sum = SIMD16<Float>()
        var column = group
        for sb in 0..<blocks {
            var u = SIMD16<Float>(), v = SIMD16<Float>()
            @inline(__always) func pair(_ c: Int) {
                ColumnPrefetch.request(after: column, bytes: Q4_K.groupColumnBytes, part: c, of: 4)
                let scales = PairScales(column, c)
                let a = UnsafeRawPointer(x.bytes + 256 * sb + 64 * c)
                // Four chains of four products: low and high nibbles, words 0…3 and 4…7.
                var l0 = SIMD16<Int32>(), l1 = SIMD16<Int32>(), h0 = SIMD16<Int32>(), h1 = SIMD16<Int32>()
                for j in 0..<4 {
                    let w0 = weights(column, c, j), w1 = weights(column, c, j + 4)
                    l0 = ByteDot.dot(l0, small: w0.low, word(a, j)); h0 = ByteDot.dot(h0, w0.high, word(a, 8 + j))
                    l1 = ByteDot.dot(l1, small: w1.low, word(a, j + 4)); h1 = ByteDot.dot(h1, w1.high, word(a, 12 + j))
                }
                scales.add(&u, &v, l0 &+ l1, (h0 &+ h1) &>> 4, x, 8 * sb + 2 * c)
            }
            // Written out: as a loop the compiler kept it rolled, and the scales' shifts were
            // computed at run time (89 against 110 G weights/s).
            pair(0); pair(1); pair(2); pair(3)
            add(&sum, u, v, column)
            column += Q4_K.groupColumnBytes
        }
        return sum
    }
    #endif

    #if POCKET_512BIT_VECTORS  // 256-bit tiers have their own (`Q4_K+RowGroups+HalfWidth.swift`)
    /// The sixteen rows of a group times four vectors: each word of nibbles is unpacked once
    /// for the four, every vector gets the operations of ``groupDot(_:_:blocks:)``.
    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        var s0 = SIMD16<Float>(), s1 = SIMD16<Float>(), s2 = SIMD16<Float>(), s3 = SIMD16<Float>()
        var column = group
        for sb in 0..<blocks {
            var u0 = SIMD16<Float>(), u1 = SIMD16<Float>(), u2 = SIMD16<Float>(), u3 = SIMD16<Float>()
            var v0 = SIMD16<Float>(), v1 = SIMD16<Float>(), v2 = SIMD16<Float>(), v3 = SIMD16<Float>()
            @inline(__always) func pair(_ c: Int) {
                let scales = PairScales(column, c)
                let a0 = UnsafeRawPointer(x.0.bytes + 256 * sb + 64 * c), a1 = UnsafeRawPointer(x.1.bytes + 256 * sb + 64 * c)
                let a2 = UnsafeRawPointer(x.2.bytes + 256 * sb + 64 * c), a3 = UnsafeRawPointer(x.3.bytes + 256 * sb + 64 * c)
                // Each word unpacked once for the four vectors: eight chains of eight products.
                var l0 = SIMD16<Int32>(), h0 = SIMD16<Int32>(), l1 = SIMD16<Int32>(), h1 = SIMD16<Int32>()
                var l2 = SIMD16<Int32>(), h2 = SIMD16<Int32>(), l3 = SIMD16<Int32>(), h3 = SIMD16<Int32>()
                for j in 0..<8 {
                    let w = weights(column, c, j)
                    l0 = ByteDot.dot(l0, small: w.low, word(a0, j)); h0 = ByteDot.dot(h0, w.high, word(a0, 8 + j))
                    l1 = ByteDot.dot(l1, small: w.low, word(a1, j)); h1 = ByteDot.dot(h1, w.high, word(a1, 8 + j))
                    l2 = ByteDot.dot(l2, small: w.low, word(a2, j)); h2 = ByteDot.dot(h2, w.high, word(a2, 8 + j))
                    l3 = ByteDot.dot(l3, small: w.low, word(a3, j)); h3 = ByteDot.dot(h3, w.high, word(a3, 8 + j))
                }
                let b = 8 * sb + 2 * c
                scales.add(&u0, &v0, l0, h0 &>> 4, x.0, b); scales.add(&u1, &v1, l1, h1 &>> 4, x.1, b)
                scales.add(&u2, &v2, l2, h2 &>> 4, x.2, b); scales.add(&u3, &v3, l3, h3 &>> 4, x.3, b)
            }
            pair(0); pair(1); pair(2); pair(3)  // written out, as in groupDot
            add(&s0, u0, v0, column); add(&s1, u1, v1, column)
            add(&s2, u2, v2, column); add(&s3, u3, v3, column)
            column += Q4_K.groupColumnBytes
        }
        return (s0, s1, s2, s3)
    }
    #endif

    /// Word `8c + j` of a column's nibbles: four weights of sub-block 2c per lane (`low`,
    /// q ∈ 0…15) and sixteen times four weights of sub-block 2c + 1 (`high`, 16q ≤ 240: the
    /// mask alone, one instruction fewer than a shift and a mask).
    @inline(__always)
    static func weights(_ column: UnsafeRawPointer, _ c: Int, _ j: Int) -> (low: SIMD16<UInt32>, high: SIMD16<UInt32>) {
        let packed = column.loadUnaligned(fromByteOffset: Q4_K.groupWeightsOffset + 64 * (8 * c + j), as: SIMD16<UInt32>.self)
        return (packed & 0x0F0F_0F0F, packed & 0xF0F0_F0F0)
    }

    /// Activation word `k` (bytes 4k…4k+3) from `a` in every lane.
    @inline(__always)
    static func word(_ a: UnsafeRawPointer, _ k: Int) -> SIMD16<UInt32> {
        SIMD16(repeating: a.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self))
    }

    /// Adds a super-block's sums into `sum`, in the reference's order: `d·u`, then `−dmin·v`.
    @inline(__always)
    static func add(_ sum: inout SIMD16<Float>, _ u: SIMD16<Float>, _ v: SIMD16<Float>, _ column: UnsafeRawPointer) {
        let d = ByteDot.floats(halves: column.loadUnaligned(as: SIMD16<UInt16>.self))
        let dmin = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt16>.self))
        sum.multiplyAdd(d, u)
        sum.multiplyAdd(-dmin, v)
    }

    /// The scales (integers) and mins (floats) of sub-blocks 2c and 2c + 1 of a column's
    /// sixteen rows.
    struct PairScales {
        /// The scales of sub-blocks 2c and 2c + 1, row r in lane r.
        let scale0, scale1: SIMD16<Int32>
        /// Their mins, as floats.
        let min0, min1: SIMD16<Float>

        /// Reads the scale bytes and min nibbles of sub-blocks 2c and 2c + 1 from `column`.
        @inline(__always)
        init(_ column: UnsafeRawPointer, _ c: Int) {
            let packed = column.loadUnaligned(fromByteOffset: Q4_K.groupScalesOffset + 64 * (c / 2), as: SIMD16<UInt32>.self)
            let nibbles = column.loadUnaligned(fromByteOffset: Q4_K.groupMinsOffset, as: SIMD16<UInt32>.self)
            @inline(__always) func scale(_ n: Int) -> SIMD16<Int32> {
                unsafeBitCast(packed &>> UInt32(8 * n) & 0x3F, to: SIMD16<Int32>.self)
            }
            @inline(__always) func min(_ s: Int) -> SIMD16<Float> {
                let low = nibbles &>> UInt32(4 * s) & 0xF, high = packed &>> UInt32(8 * (s % 4) + 2) & 0x30
                return ByteDot.floats(unsafeBitCast(low | high, to: SIMD16<Int32>.self))
            }
            // Bit casts: `SIMD16<Int32>(truncatingIfNeeded:)` was a library call here.
            let n = 2 * (c % 2)
            scale0 = scale(n); scale1 = scale(n + 1)
            min0 = min(2 * c); min1 = min(2 * c + 1)
        }

        /// Adds sub-blocks 2c and 2c + 1 (activation blocks `b`, `b + 1`), whose integer sums
        /// of q times `x` are `low` and `high`, into `u` and `v` in the reference's order.
        @inline(__always)
        func add(_ u: inout SIMD16<Float>, _ v: inout SIMD16<Float>, _ low: SIMD16<Int32>, _ high: SIMD16<Int32>, _ x: Q8Vector, _ b: Int) {
            u.multiplyAdd(ByteDot.floats(low &* scale0), SIMD16(repeating: x.scales[b]))
            v.multiplyAdd(min0, SIMD16(repeating: x.blockSums[b]))
            u.multiplyAdd(ByteDot.floats(high &* scale1), SIMD16(repeating: x.scales[b + 1]))
            v.multiplyAdd(min1, SIMD16(repeating: x.blockSums[b + 1]))
        }
    }
}
#endif
