// Q4_K's four-vector row-group kernel in 256-bit halves, for the tiers without 512-bit vectors
// (AVX2, SSE2; the layout: `Q4_K+RowGroups.swift`). Written for AVX2, whose instructions these are.
//
// AVX-512's kernel multiplies the high nibbles masked in place (16q ≤ 240) with one
// `vpdpbusd`; on AVX2 a byte of 128 or more needs the even and odd bytes' two products, and
// its sixteen rows' sums and eight chains spill most of the sixteen registers. Here instead:
// - each half of a group (rows 0…7, then 8…15) is a pass of its own;
// - the high nibbles are shifted down, so every weight is below 16 and four `vpmaddubsw`
//   results add in 16 bits before one `vpmaddwd` (``ByteDot/dot(_:below32:_:)-(SIMD8<Int32>,_,_)``);
// - the low nibbles of four words meet the four vectors, then their high nibbles do, so four
//   weight registers serve eight accumulators.
// The integer sums per sub-block are the same as the reference's, and so is every float
// operation after them.

#if POCKET_X86_KERNELS && !POCKET_512BIT_VECTORS
extension Q4_K.X86 {
    /// The sixteen rows of a group times `x`, in two passes of eight rows. A sub-block's eight
    /// words of nibbles (weights below 16) add in 16 bits, and its scale multiplies the sums in
    /// the `vpmaddwd` that widens them: two `vpmaddubsw` and one `vpaddw` per word and
    /// nibble, against the even and odd bytes' products of the high nibbles masked in place
    /// and a `vpmulld` per sub-block of the sixteen-row kernel.
    public static func groupDot(_ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float> {
        let low = halfGroupDot(group, half: 0, x, blocks: blocks), high = halfGroupDot(group, half: 1, x, blocks: blocks)
        return SIMD16(lowHalf: low, highHalf: high)
    }

    /// Rows `8·half`…`8·half + 7` of a group times `x`.
    @inline(__always)
    static func halfGroupDot(_ group: UnsafeRawPointer, half: Int, _ x: Q8Vector, blocks: Int) -> SIMD8<Float> {
        var sum = SIMD8<Float>()
        var column = group
        for sb in 0..<blocks {
            var u = SIMD8<Float>(), v = SIMD8<Float>()
            // Written out, as the sixteen-row kernel.
            addPair(0, column, half, x, sb, &u, &v); addPair(1, column, half, x, sb, &u, &v)
            addPair(2, column, half, x, sb, &u, &v); addPair(3, column, half, x, sb, &u, &v)
            let d = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 16 * half, as: SIMD8<UInt16>.self))
            let dmin = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32 + 16 * half, as: SIMD8<UInt16>.self))
            sum.multiplyAdd(d, u)
            sum.multiplyAdd(-dmin, v)
            column += Q4_K.groupColumnBytes
        }
        return sum
    }

    /// Adds sub-blocks 2c and 2c + 1 of super-block `sb` (rows of half `half`) times `x` into
    /// `u` (scales) and `v` (mins), in the order of ``HalfPairScales/add(_:_:_:_:_:_:)``.
    @inline(__always)
    static func addPair(
        _ c: Int, _ column: UnsafeRawPointer, _ half: Int, _ x: Q8Vector, _ sb: Int, _ u: inout SIMD8<Float>, _ v: inout SIMD8<Float>
    ) {
        // The first pass reads the columns from memory, the second from the cache.
        if half == 0 { ColumnPrefetch.request(after: column, bytes: Q4_K.groupColumnBytes, part: c, of: 4) }
        let scales = HalfPairScales(column, c, half)
        let a = UnsafeRawPointer(x.bytes + 256 * sb + 64 * c)
        let low = ByteDot.dot(below16: nibbles(column, 8 * c, half, shift: 0), words(a, 0),
                              nibbles(column, 8 * c + 4, half, shift: 0), words(a, 4), times: HalfPairScales.multiplier(scales.scale0))
        let high = ByteDot.dot(below16: nibbles(column, 8 * c, half, shift: 4), words(a, 8),
                               nibbles(column, 8 * c + 4, half, shift: 4), words(a, 12), times: HalfPairScales.multiplier(scales.scale1))
        scales.add(&u, &v, scaled: low, high, x, 8 * sb + 2 * c)
    }

    #if !POCKET_WIDENED_COLUMNS  // SSE2 widens the columns (`WidenedColumns+SSE2.swift`)
    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        inTwoPasses { halfGroupDot4(group, half: $0, x, blocks: blocks) }
    }
    #endif

    /// Rows `8·half`…`8·half + 7` of a group times four vectors: the 32 bytes at `32·half` of
    /// each 64-byte vector of a column (one 32-bit lane per row), the 16 at `16·half` of the
    /// fp16 fields.
    @inline(__always)
    static func halfGroupDot4(_ group: UnsafeRawPointer, half: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var column = group
        for sb in 0..<blocks {
            var u = FourLanes(), v = FourLanes()
            // Written out, as in groupDot; a static function, not a nested one: the nested
            // one's captured sums were checked for exclusive access at run time.
            addPair(0, column, half, x, sb, &u, &v); addPair(1, column, half, x, sb, &u, &v)
            addPair(2, column, half, x, sb, &u, &v); addPair(3, column, half, x, sb, &u, &v)
            let d = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 16 * half, as: SIMD8<UInt16>.self))
            let dmin = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32 + 16 * half, as: SIMD8<UInt16>.self))
            s0.multiplyAdd(d, u.l0); s0.multiplyAdd(-dmin, v.l0)
            s1.multiplyAdd(d, u.l1); s1.multiplyAdd(-dmin, v.l1)
            s2.multiplyAdd(d, u.l2); s2.multiplyAdd(-dmin, v.l2)
            s3.multiplyAdd(d, u.l3); s3.multiplyAdd(-dmin, v.l3)
            column += Q4_K.groupColumnBytes
        }
        return (s0, s1, s2, s3)
    }

    /// Four vectors' sums over eight rows.
    struct FourLanes {
        var l0 = SIMD8<Float>(), l1 = SIMD8<Float>(), l2 = SIMD8<Float>(), l3 = SIMD8<Float>()
    }

    /// Adds sub-blocks 2c and 2c + 1 of super-block `sb` (rows of half `half`) times the
    /// four vectors into their sums `u` (scales) and `v` (mins).
    @inline(__always)
    static func addPair(
        _ c: Int, _ column: UnsafeRawPointer, _ half: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), _ sb: Int,
        _ u: inout FourLanes, _ v: inout FourLanes
    ) {
        let scales = HalfPairScales(column, c, half)
        let a0 = UnsafeRawPointer(x.0.bytes + 256 * sb + 64 * c), a1 = UnsafeRawPointer(x.1.bytes + 256 * sb + 64 * c)
        let a2 = UnsafeRawPointer(x.2.bytes + 256 * sb + 64 * c), a3 = UnsafeRawPointer(x.3.bytes + 256 * sb + 64 * c)
        var l0 = SIMD8<Int32>(), h0 = SIMD8<Int32>(), l1 = SIMD8<Int32>(), h1 = SIMD8<Int32>()
        var l2 = SIMD8<Int32>(), h2 = SIMD8<Int32>(), l3 = SIMD8<Int32>(), h3 = SIMD8<Int32>()
        for j in stride(from: 0, to: 8, by: 4) {
            let w = nibbles(column, 8 * c + j, half, shift: 0)
            l0 = ByteDot.dot(l0, below32: w, words(a0, j)); l1 = ByteDot.dot(l1, below32: w, words(a1, j))
            l2 = ByteDot.dot(l2, below32: w, words(a2, j)); l3 = ByteDot.dot(l3, below32: w, words(a3, j))
            let h = nibbles(column, 8 * c + j, half, shift: 4)
            h0 = ByteDot.dot(h0, below32: h, words(a0, 8 + j)); h1 = ByteDot.dot(h1, below32: h, words(a1, 8 + j))
            h2 = ByteDot.dot(h2, below32: h, words(a2, 8 + j)); h3 = ByteDot.dot(h3, below32: h, words(a3, 8 + j))
        }
        let b = 8 * sb + 2 * c
        scales.add(&u.l0, &v.l0, l0, h0, x.0, b); scales.add(&u.l1, &v.l1, l1, h1, x.1, b)
        scales.add(&u.l2, &v.l2, l2, h2, x.2, b); scales.add(&u.l3, &v.l3, l3, h3, x.3, b)
    }

    /// The nibbles at bit `shift` (0: sub-block 2c, 4: sub-block 2c + 1) of words k…k+3 of a
    /// column, rows of half `half`: four weights per lane each, all below 16.
    @inline(__always)
    static func nibbles(_ column: UnsafeRawPointer, _ k: Int, _ half: Int, shift: UInt32)
        -> (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>) {
        @inline(__always) func word(_ i: Int) -> SIMD8<UInt32> {
            column.loadUnaligned(fromByteOffset: Q4_K.groupWeightsOffset + 64 * (k + i) + 32 * half, as: SIMD8<UInt32>.self)
                &>> shift & 0x0F0F_0F0F
        }
        return (word(0), word(1), word(2), word(3))
    }

    /// Activation words k…k+3 from `a`, each in every lane.
    @inline(__always)
    static func words(_ a: UnsafeRawPointer, _ k: Int) -> (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>) {
        @inline(__always) func word(_ i: Int) -> SIMD8<UInt32> {
            SIMD8(repeating: a.loadUnaligned(fromByteOffset: 4 * (k + i), as: UInt32.self))
        }
        return (word(0), word(1), word(2), word(3))
    }

    /// ``Q4_K/X86/PairScales`` for the eight rows of half `half`.
    struct HalfPairScales {
        let scale0, scale1: SIMD8<Int32>
        let min0, min1: SIMD8<Float>

        @inline(__always)
        init(_ column: UnsafeRawPointer, _ c: Int, _ half: Int) {
            let packed = column.loadUnaligned(fromByteOffset: Q4_K.groupScalesOffset + 64 * (c / 2) + 32 * half, as: SIMD8<UInt32>.self)
            let nibbles = column.loadUnaligned(fromByteOffset: Q4_K.groupMinsOffset + 32 * half, as: SIMD8<UInt32>.self)
            @inline(__always) func scale(_ n: Int) -> SIMD8<Int32> {
                unsafeBitCast(packed &>> UInt32(8 * n) & 0x3F, to: SIMD8<Int32>.self)
            }
            @inline(__always) func min(_ s: Int) -> SIMD8<Float> {
                let low = nibbles &>> UInt32(4 * s) & 0xF, high = packed &>> UInt32(8 * (s % 4) + 2) & 0x30
                return ByteDot.floats(unsafeBitCast(low | high, to: SIMD8<Int32>.self))
            }
            let n = 2 * (c % 2)
            scale0 = scale(n); scale1 = scale(n + 1)
            min0 = min(2 * c); min1 = min(2 * c + 1)
        }

        /// ``Q4_K/X86/PairScales/add(_:_:_:_:_:_:)`` for eight rows.
        @inline(__always)
        func add(_ u: inout SIMD8<Float>, _ v: inout SIMD8<Float>, _ low: SIMD8<Int32>, _ high: SIMD8<Int32>, _ x: Q8Vector, _ b: Int) {
            add(&u, &v, scaled: low &* scale0, high &* scale1, x, b)
        }

        /// ``add(_:_:_:_:_:_:)`` for sums already multiplied by their scales.
        @inline(__always)
        func add(_ u: inout SIMD8<Float>, _ v: inout SIMD8<Float>, scaled low: SIMD8<Int32>, _ high: SIMD8<Int32>, _ x: Q8Vector, _ b: Int) {
            u.multiplyAdd(ByteDot.floats(low), SIMD8(repeating: x.scales[b]))
            v.multiplyAdd(min0, SIMD8(repeating: x.blockSums[b]))
            u.multiplyAdd(ByteDot.floats(high), SIMD8(repeating: x.scales[b + 1]))
            v.multiplyAdd(min1, SIMD8(repeating: x.blockSums[b + 1]))
        }

        /// A scale (below 64) in both 16-bit halves of each lane: the multiplier of
        /// ``ByteDot/dot(below16:_:_:_:times:)``.
        @inline(__always)
        static func multiplier(_ scale: SIMD8<Int32>) -> SIMD8<UInt32> {
            let s = unsafeBitCast(scale, to: SIMD8<UInt32>.self)
            return s | s &<< 16
        }
    }
}
#endif
