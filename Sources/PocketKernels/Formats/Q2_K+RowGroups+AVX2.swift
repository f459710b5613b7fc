// Q2_K's four-vector row-group kernel on AVX2 (the layout: `Q2_K+RowGroups.swift`).
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
// every other Q2_K row-group kernel's: Σ_m sc_m·Σ q·a.

#if POCKET_AVX2
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
        let mask = SIMD8<UInt32>(repeating: 0x0303_0303)
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var column = group
        for sb in 0..<blocks {
            let v0 = UnsafeRawPointer(x.0.superBytes + 256 * sb), v1 = UnsafeRawPointer(x.1.superBytes + 256 * sb)
            let v2 = UnsafeRawPointer(x.2.superBytes + 256 * sb), v3 = UnsafeRawPointer(x.3.superBytes + 256 * sb)
            var i0 = SIMD8<Int32>(), i1 = SIMD8<Int32>(), i2 = SIMD8<Int32>(), i3 = SIMD8<Int32>()
            for k in 0..<4 {
                let scales = vector(column, Q2_K.groupScalesOffset + 64 * k, half) & 0x0F0F_0F0F
                for n in 0..<4 {
                    let m = 4 * k + n
                    let q = vector(column, Q2_K.groupValuesOffset + 64 * m, half)
                    let w = (q & mask, q &>> 2 & mask, q &>> 4 & mask, q &>> 6 & mask)
                    // The scale of sub-block m in the low byte of both 16-bit halves of a lane.
                    let scale = ByteDot.shuffleBytes(scales, picks[n].lowHalf)
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
        sum.addProduct(ByteDot.floats(integers), d * scale)
        sum.addProduct(-(dmin * scale), ByteDot.floats(mins))
    }
}
#endif
