// Q2_K in row groups (``RowGroups``). A column is one super-block of sixteen rows (1,344 bytes):
//
//   0..<32       d of rows 0…15 (fp16)
//   32..<64      dmin of rows 0…15 (fp16)
//   64..<320     four vectors of scale bytes: vector k, lane r = the scale bytes of sub-blocks
//                4k…4k+3 of row r (scale in the low nibble, min in the high one)
//   320..<1344   sixteen vectors of 2-bit values: vector m (sub-block m), lane r = a word whose
//                byte i holds, in bits 2s…2s+1, weight 16m + 4s + i of row r
//
// So one load of vector m, shifted by 2s and masked, is four weights of sub-block m per lane
// (weights 16m+4s…16m+4s+3, in byte order), which meet one broadcast activation word in a
// `vpdpbusd`, all sixteen rows at once. The one-vector kernel sums each sub-block's products
// unscaled and scales two sub-blocks per `vpdpwssd`; the four-vector kernel multiplies the
// weights by their scale as bytes first (`vpmullw`, q·scale < 64), once for the four vectors
// (on AVX2 the scale rides in the widening `vpmaddwd` instead: `Q2_K+RowGroups+HalfWidth.swift`).
// Either way every product of a super-block adds into the same integers.
// The activations are the plane-ordered super-block bytes with one scale per super-block,
// where sixteen consecutive values stay consecutive. The mins meet the activations' integer
// sub-block sums in 16-bit pairs (`vpdpwssd`), so the mins' term is an exact integer too, as in
// llama.cpp's Q2_K product:
//   Σ_sb d·d_x·(Σ_m sc_m·Σ q·a) − dmin·d_x·(Σ_m min_m·Σ_m a)

extension Q2_K: RowGroupFormat {
    /// Where the scale bytes and the 2-bit values start in a column.
    static let groupScalesOffset = 64, groupValuesOffset = 320

    /// The 2-bit value of weight `i` of a block.
    @inline(__always)
    static func value(_ block: UnsafeRawPointer, _ i: Int) -> UInt8 {
        let h = i >> 7, j = (i >> 5) & 3, l = i & 31
        return block.byte(at: qsOffset + 32 * h + l) &>> UInt8(2 * j) & 3
    }

    public static func interleave(rows: UnsafeRawPointer, rowBytes: Int, block: Int, into destination: UnsafeMutableRawPointer) {
        // The block's 256 values as bytes in weight order, then four bytes at a time.
        withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 32) { values in
            let bytes = UnsafeMutableRawPointer(values.baseAddress!)
            for r in 0..<RowGroups.rowsPerGroup {
                let source = rows + r * rowBytes + block * bytesPerBlock
                destination.storeBytes(of: source.loadUnaligned(fromByteOffset: dOffset, as: UInt16.self), toByteOffset: 2 * r, as: UInt16.self)
                destination.storeBytes(of: source.loadUnaligned(fromByteOffset: dminOffset, as: UInt16.self), toByteOffset: 32 + 2 * r, as: UInt16.self)
                for s in 0..<16 {
                    destination.storeBytes(of: source.byte(at: scalesOffset + s),
                                           toByteOffset: groupScalesOffset + 64 * (s / 4) + 4 * r + s % 4, as: UInt8.self)
                }
                // Weight 128h + 32j + l is bits 2j…2j+1 of byte 32h + l.
                for h in 0..<2 {
                    for j in 0..<4 {
                        for e in 0..<4 {
                            let packed = source.loadUnaligned(fromByteOffset: qsOffset + 32 * h + 8 * e, as: UInt64.self)
                            bytes.storeBytes(of: packed &>> UInt64(2 * j) & 0x0303_0303_0303_0303,
                                             toByteOffset: 128 * h + 32 * j + 8 * e, as: UInt64.self)
                        }
                    }
                }
                for m in 0..<16 {
                    @inline(__always) func four(_ s: Int) -> UInt32 { bytes.load(fromByteOffset: 16 * m + 4 * s, as: UInt32.self) }
                    let word = four(0) | four(1) &<< 2 | four(2) &<< 4 | four(3) &<< 6
                    destination.storeBytes(of: word, toByteOffset: groupValuesOffset + 64 * m + 4 * r, as: UInt32.self)
                }
            }
        }
    }

    public static func deinterleave(column: UnsafeRawPointer, row r: Int, into destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: column.loadUnaligned(fromByteOffset: 2 * r, as: UInt16.self), toByteOffset: dOffset, as: UInt16.self)
        destination.storeBytes(of: column.loadUnaligned(fromByteOffset: 32 + 2 * r, as: UInt16.self), toByteOffset: dminOffset, as: UInt16.self)
        for s in 0..<16 {
            destination.storeBytes(of: column.byte(at: groupScalesOffset + 64 * (s / 4) + 4 * r + s % 4),
                                   toByteOffset: scalesOffset + s, as: UInt8.self)
        }
        var qs = [UInt8](repeating: 0, count: 64)
        for m in 0..<16 {
            let word = column.loadUnaligned(fromByteOffset: groupValuesOffset + 64 * m + 4 * r, as: UInt32.self)
            for s in 0..<4 {
                for i in 0..<4 {
                    let weight = 16 * m + 4 * s + i, h = weight >> 7, j = (weight >> 5) & 3, l = weight & 31
                    qs[32 * h + l] |= UInt8(word &>> UInt32(8 * i + 2 * s) & 3) &<< UInt8(2 * j)
                }
            }
        }
        for k in 0..<64 { destination.storeBytes(of: qs[k], toByteOffset: qsOffset + k, as: UInt8.self) }
    }

    /// Per super-block: the integer sum over the sub-blocks of each scale times its weights'
    /// products, and the integer sum of each min times its sub-block's activation sum; then
    /// one fused multiply-add with `d·d_x` and one with `−dmin·d_x`.
    public static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float {
        let block = UnsafeMutableRawPointer.allocate(byteCount: bytesPerBlock, alignment: 4)
        defer { block.deallocate() }
        var sum: Float = 0
        for sb in 0..<blocks {
            deinterleave(column: group + sb * groupColumnBytes, row: row, into: block)
            var integer: Int32 = 0
            var mins: Int32 = 0
            for m in 0..<16 {
                let packed = UnsafeRawPointer(block).byte(at: scalesOffset + m)
                var products: Int32 = 0
                for k in 0..<16 {
                    let i = 16 * m + k
                    products += Int32(value(block, i)) * Int32(x.superBytes[256 * sb + Q8Activations.planeOrderPosition(i)])
                }
                integer += Int32(packed & 0xF) * products
                mins += Int32(packed &>> 4) * Int32(x.pairedSubBlockSums[16 * sb + Q8Activations.subBlockPairIndex(m)])
            }
            let d = UnsafeRawPointer(block).loadHalf(at: dOffset), dmin = UnsafeRawPointer(block).loadHalf(at: dminOffset)
            sum = sum.plusProduct(Float(integer), d * x.superScales[sb])
            sum = sum.plusProduct(-(dmin * x.superScales[sb]), Float(mins))
        }
        return sum
    }
}

