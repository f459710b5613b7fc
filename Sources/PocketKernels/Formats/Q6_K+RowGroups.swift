// Q6_K in row groups (``RowGroups``). A column is one super-block of sixteen rows (3,360 bytes):
//
//   0..<32       d of rows 0…15 (fp16)
//   32..<288     four vectors of signed scales: vector k, lane r = the scales of sub-blocks
//                4k…4k+3 of row r
//   288..<3360   per sub-block m, three vectors A, B, C (one word per row, lane r)
//
// With q_s,i the 6-bit weight 16m+4s+i of a row and byte i of its words A, B, C:
//
//   A, B   bits 0…5: q_0,i (A) and q_1,i (B) whole; bits 6…7: bits 0…1 of q_2,i (A) and
//          q_3,i (B), xor-ed with what C puts over them
//   C      bits 0…3: bits 2…5 of q_2,i, bits 4…7: bits 2…5 of q_3,i, each xor-ed with what
//          A and B put over them
//
// so that, per 32-bit lane, the four weight vectors of sub-block m (weights 16m+4s…16m+4s+3
// in byte order, q ∈ 0…63) are
//
//   A & 0x3F,   B & 0x3F,   (A >> 6 ^ C << 2) & 0x3F,   (B >> 6 ^ C >> 2) & 0x3F
//
// (ten instructions for four vectors, against seventeen for a nibble or'ed with its two
// shifted high bits). The shifts bring along bits of the neighbouring byte, which are known
// when the column is built, so the stored bits are xor-ed with them in advance and the xor
// leaves exactly the weight (``groupWords(_:)``). Each vector meets one broadcast activation
// word in a `vpdpbusd`. The offset (q − 32) is each sub-block's starting value, −32 × its
// activations' sum; the signed scale multiplies the sub-block's integer sum, and the two
// sub-blocks of an activation block add before one float multiply-add with d·d_x for the
// sixteen rows.

extension Q6_K: RowGroupFormat {
    /// Where the scales and the weights start in a column, and the bytes per sub-block.
    static let groupScalesOffset = 32, groupWeightsOffset = 288, groupSubBlockBytes = 192

    /// The 6-bit value of weight `i` of a block.
    @inline(__always)
    static func value(_ block: UnsafeRawPointer, _ i: Int) -> UInt8 {
        let h = i >> 7, n = (i >> 6) & 1, l64 = i & 63, j = (i >> 5) & 3, l32 = i & 31
        let low = block.byte(at: qlOffset + 64 * h + l64) &>> UInt8(4 * n) & 0xF
        let high = block.byte(at: qhOffset + 32 * h + l32) &>> UInt8(2 * j) & 3
        return low | high &<< 4
    }

