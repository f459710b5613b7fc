// Integer dot product of IQ1_M weights with 8-bit activations.
//
// As IQ1_S's kernel (IQ1_S+SIMD.swift): weights in units of 1/8, 8g ± 1, looked up two groups
// at a time into lane order. IQ1_M's side information is finer: the sign of δ changes per group
// of 8 (lanes 4k+0, 4k+1 hold the first group of a half block, 4k+2, 4k+3 the second, so the
// signs are four 32-bit lanes repeated), and the scale 2s + 1 per half block, multiplied into
// the lanes on integers (at most 9·15·127 per product, two per lane). Per activation block:
//   Σ d·(2s_i + 1)·(g_i + δ_i)·d_b·x_i = (d/8)·d_b·Σ (2s_i + 1)·(8g_i ± 1)·x_i,
// then one multiply-add by d/8·d_b.

extension IQ1_M: LatticeKernel {
    static var grid: [UInt64] { IQGrids.iq1s }
    static var laneShifts: SIMD16<UInt32> { IQ1_S.topShifts }

    @inline(__always)
    static func superBlockScale(_ block: UnsafeRawPointer) -> Float {
        HalfConversion.widened(halfBits(scaleWords(block))) * IQ1_S.delta
    }

    @inline(__always)
    static func subBlockLanes(
        _ block: UnsafeRawPointer, _ ib: Int, _ tables: LatticeTables<UInt64>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        subBlock(block, ib, scaleWords(block), UnsafeRawPointer(tables.grid), tables.laneShifts)
    }

    /// Sub-block `ib`'s weights (2s + 1)·(8g ± 1), lane-ordered (weights 0…15, then 16…31) as
    /// two's-complement lanes.
    @inline(__always)
    static func subBlock(
        _ block: UnsafeRawPointer, _ ib: Int, _ words: UInt64, _ grid: UnsafeRawPointer, _ shifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        // Groups 4ib…4ib+3: low index bytes from qs, nibbles from the two qh bytes.
        let qs = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: qsOffset + 4 * ib, as: UInt32.self))
        let qh = UInt32(UInt16(littleEndian: block.loadUnaligned(fromByteOffset: qhOffset + 2 * ib, as: UInt16.self)))
        @inline(__always) func index(_ l: UInt32) -> Int {
            Int((qs &>> (8 * l)) & 0xFF | ((qh &>> (4 * l)) & 7) << 8)
        }
        @inline(__always) func sign(_ l: UInt32) -> UInt32 { 1 &- ((qh &>> (4 * l + 3)) & 1) << 1 }
        let lowSigns = IntegerLanes.repeated(SIMD4(sign(0), sign(0), sign(1), sign(1)))
        let highSigns = IntegerLanes.repeated(SIMD4(sign(2), sign(2), sign(3), sign(3)))
        let low = IQ1_S.groupPair(grid, index(0), index(1), shifts, lowSigns)
        let high = IQ1_S.groupPair(grid, index(2), index(3), shifts, highSigns)
        return (low &* (2 * halfBlockScale(words, 2 * ib) + 1), high &* (2 * halfBlockScale(words, 2 * ib + 1) + 1))
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let words = scaleWords(block)
            let d = Float(Float16(bitPattern: halfBits(words)))
            var integer: Int32 = 0
            for i in 0..<32 {
                let k = 4 * (b % 8) + i / 8  // group
                let nibble = groupNibble(block, k)
                let index = Int(block.load(fromByteOffset: qsOffset + k, as: UInt8.self)) | Int(nibble & 7) << 8
                let g = Int32(Int8(truncatingIfNeeded: IQGrids.iq1s[index] >> UInt64(8 * (i % 8))))
                let sign: Int32 = nibble & 8 == 0 ? 1 : -1
                let scale = Int32(2 * halfBlockScale(words, k / 2) + 1)
                integer += scale * (8 * g + sign) * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * IQ1_S.delta * activations.scales[b] * Float(integer)
        }
        return total
    }
}
