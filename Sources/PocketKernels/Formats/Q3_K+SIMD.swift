// Integer dot product of Q3_K weights with 8-bit activations.
//
// Activation block b (32 weights, scale a_b) holds two sub-blocks s = 2b, 2b+1 of 16 weights:
//   Σ d·(sc_s − 32)·q_i·a_b·x_i  =  d·a_b · Σ_s (sc_s − 32)·Σ_i q_i·x_i,   q_i ∈ −4…3
// and everything right of d·a_b is an integer. Block b is 2-bit plane j = b % 4 of the `qs`
// bytes of its 128-weight half h = b / 4, and bit b of the 32 `hmask` bytes (clear: subtract 4).
// Sixteen bytes of each are loaded as four 32-bit lanes repeated over sixteen and shifted per
// lane (8k plus the plane or bit position) so that lane 4k+m holds weight 4m+k: the
// activations' lane order. The high bit is moved straight to bit 2 (one shift right; for the
// first two planes from a copy of the hmask lanes shifted left by 2 once per super-block), so
// q + 4 = low | high·4 costs an `or`. The signed sub-block scales multiply the integer lanes;
// magnitudes stay below 2·4·32·127 < 2^16, well inside the exact integer-to-float range. Each
// block rereads its `qs` bytes (a broadcast load is cheap) so that every shift is a loop
// invariant.
//
// The sixteen 6-bit scales are unpacked four at a time from the 12 packed bytes as 32-bit words.

extension Q3_K: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var products = SIMD16<Float>()
        var block = row
        var values = UnsafeRawPointer(activations.values)
        var scales = activations.scales
        let shifts = IntegerLanes.byteShifts
        for _ in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            let subScales = subBlockScales(block)
            let highBits = hmaskBits(block)
            // Written out, not a loop: with constant block positions the per-lane shift vectors
            // are loop invariants.
            @inline(__always) func step(_ b: Int) {
                let (low, high) = weights(block, b, subScales, highBits, shifts)
                products.multiplyAdd(IntegerLanes.blockProducts(low, high, values + 128 * b), SIMD16(repeating: d * scales[b]))
            }
            step(0); step(1); step(2); step(3); step(4); step(5); step(6); step(7)
            block += bytesPerBlock
            values += 8 * 128
            scales += 8
        }
        return products.sum()
    }

    /// Four activation vectors at once (prefill): the weights of each activation block are
    /// unpacked and scaled once for all four. Each vector's float operations are those of
    /// ``dot(row:_:blocks:)`` in the same order (the integer sums are exact either way), so
    /// each result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var products = FourProducts(x)
        var block = row
        let shifts = IntegerLanes.byteShifts
        for sb in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            let subScales = subBlockScales(block)
            let highBits = hmaskBits(block)
            @inline(__always) func step(_ local: Int) {
                let b = 8 * sb + local
                let (low, high) = weights(block, local, subScales, highBits, shifts)
                products.add(low, high, block: b, scale: d)
            }
            step(0); step(1); step(2); step(3); step(4); step(5); step(6); step(7)
            block += bytesPerBlock
        }
        return products.sums
    }

    /// The sixteen unsigned 6-bit scales (sub-block s: byte s % 4 of word s / 4, still biased
    /// by 32): low nibbles from bytes 0…7 (low nibble for s < 8, high for s ≥ 8), top two bits
    /// from bytes 8…11 (bits 2(s/4) of byte 8 + s % 4).
    @inline(__always)
    static func subBlockScales(_ block: UnsafeRawPointer) -> SIMD4<UInt32> {
        let a0 = block.loadUnaligned(fromByteOffset: scalesOffset, as: UInt32.self)
        let a1 = block.loadUnaligned(fromByteOffset: scalesOffset + 4, as: UInt32.self)
        let top = block.loadUnaligned(fromByteOffset: scalesOffset + 8, as: UInt32.self)
        let low = SIMD4(a0, a1, a0 >> 4, a1 >> 4) & 0x0F0F_0F0F
        let high = (SIMD4(repeating: top) &>> SIMD4(0, 2, 4, 6)) & 0x0303_0303
        return low | high &<< 4
    }

    /// The repeated `hmask` bytes of the two half blocks, and the same shifted left by 2 (the
    /// source of planes 0 and 1, whose bit b moves up to bit 2; bits lost off the top of a lane
    /// belong to later planes, which read the unshifted copy).
    @inline(__always)
    static func hmaskBits(_ block: UnsafeRawPointer) -> (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>) {
        let low = IntegerLanes.repeated(block, hmaskOffset), high = IntegerLanes.repeated(block, hmaskOffset + 16)
        return (low, high, low &<< 2, high &<< 2)
    }

    /// The lane-ordered weights `(sc_s − 32)·q` of activation block `b` (0…7 in the
    /// super-block): the halves of its two sub-blocks 2b and 2b+1.
    @inline(__always)
    static func weights(
        _ block: UnsafeRawPointer, _ b: Int, _ subScales: SIMD4<UInt32>,
        _ hmask: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>), _ shifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let h = b / 4, j = b % 4
        let lowShift = shifts &+ UInt32(2 * j)
        // Bit b of each hmask byte, moved to bit 2: right by b − 2, or by b from the copy
        // shifted left by 2.
        let highShift = shifts &+ UInt32(b >= 2 ? b - 2 : b)
        @inline(__always) func half(_ i: Int) -> SIMD16<UInt32> {
            let qs = IntegerLanes.repeated(block, qsOffset + 32 * h + 16 * i)
            let bits = b >= 2 ? (i == 0 ? hmask.0 : hmask.1) : (i == 0 ? hmask.2 : hmask.3)
            let q = ((qs &>> lowShift) & 3 | (bits &>> highShift) & 4) &- 4
            let s = 2 * b + i
            let scale = (subScales[s / 4] &>> UInt32(8 * (s % 4)) & 0xFF) &- 32
            return q &* scale
        }
        return (half(0), half(1))
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            var integer: Int32 = 0
            for i in 0..<32 {
                // Weight w of the super-block: low bits are plane (w % 128) / 32 of qs byte
                // 32(w / 128) + w % 32; the high bit is bit w / 32 of hmask byte w % 32.
                let w = 32 * (b % 8) + i
                let low = Int32(block.load(fromByteOffset: qsOffset + 32 * (w / 128) + w % 32, as: UInt8.self) >> UInt8(2 * ((w % 128) / 32)) & 3)
                let high = block.load(fromByteOffset: hmaskOffset + w % 32, as: UInt8.self) >> UInt8(w / 32) & 1
                let q = high == 0 ? low - 4 : low
                integer += scale(block + scalesOffset, w / 16) * q * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * activations.scales[b] * Float(integer)
        }
        return total
    }
}
