// Q2_K's four-vector row-group kernel in 256-bit halves, for the tiers without 512-bit vectors
// (AVX2, SSE2; the layout: `Q2_K+RowGroups.swift`). Written for AVX2, whose figures these are;
// on SSE2 each 256-bit value is two of its sixteen registers.
//
// AVX-512's kernel scales the weights as bytes (`vpmullw`) and then runs `vpdpbusd` chains, all
// sixteen rows in one register. On AVX2 the same plan needs two registers per value and spills
// most of its accumulators (16 vector registers, not 32), and each `vpdpbusd` becomes three
// instructions. Here instead:
// - each half of a group (rows 0…7, then 8…15) is a pass of its own, so the four vectors'
//   accumulators, the four weight vectors and the scale fit the sixteen registers;
// - a sub-block's four `vpmaddubsw` results are added in 16 bits (each sum at most
//   8·3·128 = 3072), and the `vpmaddwd` that widens the sum multiplies it by the sub-block's
//   scale at the same time, so the scale costs no multiply of its own.
// Five multiplies per sub-block and vector instead of seven, and the integers are the same as
// every other Q2_K row-group kernel's: Σ_m sc_m·Σ q·a. `groupDot8` runs the same passes with
// eight vectors' sums, so a sub-block's unpacking and scale pick serve eight vectors: 3B prefill
// (pp512, alternating `pocket-bench` runs) 45.7–47.0 → 48.8–49.7 tokens/s.