#if POCKET_X86_KERNELS
extension Q2_K.X86: RowGroupKernel {
    public typealias Format = Q2_K

    /// One vector: each sub-block's products are summed unscaled (at most 16·3·128 in size, so
    /// they fit 16 bits), two sub-blocks are packed into the halves of a lane and meet their two
    /// scales in one `vpdpwssd`. The four vectors' kernel (``groupDot4(_:_:blocks:)``) instead
    /// scales the weights once for all four vectors. Both sum the same integers.
    public static func groupDot(_ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float> {
        var sum = SIMD16<Float>()
        var column = group
        for sb in 0..<blocks {
            let v = UnsafeRawPointer(x.superBytes + 256 * sb), sums = UnsafeRawPointer(x.pairedSubBlockSums + 16 * sb)
            var integers = SIMD16<Int32>(), mins = SIMD16<Int32>()
            for k in 0..<4 {
                ColumnPrefetch.request(after: column, bytes: Q2_K.groupColumnBytes, part: k, of: 4)
                let (scales, minBytes) = scaleBytes(column, k)
                let p0 = products(column, v, 4 * k), p1 = products(column, v, 4 * k + 1)
                let p2 = products(column, v, 4 * k + 2), p3 = products(column, v, 4 * k + 3)
                // Sub-blocks 4k and 4k+2 with scale bytes 0 and 2, then 4k+1 and 4k+3 with 1 and 3.
                let pairs = bytePairs(scales)
                integers = ByteDot.dotHalves(integers, packed(p0, p2), pairs.even)
                integers = ByteDot.dotHalves(integers, packed(p1, p3), pairs.odd)
                mins = addMins(mins, minBytes, sums, k)
            }
            add(&sum, integers, mins, column, x.superScales[sb])
            column += Q2_K.groupColumnBytes
        }
        return sum
    }

    /// Sub-block `m`'s sixteen products per lane, unscaled: its four weight vectors (shifts 0,
    /// 2, 4, 6) each meet one broadcast activation word.
    @inline(__always)
    static func products(_ column: UnsafeRawPointer, _ v: UnsafeRawPointer, _ m: Int) -> SIMD16<Int32> {
        let w = weights(column, m)
        return ByteDot.dot(.zero, below32: w, (word(v, m, 0), word(v, m, 1), word(v, m, 2), word(v, m, 3)))
    }

    /// Sub-block `m`'s four weight vectors (shifts 0, 2, 4, 6), one weight per byte.
    @inline(__always)
    static func weights(_ column: UnsafeRawPointer, _ m: Int) -> (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>) {
        let q = column.loadUnaligned(fromByteOffset: Q2_K.groupValuesOffset + 64 * m, as: SIMD16<UInt32>.self)
        let mask = SIMD16<UInt32>(repeating: 0x0303_0303)
        return (q & mask, q &>> 2 & mask, q &>> 4 & mask, q &>> 6 & mask)
    }

    /// Bytes 0 and 2 of each lane of `bytes` (sub-blocks 4k and 4k+2 of a scale vector) as a
    /// lane's two 16-bit halves, and bytes 1 and 3 (sub-blocks 4k+1 and 4k+3).
    @inline(__always)
    static func bytePairs(_ bytes: SIMD16<UInt32>) -> (even: SIMD16<UInt32>, odd: SIMD16<UInt32>) {
        (bytes & 0x00FF_00FF, bytes &>> 8 & 0x00FF_00FF)
    }

    /// `low` in the low 16 bits of each lane and `high` in the high 16 bits (both fit 16 bits).
    @inline(__always)
    static func packed(_ low: SIMD16<Int32>, _ high: SIMD16<Int32>) -> SIMD16<UInt32> {
        SIMD16<UInt32>(truncatingIfNeeded: low) & 0xFFFF | SIMD16<UInt32>(truncatingIfNeeded: high) &<< 16
    }

    #if POCKET_512BIT_VECTORS  // 256-bit tiers have their own (`Q2_K+RowGroups+HalfWidth.swift`)
    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        let picks = GroupScalePicks()
        var s0 = SIMD16<Float>(), s1 = SIMD16<Float>(), s2 = SIMD16<Float>(), s3 = SIMD16<Float>()
        var column = group
        for sb in 0..<blocks {
            let v0 = UnsafeRawPointer(x.0.superBytes + 256 * sb), v1 = UnsafeRawPointer(x.1.superBytes + 256 * sb)
            let v2 = UnsafeRawPointer(x.2.superBytes + 256 * sb), v3 = UnsafeRawPointer(x.3.superBytes + 256 * sb)
            let sums = (UnsafeRawPointer(x.0.pairedSubBlockSums + 16 * sb), UnsafeRawPointer(x.1.pairedSubBlockSums + 16 * sb),
                        UnsafeRawPointer(x.2.pairedSubBlockSums + 16 * sb), UnsafeRawPointer(x.3.pairedSubBlockSums + 16 * sb))
            // Two accumulators per vector (shifts 0, 1 and 2, 3).
            var a0 = SIMD16<Int32>(), b0 = SIMD16<Int32>(), a1 = SIMD16<Int32>(), b1 = SIMD16<Int32>()
            var a2 = SIMD16<Int32>(), b2 = SIMD16<Int32>(), a3 = SIMD16<Int32>(), b3 = SIMD16<Int32>()
            var m0 = SIMD16<Int32>(), m1 = SIMD16<Int32>(), m2 = SIMD16<Int32>(), m3 = SIMD16<Int32>()
            for k in 0..<4 {
                let (scales, minBytes) = scaleBytes(column, k)
                for n in 0..<4 {
                    let m = 4 * k + n
                    let w = scaledWeights(column, m, ByteDot.shuffleBytes(scales, picks[n]))
                    a0 = ByteDot.dot(a0, below64: (w.0, w.1), (word(v0, m, 0), word(v0, m, 1)))
                    b0 = ByteDot.dot(b0, below64: (w.2, w.3), (word(v0, m, 2), word(v0, m, 3)))
                    a1 = ByteDot.dot(a1, below64: (w.0, w.1), (word(v1, m, 0), word(v1, m, 1)))
                    b1 = ByteDot.dot(b1, below64: (w.2, w.3), (word(v1, m, 2), word(v1, m, 3)))
                    a2 = ByteDot.dot(a2, below64: (w.0, w.1), (word(v2, m, 0), word(v2, m, 1)))
                    b2 = ByteDot.dot(b2, below64: (w.2, w.3), (word(v2, m, 2), word(v2, m, 3)))
                    a3 = ByteDot.dot(a3, below64: (w.0, w.1), (word(v3, m, 0), word(v3, m, 1)))
                    b3 = ByteDot.dot(b3, below64: (w.2, w.3), (word(v3, m, 2), word(v3, m, 3)))
                }
                m0 = addMins(m0, minBytes, sums.0, k); m1 = addMins(m1, minBytes, sums.1, k)
                m2 = addMins(m2, minBytes, sums.2, k); m3 = addMins(m3, minBytes, sums.3, k)
            }
            add(&s0, a0 &+ b0, m0, column, x.0.superScales[sb]); add(&s1, a1 &+ b1, m1, column, x.1.superScales[sb])
            add(&s2, a2 &+ b2, m2, column, x.2.superScales[sb]); add(&s3, a3 &+ b3, m3, column, x.3.superScales[sb])
            column += Q2_K.groupColumnBytes
        }
        return (s0, s1, s2, s3)
    }
    #endif

