// Integer dot product of IQ2_XXS weights with 8-bit activations.
//
// Each sub-block of 32 weights is exactly one activation block b (scale d_b), and its scale
// (0.5 + ls)·0.25 is (2ls + 1)/8, so
//   Σ d·(2ls + 1)/8·w_i·d_b·x_i = (d/8)·d_b·Σ (2ls + 1)·w_i·x_i,   w_i = ±grid value
// with the whole Σ on integers. Per sub-block the kernel loads the four groups' grid entries
// (one UInt64 each, magnitude j in byte j) and looks up their four sign bytes, then spreads
// each pair of groups over sixteen 32-bit lanes in lane order as Q4_0's bytes are (repeat,
// per-lane shift, mask), negates the lanes whose sign bit is set (a per-lane shift picks each
// lane's bit), and multiplies by 2ls + 1. The rest is IQ4_XS's: exact integer products (each
// lane sums two of at most 31·43·127, far below the 2^22 that converts exactly), one float
// multiply-add per block by (d/8)·d_b, one sum at the end. The lane helpers are shared with
// IQ2_XS and IQ2_S.

extension IQ2_XXS: LatticeKernel {
    /// Per-lane shifts that bring sign bit `4m + k` (weight `4m + k` of a half block) to the
    /// bottom of lane `4k + m`, the lane-order position of that weight.
    static let signShifts = SIMD16<UInt32>(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15)

    static var grid: [UInt64] { IQGrids.iq2xxs }
    static var laneShifts: SIMD16<UInt32> { signShifts }

    @inline(__always)
    static func superBlockScale(_ block: UnsafeRawPointer) -> Float { IntegerLanes.half(block, dOffset) * 0.125 }

    @inline(__always)
    static func subBlockLanes(
        _ block: UnsafeRawPointer, _ ib: Int, _ tables: LatticeTables<UInt64>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        weights(block, ib, tables.grid, tables.signs, tables.shifts, tables.laneShifts)
    }

    /// The 32 weights of sub-block `ib` as `(2ls + 1)·±grid`, lane-ordered: weights 0…15 and
    /// 16…31, as two's-complement lanes.
    @inline(__always)
    static func weights(
        _ block: UnsafeRawPointer, _ ib: Int, _ grid: UnsafePointer<UInt64>, _ signs: UnsafePointer<UInt8>,
        _ shifts: SIMD16<UInt32>, _ signShifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let (indices, aux) = subBlockWords(block, ib)
        // The four groups' sign bytes, group l in byte l: bit 8l + j negates value j of group l.
        let s = UInt32(signs[Int(aux & 127)]) | UInt32(signs[Int((aux &>> 7) & 127)]) &<< 8
            | UInt32(signs[Int((aux &>> 14) & 127)]) &<< 16 | UInt32(signs[Int((aux &>> 21) & 127)]) &<< 24
        let scale = 2 &* (aux &>> 28) &+ 1
        let low = signedLanes(grid[Int(indices & 0xFF)], grid[Int((indices &>> 8) & 0xFF)], signs: s, shifts, signShifts)
        let high = signedLanes(grid[Int((indices &>> 16) & 0xFF)], grid[Int(indices &>> 24)], signs: s &>> 16, shifts, signShifts)
        return (low &* scale, high &* scale)
    }

    /// The 16 values of two groups of 8 (`first`: weights 0…7, `second`: 8…15 of a half
    /// block, magnitude j in byte j), lane-ordered, each negated where its bit of the low 16
    /// bits of `signs` is set, as two's-complement lanes. Shared with ``IQ2_XS`` and ``IQ2_S``.
    @inline(__always)
    static func signedLanes(
        _ first: UInt64, _ second: UInt64, signs: UInt32, _ shifts: SIMD16<UInt32>, _ signShifts: SIMD16<UInt32>
    ) -> SIMD16<UInt32> {
        // Weight 4m + k is byte k of word m of the two groups, so lane 4k + m takes it as Q4_0's do.
        let words = SIMD4<UInt32>(
            UInt32(truncatingIfNeeded: first), UInt32(truncatingIfNeeded: first &>> 32),
            UInt32(truncatingIfNeeded: second), UInt32(truncatingIfNeeded: second &>> 32))
        let magnitudes = (IntegerLanes.repeated(words) &>> shifts) & 0xFF
        // All ones where the sign bit is set: (v ^ −1) − (−1) = −v, else v.
        let negate = SIMD16<UInt32>() &- ((SIMD16(repeating: signs) &>> signShifts) & 1)
        return (magnitudes ^ negate) &- negate
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let (indices, aux) = subBlockWords(block, b % 8)
            var integer: Int32 = 0
            for i in 0..<32 {
                let l = i / 8
                let group = IQGrids.iq2xxs[Int((indices >> UInt32(8 * l)) & 0xFF)]
                let signs = IQGrids.signs[Int((aux >> UInt32(7 * l)) & 127)]
                integer += signedValue(group, signs: signs, i % 8) * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * 0.125 * activations.scales[b] * Float(Int32(2 * (aux >> 28) + 1) * integer)
        }
        return total
    }

    /// Value `j` (0..<8) of a group as a signed integer: byte `j` of `group`, negated where bit
    /// `j` of `signs` is set (for the scalar references).
    static func signedValue(_ group: UInt64, signs: UInt8, _ j: Int) -> Int32 {
        let magnitude = Int32((group >> UInt64(8 * j)) & 0xFF)
        return (signs >> UInt8(j)) & 1 == 0 ? magnitude : -magnitude
    }
}