#if POCKET_X86_KERNELS && !POCKET_512BIT_VECTORS
extension Q2_K.X86 {
    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        inTwoPasses { halfGroupDot4(group, half: $0, x, blocks: blocks) }
    }

    /// Rows `8·half`…`8·half + 7` of a group times four vectors. Every vector of a column
    /// holds one 32-bit lane per row, so a half is the 32 bytes at `32·half` of each
    /// 64-byte vector (and the 16 bytes at `16·half` of the fp16 fields).
    @inline(__always)
    static func halfGroupDot4(_ group: UnsafeRawPointer, half: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        let picks = GroupScalePicks()
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var column = group
        for sb in 0..<blocks {
            let v0 = UnsafeRawPointer(x.0.superBytes + 256 * sb), v1 = UnsafeRawPointer(x.1.superBytes + 256 * sb)
            let v2 = UnsafeRawPointer(x.2.superBytes + 256 * sb), v3 = UnsafeRawPointer(x.3.superBytes + 256 * sb)
            var i0 = SIMD8<Int32>(), i1 = SIMD8<Int32>(), i2 = SIMD8<Int32>(), i3 = SIMD8<Int32>()
            for k in 0..<4 {
                let scales = vector(column, Q2_K.groupScalesOffset + 64 * k, half) & 0x0F0F_0F0F
                for n in 0..<4 {
                    let m = 4 * k + n, (w, scale) = subBlock(column, m, half, scales, picks[n])
                    i0 = ByteDot.dot(i0, below32: w, words(v0, m), times: scale)
                    i1 = ByteDot.dot(i1, below32: w, words(v1, m), times: scale)
                    i2 = ByteDot.dot(i2, below32: w, words(v2, m), times: scale)
                    i3 = ByteDot.dot(i3, below32: w, words(v3, m), times: scale)
                }
            }
            // The mins in a loop of their own (their scale vectors read again from the first-level
            // cache): four more sums in the loop above would not fit the registers.
            var m0 = SIMD8<Int32>(), m1 = SIMD8<Int32>(), m2 = SIMD8<Int32>(), m3 = SIMD8<Int32>()
            for k in 0..<4 {
                let mins = vector(column, Q2_K.groupScalesOffset + 64 * k, half) &>> 4 & 0x0F0F_0F0F
                m0 = addMins(m0, mins, UnsafeRawPointer(x.0.pairedSubBlockSums + 16 * sb), k)
                m1 = addMins(m1, mins, UnsafeRawPointer(x.1.pairedSubBlockSums + 16 * sb), k)
                m2 = addMins(m2, mins, UnsafeRawPointer(x.2.pairedSubBlockSums + 16 * sb), k)
                m3 = addMins(m3, mins, UnsafeRawPointer(x.3.pairedSubBlockSums + 16 * sb), k)
            }
            let d = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 16 * half, as: SIMD8<UInt16>.self))
            let dmin = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32 + 16 * half, as: SIMD8<UInt16>.self))
            add(&s0, i0, m0, d, dmin, x.0.superScales[sb]); add(&s1, i1, m1, d, dmin, x.1.superScales[sb])
            add(&s2, i2, m2, d, dmin, x.2.superScales[sb]); add(&s3, i3, m3, d, dmin, x.3.superScales[sb])
            column += Q2_K.groupColumnBytes
        }
        return (s0, s1, s2, s3)
    }

    /// Eight vectors: the four-vector kernel's passes with eight sums each, so that each
    /// column's unpacking (seven instructions per sub-block and half) and scale pick serve
    /// eight vectors instead of four. Written out like the four-vector one rather than shared
    /// with it through a loop over a count: with the count a parameter, even a constant one
    /// after inlining, the sums went through memory (3B pp512 40–45 against 47 tokens/s).
    public static func groupDot8(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, blocks: Int, into output: UnsafeMutablePointer<Float>, stride: Int) {
        halfGroupDot8(group, half: 0, x, blocks: blocks, into: output, stride: stride)
        halfGroupDot8(group, half: 1, x, blocks: blocks, into: output + 8, stride: stride)
    }

    /// Rows `8·half`…`8·half + 7` of a group times the eight vectors `x[0..<8]`: vector `k`'s
    /// eight sums stored at `output + k · stride`.
    @inline(__always)
    static func halfGroupDot8(
        _ group: UnsafeRawPointer, half: Int, _ x: UnsafePointer<Q8Vector>, blocks: Int, into output: UnsafeMutablePointer<Float>, stride: Int
    ) {
        let picks = GroupScalePicks()
        let x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3], x4 = x[4], x5 = x[5], x6 = x[6], x7 = x[7]
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var s4 = SIMD8<Float>(), s5 = SIMD8<Float>(), s6 = SIMD8<Float>(), s7 = SIMD8<Float>()
        var column = group
        for sb in 0..<blocks {
            @inline(__always) func bytes(_ x: Q8Vector) -> UnsafeRawPointer { UnsafeRawPointer(x.superBytes + 256 * sb) }
            let v0 = bytes(x0), v1 = bytes(x1), v2 = bytes(x2), v3 = bytes(x3)
            let v4 = bytes(x4), v5 = bytes(x5), v6 = bytes(x6), v7 = bytes(x7)
            var i0 = SIMD8<Int32>(), i1 = SIMD8<Int32>(), i2 = SIMD8<Int32>(), i3 = SIMD8<Int32>()
            var i4 = SIMD8<Int32>(), i5 = SIMD8<Int32>(), i6 = SIMD8<Int32>(), i7 = SIMD8<Int32>()
            for k in 0..<4 {
                let scales = vector(column, Q2_K.groupScalesOffset + 64 * k, half) & 0x0F0F_0F0F
                for n in 0..<4 {
                    let m = 4 * k + n, (w, scale) = subBlock(column, m, half, scales, picks[n])
                    i0 = ByteDot.dot(i0, below32: w, words(v0, m), times: scale)
                    i1 = ByteDot.dot(i1, below32: w, words(v1, m), times: scale)
                    i2 = ByteDot.dot(i2, below32: w, words(v2, m), times: scale)
                    i3 = ByteDot.dot(i3, below32: w, words(v3, m), times: scale)
                    i4 = ByteDot.dot(i4, below32: w, words(v4, m), times: scale)
                    i5 = ByteDot.dot(i5, below32: w, words(v5, m), times: scale)
                    i6 = ByteDot.dot(i6, below32: w, words(v6, m), times: scale)
                    i7 = ByteDot.dot(i7, below32: w, words(v7, m), times: scale)
                }
            }
            // The mins in a loop of their own, as in the four-vector kernel.
            var m0 = SIMD8<Int32>(), m1 = SIMD8<Int32>(), m2 = SIMD8<Int32>(), m3 = SIMD8<Int32>()
            var m4 = SIMD8<Int32>(), m5 = SIMD8<Int32>(), m6 = SIMD8<Int32>(), m7 = SIMD8<Int32>()
            for k in 0..<4 {
                let mins = vector(column, Q2_K.groupScalesOffset + 64 * k, half) &>> 4 & 0x0F0F_0F0F
                @inline(__always) func sums(_ x: Q8Vector) -> UnsafeRawPointer { UnsafeRawPointer(x.pairedSubBlockSums + 16 * sb) }
                m0 = addMins(m0, mins, sums(x0), k); m1 = addMins(m1, mins, sums(x1), k)
                m2 = addMins(m2, mins, sums(x2), k); m3 = addMins(m3, mins, sums(x3), k)
                m4 = addMins(m4, mins, sums(x4), k); m5 = addMins(m5, mins, sums(x5), k)
                m6 = addMins(m6, mins, sums(x6), k); m7 = addMins(m7, mins, sums(x7), k)
            }
            let d = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 16 * half, as: SIMD8<UInt16>.self))
            let dmin = ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32 + 16 * half, as: SIMD8<UInt16>.self))
            add(&s0, i0, m0, d, dmin, x0.superScales[sb]); add(&s1, i1, m1, d, dmin, x1.superScales[sb])
            add(&s2, i2, m2, d, dmin, x2.superScales[sb]); add(&s3, i3, m3, d, dmin, x3.superScales[sb])
            add(&s4, i4, m4, d, dmin, x4.superScales[sb]); add(&s5, i5, m5, d, dmin, x5.superScales[sb])
            add(&s6, i6, m6, d, dmin, x6.superScales[sb]); add(&s7, i7, m7, d, dmin, x7.superScales[sb])
            column += Q2_K.groupColumnBytes
        }
        @inline(__always) func store(_ s: SIMD8<Float>, _ k: Int) {
            UnsafeMutableRawPointer(output + k * stride).storeBytes(of: s, as: SIMD8<Float>.self)
        }
        store(s0, 0); store(s1, 1); store(s2, 2); store(s3, 3); store(s4, 4); store(s5, 5); store(s6, 6); store(s7, 7)
    }

    /// Sub-block `m` of a column's rows of half `half`: its four weight vectors (shifts 0, 2,
    /// 4, 6; one weight per byte) and its scale, picked from `scales` (the scales of sub-blocks
    /// 4k…4k+3) by `pick` into the low byte of both 16-bit halves of each lane.
    @inline(__always)
    static func subBlock(_ column: UnsafeRawPointer, _ m: Int, _ half: Int, _ scales: SIMD8<UInt32>, _ pick: SIMD16<UInt32>)
        -> (weights: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>), scale: SIMD8<UInt32>) {
        let mask = SIMD8<UInt32>(repeating: 0x0303_0303)
        let q = vector(column, Q2_K.groupValuesOffset + 64 * m, half)
        return ((q & mask, q &>> 2 & mask, q &>> 4 & mask, q &>> 6 & mask), ByteDot.shuffleBytes(scales, pick.lowHalf))
    }

    /// The half `half` of the 64-byte vector at `offset` of a column.
    @inline(__always)
    static func vector(_ column: UnsafeRawPointer, _ offset: Int, _ half: Int) -> SIMD8<UInt32> {
        column.loadUnaligned(fromByteOffset: offset + 32 * half, as: SIMD8<UInt32>.self)
    }

    /// The four activation words of sub-block `m` (shifts 0…3, see ``word(_:_:_:)``), each in
    /// every lane.
    @inline(__always)
    static func words(_ v: UnsafeRawPointer, _ m: Int) -> (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>) {
        let position = 64 * ((m >> 1) & 3) + 32 * (m >> 3) + 16 * (m & 1)
        @inline(__always) func word(_ s: Int) -> SIMD8<UInt32> {
            SIMD8(repeating: v.loadUnaligned(fromByteOffset: position + 4 * s, as: UInt32.self))
        }
        return (word(0), word(1), word(2), word(3))
    }

    /// ``addMins(_:_:_:_:)-(SIMD16<Int32>,_,_,_)`` for eight rows.
    @inline(__always)
    static func addMins(_ accumulator: SIMD8<Int32>, _ mins: SIMD8<UInt32>, _ sums: UnsafeRawPointer, _ k: Int) -> SIMD8<Int32> {
        let even = mins & 0x00FF_00FF, odd = mins &>> 8 & 0x00FF_00FF
        let evenSums = SIMD8(repeating: sums.loadUnaligned(fromByteOffset: 8 * k, as: UInt32.self))
        let oddSums = SIMD8(repeating: sums.loadUnaligned(fromByteOffset: 8 * k + 4, as: UInt32.self))
        return ByteDot.dotHalves(ByteDot.dotHalves(accumulator, even, evenSums), odd, oddSums)
    }

    /// ``add(_:_:_:_:_:)`` for eight rows, their `d` and `dmin` already converted.
    @inline(__always)
    static func add(
        _ sum: inout SIMD8<Float>, _ integers: SIMD8<Int32>, _ mins: SIMD8<Int32>, _ d: SIMD8<Float>, _ dmin: SIMD8<Float>,
        _ superScale: Float
    ) {
        let scale = SIMD8<Float>(repeating: superScale)
        sum.multiplyAdd(ByteDot.floats(integers), d * scale)
        sum.multiplyAdd(-(dmin * scale), ByteDot.floats(mins))
    }
}
#endif
