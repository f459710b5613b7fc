// Integer dot product of IQ2_S weights with 8-bit activations.
//
// As IQ2_XS's: one activation block per sub-block of 32, two scales (2ls + 1)/8 per block,
//   Σ d·(2ls_i + 1)/8·w_i·d_b·x_i = (d/8)·d_b·Σ (2ls_i + 1)·w_i·x_i,   w_i = ±grid value
// on integers. Per sub-block the kernel builds the four 10-bit grid indices from four qs bytes
// and one qh byte, loads the grid entries, and takes the four sign bytes as one 32-bit word
// (group l in byte l, the layout IQ2_XXS's lane helper expects); no sign table.

extension IQ2_S: LatticeKernel {
    static var grid: [UInt64] { IQGrids.iq2s }
    static var laneShifts: SIMD16<UInt32> { IQ2_XXS.signShifts }

    @inline(__always)
    static func superBlockScale(_ block: UnsafeRawPointer) -> Float { IntegerLanes.half(block, dOffset) * 0.125 }

    @inline(__always)
    static func subBlockLanes(
        _ block: UnsafeRawPointer, _ ib: Int, _ tables: LatticeTables<UInt64>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        weights(block, ib, tables.grid, tables.shifts, tables.laneShifts)
    }

    /// The 32 weights of sub-block `ib` as `(2ls + 1)·±grid` (each half with its own ls),
    /// lane-ordered: weights 0…15 and 16…31, as two's-complement lanes.
    @inline(__always)
    static func weights(
        _ block: UnsafeRawPointer, _ ib: Int, _ grid: UnsafePointer<UInt64>, _ shifts: SIMD16<UInt32>, _ signShifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let low8 = Int(UInt32(littleEndian: block.loadUnaligned(fromByteOffset: qsOffset + 4 * ib, as: UInt32.self)))
        let s = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: signsOffset + 4 * ib, as: UInt32.self))
        let qh = Int(block.byte(at: qhOffset + ib))
        // Group l's index: byte l of low8, then bits 2l…2l+1 of qh as bits 8…9.
        let g0 = low8 & 0xFF | (qh & 3) &<< 8, g1 = (low8 &>> 8) & 0xFF | (qh &<< 6) & 0x300
        let g2 = (low8 &>> 16) & 0xFF | (qh &<< 4) & 0x300, g3 = low8 &>> 24 | (qh &<< 2) & 0x300
        let packed = UInt32(block.byte(at: scalesOffset + ib))
        let low = IQ2_XXS.signedLanes(grid[g0], grid[g1], signs: s, shifts, signShifts)
        let high = IQ2_XXS.signedLanes(grid[g2], grid[g3], signs: s &>> 16, shifts, signShifts)
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
                let l = 4 * (b % 8) + i / 8
                let ls = Int32(i < 16 ? packed & 0xF : packed >> 4)
                let value = IQ2_XXS.signedValue(
                    IQGrids.iq2s[gridIndex(block, l)], signs: block.load(fromByteOffset: signsOffset + l, as: UInt8.self), i % 8)
                integer += (2 * ls + 1) * value * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * 0.125 * activations.scales[b] * Float(integer)
        }
        return total
    }
}