    public static func interleave(rows: UnsafeRawPointer, rowBytes: Int, block: Int, into destination: UnsafeMutableRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 256) { q in
            for r in 0..<RowGroups.rowsPerGroup {
                let source = rows + r * rowBytes + block * bytesPerBlock
                destination.storeBytes(of: source.loadUnaligned(fromByteOffset: dOffset, as: UInt16.self), toByteOffset: 2 * r, as: UInt16.self)
                for s in 0..<16 {
                    destination.storeBytes(of: source.byte(at: scalesOffset + s),
                                           toByteOffset: groupScalesOffset + 64 * (s / 4) + 4 * r + s % 4, as: UInt8.self)
                }
                for i in 0..<256 { q[i] = value(source, i) }
                for m in 0..<16 {
                    let words = groupWords(sub: UnsafeRawPointer(q.baseAddress! + 16 * m))
                    let base = groupWeightsOffset + groupSubBlockBytes * m + 4 * r
                    destination.storeBytes(of: words.a, toByteOffset: base, as: UInt32.self)
                    destination.storeBytes(of: words.b, toByteOffset: base + 64, as: UInt32.self)
                    destination.storeBytes(of: words.c, toByteOffset: base + 128, as: UInt32.self)
                }
            }
        }
    }

    /// A sub-block's sixteen 6-bit weights (the bytes at `q`, weight 4s + i at `4s + i`) as the
    /// words A, B, C of one row (the layout above), a word at a time: C first, whose bits the
    /// high bits of A and B are xor-ed with.
    static func groupWords(sub q: UnsafeRawPointer) -> (a: UInt32, b: UInt32, c: UInt32) {
        @inline(__always) func weights(_ s: Int) -> UInt32 { q.loadUnaligned(fromByteOffset: 4 * s, as: UInt32.self) }
        let q0 = weights(0), q1 = weights(1), q2 = weights(2), q3 = weights(3)
        let nibble: UInt32 = 0x0F0F_0F0F, two: UInt32 = 0x0303_0303
        // Under C's bits 0…3 (in `C << 2`) lie bits 0…3 of A's next byte; under bits 4…7 (in
        // `C >> 2`), B's.
        let c = (q2 &>> 2 ^ q0 &>> 8) & nibble | ((q3 &>> 2 ^ q1 &>> 8) & nibble) &<< 4
        // Under A's bits 6…7 (in `A >> 6`) lie bits 6…7 of C's previous byte; under B's, bits
        // 2…3 of C's own.
        let a = q0 | (q2 & two ^ c &<< 2 & two) &<< 6
        let b = q1 | (q3 & two ^ c &>> 2 & two) &<< 6
        return (a, b, c)
    }

    /// The four weight vectors of a sub-block from its words A, B, C: what the kernel
    /// computes, for any lane type (a row's words, or sixteen rows').
    @inline(__always)
    static func subBlockWeights<Lanes: SIMD>(_ a: Lanes, _ b: Lanes, _ c: Lanes) -> (Lanes, Lanes, Lanes, Lanes)
    where Lanes.Scalar == UInt32 {
        let six = Lanes(repeating: 0x3F3F_3F3F)
        return (a & six, b & six, (a &>> 6 ^ c &<< 2) & six, (b &>> 6 ^ c &>> 2) & six)
    }

    /// The 6-bit value of weight `16m + 4s + i` of row `r` in a column.
    @inline(__always)
    static func groupValue(_ column: UnsafeRawPointer, row r: Int, _ m: Int, _ s: Int, _ i: Int) -> UInt8 {
        let base = groupWeightsOffset + groupSubBlockBytes * m + 4 * r
        @inline(__always) func word(_ k: Int) -> SIMD2<UInt32> { SIMD2(column.loadUnaligned(fromByteOffset: base + 64 * k, as: UInt32.self), 0) }
        let w = subBlockWeights(word(0), word(1), word(2))
        let vector = s == 0 ? w.0 : s == 1 ? w.1 : s == 2 ? w.2 : w.3
        return UInt8(truncatingIfNeeded: vector[0] &>> UInt32(8 * i))
    }

    public static func deinterleave(column: UnsafeRawPointer, row r: Int, into destination: UnsafeMutableRawPointer) {
        destination.storeBytes(of: column.loadUnaligned(fromByteOffset: 2 * r, as: UInt16.self), toByteOffset: dOffset, as: UInt16.self)
        for s in 0..<16 {
            destination.storeBytes(of: column.byte(at: groupScalesOffset + 64 * (s / 4) + 4 * r + s % 4),
                                   toByteOffset: scalesOffset + s, as: UInt8.self)
        }
        for k in 0..<192 { destination.storeBytes(of: 0, toByteOffset: qlOffset + k, as: UInt8.self) }
        for m in 0..<16 {
            for s in 0..<4 {
                for i in 0..<4 {
                    let q = groupValue(column, row: r, m, s, i), w = 16 * m + 4 * s + i
                    let h = w >> 7, n = (w >> 6) & 1, j = (w >> 5) & 3
                    let ql = qlOffset + 64 * h + (w & 63), qh = qhOffset + 32 * h + (w & 31)
                    destination.storeBytes(of: destination.load(fromByteOffset: ql, as: UInt8.self) | (q & 0xF) &<< UInt8(4 * n),
                                           toByteOffset: ql, as: UInt8.self)
                    destination.storeBytes(of: destination.load(fromByteOffset: qh, as: UInt8.self) | (q &>> 4) &<< UInt8(2 * j),
                                           toByteOffset: qh, as: UInt8.self)
                }
            }
        }
    }

    /// Per activation block (two sub-blocks): each sub-block's integer sum of (q − 32) times
    /// the activations, times its signed scale, the two added; then one fused multiply-add
    /// with `d·d_x`.
    public static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float {
        var sum: Float = 0
        for sb in 0..<blocks {
            let column = group + sb * groupColumnBytes
            let d = column.loadHalf(at: 2 * row)
            for b in 0..<8 {
                var integer: Int32 = 0
                for m in 2 * b..<2 * b + 2 {
                    var products: Int32 = 0
                    for s in 0..<4 {
                        for i in 0..<4 {
                            let a = Int32(x.bytes[256 * sb + 16 * m + 4 * s + i])
                            products += (Int32(groupValue(column, row: row, m, s, i)) - 32) * a
                        }
                    }
                    let scale = Int32(Int8(bitPattern: column.byte(at: groupScalesOffset + 64 * (m / 4) + 4 * row + m % 4)))
                    integer += scale * products
                }
                sum = sum.plusProduct(Float(integer), d * x.scales[8 * sb + b])
            }
        }
        return sum
    }
}

#if POCKET_X86_KERNELS
extension Q6_K.X86: RowGroupKernel {
    public typealias Format = Q6_K

