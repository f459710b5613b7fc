// Q2_K's eight-vector product in 256-bit halves (the tiers without 512-bit vectors: AVX2, SSE2)
// over a tile of groups, one column (super-block) at a time. The figures below are AVX2's.
//
// The group-by-group kernel (`Q2_K+RowGroups+HalfWidth.swift`) broadcasts each activation word into
// the eight lanes it meets (`vpbroadcastd`): 32 broadcasts per sub-block and half-group for
// eight vectors, against 80 other vector instructions. On Zen 3 a broadcast from memory takes a
// vector pipe like an arithmetic instruction; reading the words already broadcast (a plain load,
// or a memory operand of `vpmaddubsw`) made the four-vector kernel 21% faster in cache
// (`pocket-bench kernels`, 85 → 103 G weights/s). Broadcast words take eight times the bytes, and
// read from the second-level cache the same kernel ran at 44: they must stay in the first.
// So here the loops are turned around: for each column, the eight vectors' words of that
// super-block (and the pairs of sub-block sums the mins meet) are broadcast once into an 18 KB
// buffer, and every group of the tile reads them from there; each group's sums wait in memory
// between columns. The integers and the order of the float steps are those of `groupDot8`, so
// the sums are the same bit for bit.

#if POCKET_X86_KERNELS && !POCKET_512BIT_VECTORS
extension Q2_K.X86 {
    /// A column's broadcast words are written once per tile and read by each of its groups:
    /// sixteen groups at least (the weight-bytes rule alone gives 3,072-column matrices tiles of
    /// eight and 8,192-column ones tiles of three).
    public static var tileGroupsAtLeast: Int { 16 }

    /// Bytes of a column's broadcast words: 64 activation words and 8 words of paired
    /// sub-block sums, for eight vectors, 32 bytes each.
    static let broadcastBytes = 72 * 8 * 32

    public static func tileDot8(
        _ first: UnsafeRawPointer, groupBytes: Int, count: Int, _ x: UnsafePointer<Q8Vector>, blocks: Int,
        into output: UnsafeMutablePointer<Float>, stride: Int
    ) {
        tileByColumns(
            first, groupBytes: groupBytes, columnBytes: Q2_K.groupColumnBytes, count: count, blocks: blocks,
            broadcastBytes: broadcastBytes, into: output, stride: stride,
            groupByGroup: { groupDot8(first + $0 * groupBytes, x, blocks: blocks, into: output + 16 * $0, stride: stride) },
            broadcast: { sb, words in broadcast(x, block: sb, into: words) },
            halfColumn: { column, sb, half, words, sums in halfColumnDot8(column, half: half, words, x, block: sb, sums) })
    }

    /// Super-block `sb` of the eight vectors `x[0..<8]`, each 32-bit word in all eight lanes:
    /// activation word `w` (bytes `4w…4w + 3` of the plane-ordered super-block) of vector `k` at
    /// `32 · (8w + k)`, then word `e` of its paired sub-block sums at `32 · (8 · (64 + e) + k)`.
    @inline(__always)
    static func broadcast(_ x: UnsafePointer<Q8Vector>, block sb: Int, into words: UnsafeMutableRawPointer) {
        for k in 0..<8 {
            let bytes = UnsafeRawPointer(x[k].superBytes + 256 * sb), pairs = UnsafeRawPointer(x[k].pairedSubBlockSums + 16 * sb)
            for w in 0..<64 {
                words.storeBytes(of: SIMD8(repeating: bytes.load(fromByteOffset: 4 * w, as: UInt32.self)),
                                 toByteOffset: 32 * (8 * w + k), as: SIMD8<UInt32>.self)
            }
            for e in 0..<8 {
                words.storeBytes(of: SIMD8(repeating: pairs.load(fromByteOffset: 4 * e, as: UInt32.self)),
                                 toByteOffset: 32 * (8 * (64 + e) + k), as: SIMD8<UInt32>.self)
            }
        }
    }