    /// Scale vector `k` of a column: the scales (low nibbles) and mins (high nibbles) of
    /// sub-blocks 4k…4k+3, as bytes.
    @inline(__always)
    static func scaleBytes(_ column: UnsafeRawPointer, _ k: Int) -> (scales: SIMD16<UInt32>, mins: SIMD16<UInt32>) {
        let packed = column.loadUnaligned(fromByteOffset: Q2_K.groupScalesOffset + 64 * k, as: SIMD16<UInt32>.self)
        return (packed & 0x0F0F_0F0F, packed &>> 4 & 0x0F0F_0F0F)
    }

    /// Sub-block `m`'s four weight vectors (shifts 0, 2, 4, 6) times its scale, as bytes: the
    /// scale is in the low byte of each 16-bit half of `scale` (q·scale < 64 does not carry).
    @inline(__always)
    static func scaledWeights(_ column: UnsafeRawPointer, _ m: Int, _ scale: SIMD16<UInt32>)
        -> (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>) {
        let w = weights(column, m)
        return (ByteDot.multiplyHalves(w.0, scale), ByteDot.multiplyHalves(w.1, scale),
                ByteDot.multiplyHalves(w.2, scale), ByteDot.multiplyHalves(w.3, scale))
    }

    /// The activation word of sub-block `m`, shift `s` (values 16m+4s…16m+4s+3 in plane order)
    /// in every lane.
    @inline(__always)
    static func word(_ v: UnsafeRawPointer, _ m: Int, _ s: Int) -> SIMD16<UInt32> {
        let position = 64 * ((m >> 1) & 3) + 32 * (m >> 3) + 16 * (m & 1) + 4 * s
        return SIMD16(repeating: v.loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }

    /// `accumulator` plus the mins of sub-blocks 4k…4k+3 (`mins`, one byte each per lane) times
    /// their activation sums (`sums`, ``Q8Activations/subBlockPairIndex(_:)`` order): bytes 0
    /// and 2, then 1 and 3, widened to 16-bit pairs, each pair meeting its two sums in one
    /// `vpdpwssd`.
    @inline(__always)
    static func addMins(_ accumulator: SIMD16<Int32>, _ mins: SIMD16<UInt32>, _ sums: UnsafeRawPointer, _ k: Int) -> SIMD16<Int32> {
        let (even, odd) = bytePairs(mins)
        let evenSums = SIMD16(repeating: sums.loadUnaligned(fromByteOffset: 8 * k, as: UInt32.self))
        let oddSums = SIMD16(repeating: sums.loadUnaligned(fromByteOffset: 8 * k + 4, as: UInt32.self))
        return ByteDot.dotHalves(ByteDot.dotHalves(accumulator, even, evenSums), odd, oddSums)
    }

    /// Adds a super-block's integer sums and mins' sums into `sum`, in the reference's order.
    @inline(__always)
    static func add(_ sum: inout SIMD16<Float>, _ integers: SIMD16<Int32>, _ mins: SIMD16<Int32>, _ column: UnsafeRawPointer, _ superScale: Float) {
        let d = ByteDot.floats(halves: column.loadUnaligned(as: SIMD16<UInt16>.self))
        let dmin = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt16>.self))
        let scale = SIMD16<Float>(repeating: superScale)
        sum.multiplyAdd(ByteDot.floats(integers), d * scale)
        sum.multiplyAdd(-(dmin * scale), ByteDot.floats(mins))
    }
}

/// `vpshufb` indices that copy byte n of each 32-bit lane (a sub-block's scale) into the low
/// byte of both of the lane's 16-bit halves, with zero high bytes: the multiplier of
/// ``Q2_K/X86/scaledWeights(_:_:_:)``.
struct GroupScalePicks {
    let p0, p1, p2, p3: SIMD16<UInt32>

    @inline(__always)
    init() {
        // Byte b of a 128-bit lane is picked by index b; lane L starts at byte 4·(L % 4).
        let base = SIMD16<UInt32>(0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12, 0, 4, 8, 12)
        @inline(__always) func pick(_ n: UInt32) -> SIMD16<UInt32> { (base &+ n) &* 0x1_0001 | 0x8000_8000 }
        p0 = pick(0); p1 = pick(1); p2 = pick(2); p3 = pick(3)
    }

    subscript(n: Int) -> SIMD16<UInt32> {
        @inline(__always) get { n == 0 ? p0 : n == 1 ? p1 : n == 2 ? p2 : p3 }
    }
}
#endif