    public static func groupDot(_ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float> {
        var sum = SIMD16<Float>()
        var column = group
        for sb in 0..<blocks {
            let d = ByteDot.floats(halves: column.loadUnaligned(as: SIMD16<UInt16>.self))
            for b in 0..<8 {
                ColumnPrefetch.request(after: column, bytes: Q6_K.groupColumnBytes, part: b, of: 8)
                let block = ActivationBlock(column, b)
                block.add(&sum, d, x, sb)
            }
            column += Q6_K.groupColumnBytes
        }
        return sum
    }

    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        var s0 = SIMD16<Float>(), s1 = SIMD16<Float>(), s2 = SIMD16<Float>(), s3 = SIMD16<Float>()
        var column = group
        for sb in 0..<blocks {
            let d = ByteDot.floats(halves: column.loadUnaligned(as: SIMD16<UInt16>.self))
            for b in 0..<8 {
                // Unpacked once for the four vectors.
                let block = ActivationBlock(column, b)
                block.add(&s0, d, x.0, sb); block.add(&s1, d, x.1, sb)
                block.add(&s2, d, x.2, sb); block.add(&s3, d, x.3, sb)
            }
            column += Q6_K.groupColumnBytes
        }
        return (s0, s1, s2, s3)
    }

    /// The two sub-blocks of one activation block (`2b`, `2b + 1`) of a column, unpacked.
    struct ActivationBlock {
        let b: Int
        let low, high: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>)
        let scales: (SIMD16<Int32>, SIMD16<Int32>)

        @inline(__always)
        init(_ column: UnsafeRawPointer, _ b: Int) {
            self.b = b
            low = subBlock(column, 2 * b)
            high = subBlock(column, 2 * b + 1)
            scales = signedScales(column, b)
        }

        /// Adds this block of sixteen rows (super-block scales `d`) times `x` into `sum`, in
        /// the order of ``Q6_K/groupDotReference(_:row:_:blocks:)``.
        @inline(__always)
        func add(_ sum: inout SIMD16<Float>, _ d: SIMD16<Float>, _ x: Q8Vector, _ sb: Int) {
            let integers = subBlockSum(low, x, sb, 2 * b) &* scales.0 &+ subBlockSum(high, x, sb, 2 * b + 1) &* scales.1
            sum.multiplyAdd(ByteDot.floats(integers), d * SIMD16(repeating: x.scales[8 * sb + b]))
        }
    }

    /// Sub-block `m`'s four weight vectors (weights 16m+4s…16m+4s+3 of each row, q ∈ 0…63).
    @inline(__always)
    static func subBlock(_ column: UnsafeRawPointer, _ m: Int) -> (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>) {
        let base = Q6_K.groupWeightsOffset + Q6_K.groupSubBlockBytes * m
        return Q6_K.subBlockWeights(column.loadUnaligned(fromByteOffset: base, as: SIMD16<UInt32>.self),
                                    column.loadUnaligned(fromByteOffset: base + 64, as: SIMD16<UInt32>.self),
                                    column.loadUnaligned(fromByteOffset: base + 128, as: SIMD16<UInt32>.self))
    }

    /// The signed scales of sub-blocks 2b and 2b + 1, each in every lane's row.
    @inline(__always)
    static func signedScales(_ column: UnsafeRawPointer, _ b: Int) -> (SIMD16<Int32>, SIMD16<Int32>) {
        let word = column.loadUnaligned(fromByteOffset: Q6_K.groupScalesOffset + 64 * (b / 2), as: SIMD16<Int32>.self)
        let first = 16 * (b % 2)
        return ((word &<< Int32(24 - first)) &>> 24, (word &<< Int32(16 - first)) &>> 24)
    }

    /// Sub-block `m` of super-block `sb` times `x`: Σ(q − 32)·a, with the offset as the
    /// starting value.
    @inline(__always)
    static func subBlockSum(_ w: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>), _ x: Q8Vector, _ sb: Int, _ m: Int) -> SIMD16<Int32> {
        let a = UnsafeRawPointer(x.bytes + 256 * sb + 16 * m)
        let g = x.groupSums + 64 * sb + 4 * m
        let start = SIMD16<Int32>(repeating: 0 &- ((g[0] &+ g[1]) &+ (g[2] &+ g[3])) &<< 5)
        @inline(__always) func word(_ s: Int) -> SIMD16<UInt32> { SIMD16(repeating: a.loadUnaligned(fromByteOffset: 4 * s, as: UInt32.self)) }
        let p = ByteDot.dot(start, below64: (w.0, w.1), (word(0), word(1)))
        let q = ByteDot.dot(.zero, below64: (w.2, w.3), (word(2), word(3)))
        return p &+ q
    }
}
#endif