    /// Rows `8·half`…`8·half + 7` of one column times the eight vectors, added into their running
    /// sums at `sums` (vector `k` at `32k`): ``halfGroupDot8(_:half:_:blocks:into:stride:)``'s
    /// steps for one super-block, the activation words read from `words` (``broadcast(_:block:into:)``).
    @inline(__always)
    static func halfColumnDot8(
        _ column: UnsafeRawPointer, half: Int, _ words: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, block sb: Int,
        _ sums: UnsafeMutableRawPointer
    ) {
        let picks = GroupScalePicks()
        @inline(__always) func word(_ w: Int, _ k: Int) -> SIMD8<UInt32> {
            words.load(fromByteOffset: 32 * (8 * w + k), as: SIMD8<UInt32>.self)
        }
        var i0 = SIMD8<Int32>(), i1 = SIMD8<Int32>(), i2 = SIMD8<Int32>(), i3 = SIMD8<Int32>()
        var i4 = SIMD8<Int32>(), i5 = SIMD8<Int32>(), i6 = SIMD8<Int32>(), i7 = SIMD8<Int32>()
        for k in 0..<4 {
            let scales = vector(column, Q2_K.groupScalesOffset + 64 * k, half) & 0x0F0F_0F0F
            for n in 0..<4 {
                let m = 4 * k + n, (w, scale) = subBlock(column, m, half, scales, picks[n])
                // Sub-block m's four words (``words(_:_:)``'s positions, in words).
                let p = 16 * ((m >> 1) & 3) + 8 * (m >> 3) + 4 * (m & 1)
                @inline(__always) func four(_ k: Int) -> (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>) {
                    (word(p, k), word(p + 1, k), word(p + 2, k), word(p + 3, k))
                }
                i0 = ByteDot.dot(i0, below32: w, four(0), times: scale)
                i1 = ByteDot.dot(i1, below32: w, four(1), times: scale)
                i2 = ByteDot.dot(i2, below32: w, four(2), times: scale)
                i3 = ByteDot.dot(i3, below32: w, four(3), times: scale)
                i4 = ByteDot.dot(i4, below32: w, four(4), times: scale)
                i5 = ByteDot.dot(i5, below32: w, four(5), times: scale)
                i6 = ByteDot.dot(i6, below32: w, four(6), times: scale)
                i7 = ByteDot.dot(i7, below32: w, four(7), times: scale)
            }
        }
        var m0 = SIMD8<Int32>(), m1 = SIMD8<Int32>(), m2 = SIMD8<Int32>(), m3 = SIMD8<Int32>()
        var m4 = SIMD8<Int32>(), m5 = SIMD8<Int32>(), m6 = SIMD8<Int32>(), m7 = SIMD8<Int32>()
        for k in 0..<4 {
            let mins = vector(column, Q2_K.groupScalesOffset + 64 * k, half) &>> 4 & 0x0F0F_0F0F
            let even = mins & 0x00FF_00FF, odd = mins &>> 8 & 0x00FF_00FF
            // As ``addMins(_:_:_:_:)-(SIMD8<Int32>,_,_,_)``: sub-blocks 4k and 4k+2, then 4k+1 and 4k+3.
            @inline(__always) func addMins(_ accumulator: SIMD8<Int32>, _ v: Int) -> SIMD8<Int32> {
                ByteDot.dotHalves(ByteDot.dotHalves(accumulator, even, word(64 + 2 * k, v)), odd, word(64 + 2 * k + 1, v))
            }
            m0 = addMins(m0, 0); m1 = addMins(m1, 1); m2 = addMins(m2, 2); m3 = addMins(m3, 3)
            m4 = addMins(m4, 4); m5 = addMins(m5, 5); m6 = addMins(m6, 6); m7 = addMins(m7, 7)
        }
        let d = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 16 * half, as: SIMD8<UInt16>.self))
        let dmin = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32 + 16 * half, as: SIMD8<UInt16>.self))
        @inline(__always) func add(_ k: Int, _ integers: SIMD8<Int32>, _ mins: SIMD8<Int32>) {
            var s = sums.load(fromByteOffset: 32 * k, as: SIMD8<Float>.self)
            Self.add(&s, integers, mins, d, dmin, x[k].superScales[sb])
            sums.storeBytes(of: s, toByteOffset: 32 * k, as: SIMD8<Float>.self)
        }
        add(0, i0, m0); add(1, i1, m1); add(2, i2, m2); add(3, i3, m3)
        add(4, i4, m4); add(5, i5, m5); add(6, i6, m6); add(7, i7, m7)
    }
}
#endif
