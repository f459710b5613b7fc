// Integer dot product of IQ2_XS weights with 8-bit activations.
//
// Each sub-block of 32 weights is one activation block b (scale d_b) with two 4-bit scales,
// one per half of 16; as in IQ2_XXS, (0.5 + ls)·0.25 = (2ls + 1)/8, so
//   Σ d·(2ls_i + 1)/8·w_i·d_b·x_i = (d/8)·d_b·Σ (2ls_i + 1)·w_i·x_i,   w_i = ±grid value
// on integers. Per sub-block the kernel reads four 16-bit group codes (9-bit grid index, 7-bit
// sign index), loads the four grid entries and sign bytes, and builds each half's lanes with
// IQ2_XXS's lane helper, multiplied by that half's 2ls + 1. Products, conversion and
// accumulation are IQ2_XXS's (each lane at most 2·31·43·127, far below 2^22).

extension IQ2_XS: LatticeKernel {
    static var grid: [UInt64] { IQGrids.iq2xs }
    static var laneShifts: SIMD16<UInt32> { IQ2_XXS.signShifts }

    @inline(__always)
    static func superBlockScale(_ block: UnsafeRawPointer) -> Float { IntegerLanes.half(block, dOffset) * 0.125 }

    @inline(__always)
    static func subBlockLanes(
        _ block: UnsafeRawPointer, _ ib: Int, _ tables: LatticeTables<UInt64>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        weights(block, ib, tables.grid, tables.signs, tables.shifts, tables.laneShifts)
    }

    /// The 32 weights of sub-block `ib` as `(2ls + 1)·±grid` (each half with its own ls),
    /// lane-ordered: weights 0…15 and 16…31, as two's-complement lanes.
    @inline(__always)
    static func weights(
        _ block: UnsafeRawPointer, _ ib: Int, _ grid: UnsafePointer<UInt64>, _ signs: UnsafePointer<UInt8>,
        _ shifts: SIMD16<UInt32>, _ signShifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        // The four group codes of the sub-block, group l in bits 16l…16l+15.
        let codes = UInt64(littleEndian: block.loadUnaligned(fromByteOffset: qsOffset + 8 * ib, as: UInt64.self))
        let c0 = Int(truncatingIfNeeded: codes) & 0xFFFF, c1 = Int(truncatingIfNeeded: codes &>> 16) & 0xFFFF
        let c2 = Int(truncatingIfNeeded: codes &>> 32) & 0xFFFF, c3 = Int(truncatingIfNeeded: codes &>> 48)
        let s = UInt32(signs[c0 &>> 9]) | UInt32(signs[c1 &>> 9]) &<< 8
            | UInt32(signs[c2 &>> 9]) &<< 16 | UInt32(signs[c3 &>> 9]) &<< 24
        let packed = UInt32(block.byte(at: scalesOffset + ib))
        let low = IQ2_XXS.signedLanes(grid[c0 & 511], grid[c1 & 511], signs: s, shifts, signShifts)
        let high = IQ2_XXS.signedLanes(grid[c2 & 511], grid[c3 & 511], signs: s &>> 16, shifts, signShifts)
        return (low &* (2 &* (packed & 0xF) &+ 1), high &* (2 &* (packed &>> 4) &+ 1))
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let packed = block.load(fromByteOffset: scalesOffset + b % 8, as: UInt8.self)
            var integer: Int32 = 0
            for i in 0..<32 {
                let code = groupCode(block, 4 * (b % 8) + i / 8)
                let ls = Int32(i < 16 ? packed & 0xF : packed >> 4)
                let value = IQ2_XXS.signedValue(IQGrids.iq2xs[Int(code & 511)], signs: IQGrids.signs[Int(code >> 9)], i % 8)
                integer += (2 * ls + 1) * value * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * 0.125 * activations.scales[b] * Float(integer)
        }
        return total
    }
}
