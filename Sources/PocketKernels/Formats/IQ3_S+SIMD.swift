// Integer dot product of IQ3_S weights with 8-bit activations.
//
// Each sub-block of 32 weights is exactly one activation block b (scale a_b):
//   Σ d·(1 + 2·ls)·g_i·s_i·a_b·x_i = d·a_b·Σ (1 + 2·ls)·g_i·s_i·x_i,   s_i = ±1
// and everything right of d·a_b is an integer (each lane sums two products of at most
// 31·15·127). The weights are unpacked as IQ3_XXS's (``IQ3_XXS/signedLanes``): 8 gathered grid
// points per sub-block (9-bit indices: a byte of `qs` and a bit of `qh`), and the sub-block's
// four sign bytes read directly as one word, bit w for weight w.

extension IQ3_S: LatticeKernel {
    static var grid: [UInt32] { IQGrids.iq3s }
    static var laneShifts: SIMD16<UInt32> { IQ3_XXS.signLaneShifts }

    @inline(__always)
    static func superBlockScale(_ block: UnsafeRawPointer) -> Float { IntegerLanes.half(block, dOffset) }

    @inline(__always)
    static func subBlockLanes(
        _ block: UnsafeRawPointer, _ ib: Int, _ tables: LatticeTables<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        weights(block, ib, tables.grid, tables.shifts, tables.laneShifts)
    }

    /// The lane-ordered weights `(1 + 2·ls)·g·s` of sub-block `ib` (0…7) of the super-block at
    /// `block`.
    @inline(__always)
    static func weights(
        _ block: UnsafeRawPointer, _ ib: Int, _ grid: UnsafePointer<UInt32>,
        _ shifts: SIMD16<UInt32>, _ signShifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let q = UInt64(littleEndian: block.loadUnaligned(fromByteOffset: qsOffset + 8 * ib, as: UInt64.self))
        let qh = UInt64(block.byte(at: qhOffset + ib))
        // Index j: byte j of q, plus bit j of qh moved to bit 8.
        @inline(__always) func point(_ j: Int) -> UInt32 {
            let index = q &>> UInt64(8 * j) & 0xFF | (qh &<< UInt64(8 - j)) & 0x100
            return grid[Int(truncatingIfNeeded: index)]
        }
        let scale = 2 &* UInt32(bitPattern: subBlockScale(block, ib)) &+ 1
        return IQ3_XXS.signedLanes(
            SIMD4(point(0), point(1), point(2), point(3)), SIMD4(point(4), point(5), point(6), point(7)),
            signs: signWord(block, ib), scale: scale, shifts, signShifts)
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock, ib = b % 8
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let signs = signWord(block, ib)
            var integer: Int32 = 0
            for i in 0..<32 {
                let point = IQGrids.iq3s[gridIndex(block, ib, i / 4)]
                let g = Int32(point >> UInt32(8 * (i % 4)) & 0xFF)
                let s: Int32 = signs >> UInt32(i) & 1 == 0 ? 1 : -1
                integer += g * s * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * activations.scales[b] * Float((1 + 2 * subBlockScale(block, ib)) * integer)
        }
        return total
    }
}
