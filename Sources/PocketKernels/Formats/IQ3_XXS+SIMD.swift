// Integer dot product of IQ3_XXS weights with 8-bit activations.
//
// Each sub-block of 32 weights is exactly one activation block b (scale a_b), and its scale
// d·(ls + ½)/2 is d/4 times the odd integer 2·ls + 1:
//   Σ d·(ls + ½)/2·g_i·s_i·a_b·x_i = (d/4)·a_b·Σ (2·ls + 1)·g_i·s_i·x_i,   s_i = ±1
// so everything right of (d/4)·a_b is an integer (each lane sums two products of at most
// 31·62·127, far below the 2^22 that converts to a float exactly).
//
// The 8 grid points of a sub-block are gathered one UInt32 load each (byte k of point j is
// weight 4j + k). Points 0…3, as four 32-bit lanes repeated over sixteen and shifted per lane
// like packed bytes (``IntegerLanes/byteShifts``), give weight 4m + k in lane 4k + m: the
// activations' lane order; points 4…7 give weights 16…31 the same way. The four sign bytes
// (``IQGrids/signs`` of the 7-bit indices) form one word, bit w for weight w; shifting it left
// per lane so that the lane's bit lands in bit 31, then arithmetically right by 31, gives an
// all-ones mask for a minus sign, and (scale ^ mask) − mask is the lane's signed scale.

extension IQ3_XXS: LatticeKernel {
    static var grid: [UInt32] { IQGrids.iq3xxs }
    static var laneShifts: SIMD16<UInt32> { signLaneShifts }

    @inline(__always)
    static func superBlockScale(_ block: UnsafeRawPointer) -> Float { IntegerLanes.half(block, dOffset) * 0.25 }

    @inline(__always)
    static func subBlockLanes(
        _ block: UnsafeRawPointer, _ ib: Int, _ tables: LatticeTables<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        weights(block, ib, tables.grid, UnsafeBufferPointer(start: tables.signs, count: 128), tables.shifts, tables.laneShifts)
    }

    /// Left shifts that bring the sign bit of each lane's weight to bit 31: lane 4k + m holds
    /// weight 4m + k (lanes 0…15, first half) or 16 + 4m + k (second half, the same minus 16).
    /// Kernels copy it into a local before their loops (see ``IntegerLanes/byteShifts``).
    static let signLaneShifts = SIMD16<UInt32>(31, 27, 23, 19, 30, 26, 22, 18, 29, 25, 21, 17, 28, 24, 20, 16)

    /// The lane-ordered weights `scale·g·s` of 32 weights, given their 8 grid points
    /// (`low`: points 0…3, `high`: 4…7), their sign word (bit w negates weight w) and their
    /// integer scale; shared with ``IQ3_S``.
    @inline(__always)
    static func signedLanes(
        _ low: SIMD4<UInt32>, _ high: SIMD4<UInt32>, signs: UInt32, scale: UInt32,
        _ shifts: SIMD16<UInt32>, _ signShifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let word = SIMD16<UInt32>(repeating: signs), scales = SIMD16<UInt32>(repeating: scale)
        @inline(__always) func half(_ points: SIMD4<UInt32>, _ signShifts: SIMD16<UInt32>) -> SIMD16<UInt32> {
            let g = (IntegerLanes.repeated(points) &>> shifts) & 0xFF
            let mask = unsafeBitCast(unsafeBitCast(word &<< signShifts, to: SIMD16<Int32>.self) &>> 31, to: SIMD16<UInt32>.self)
            return g &* ((scales ^ mask) &- mask)
        }
        return (half(low, signShifts), half(high, signShifts &- 16))
    }

    /// The lane-ordered weights `(2·ls + 1)·g·s` of sub-block `ib` (0…7) of the super-block at
    /// `block`.
    @inline(__always)
    static func weights(
        _ block: UnsafeRawPointer, _ ib: Int, _ grid: UnsafePointer<UInt32>, _ ksigns: UnsafeBufferPointer<UInt8>,
        _ shifts: SIMD16<UInt32>, _ signShifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let q = UInt64(littleEndian: block.loadUnaligned(fromByteOffset: qsOffset + 8 * ib, as: UInt64.self))
        @inline(__always) func point(_ j: Int) -> UInt32 { grid[Int(truncatingIfNeeded: q &>> UInt64(8 * j) & 0xFF)] }
        let signs = signWord(block, ib, ksigns)
        return signedLanes(
            SIMD4(point(0), point(1), point(2), point(3)), SIMD4(point(4), point(5), point(6), point(7)),
            signs: signs.bits, scale: 2 &* signs.scale &+ 1, shifts, signShifts)
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        IQGrids.signs.withUnsafeBufferPointer { ksigns in
            for b in 0..<blocks {
                let block = row + (b / 8) * bytesPerBlock, ib = b % 8
                let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
                let signs = signWord(block, ib, ksigns)
                var integer: Int32 = 0
                for i in 0..<32 {
                    let point = IQGrids.iq3xxs[Int(block.byte(at: qsOffset + 8 * ib + i / 4))]
                    let g = Int32(point >> UInt32(8 * (i % 4)) & 0xFF)
                    let s: Int32 = signs.bits >> UInt32(i) & 1 == 0 ? 1 : -1
                    integer += g * s * Q8Activations.element(activations.values + 32 * b, i)
                }
                total += d * 0.25 * activations.scales[b] * Float((2 * Int32(signs.scale) + 1) * integer)
            }
        }
        return total
    }
}
