// Integer dot product of Q6_K weights with 8-bit activations.
//
// Activation block b (32 weights, scale a_b) holds two sub-blocks s = 2b, 2b+1 of 16 weights:
//   Σ d·sc_s·(q_i − 32)·a_b·x_i  =  d·a_b · Σ_s sc_s·Σ_i (q_i − 32)·x_i
// and everything right of d·a_b is an integer. Weights come from two places: the low nibble
// (bytes of `ql`, nibble c/2 for the block's position c = b % 4 inside its 128-weight half) and
// two high bits (bytes of `qh`, bits 2c…2c+1). Sixteen bytes of each are loaded as four 32-bit
// lanes repeated over sixteen and shifted per lane (8k plus the nibble or bit-pair position) so
// that lane 4k+m holds weight 4m+k: the activations' lane order. Each block rereads its bytes
// (a broadcast load is cheap) so that every shift is a loop invariant. The sub-block scales
// multiply the integer lanes; lane magnitudes stay below 2·32·127·128 < 2^21, so the
// integer-to-float step is exact. (Subtracting 32 through the half-block sums instead, as Q4_K
// does with its mins, measured no faster.)

extension Q6_K: QuantizedDotFormat {
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
            // Written out, not a loop: with constant block positions the per-lane shift vectors
            // are loop invariants (a loop here stays a loop and recomputes them).
            @inline(__always) func step(_ b: Int) {
                let (low, high) = weights(block, b, shifts)
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
            @inline(__always) func step(_ local: Int) {
                let b = 8 * sb + local
                let (low, high) = weights(block, local, shifts)
                products.add(low, high, block: b, scale: d)
            }
            step(0); step(1); step(2); step(3); step(4); step(5); step(6); step(7)
            block += bytesPerBlock
        }
        return products.sums
    }

    /// The lane-ordered weights `sc_s·(q − 32)` of activation block `b` (0…7 in the
    /// super-block), the halves of its two sub-blocks 2b and 2b+1.
    ///
    /// Block b sits at position c = b % 4 of 128-weight half h = b / 4: its low nibbles are
    /// nibble c / 2 of `ql` bytes 64h + 32(c % 2)…, its high bits bits 2c of `qh` bytes 32h….
    @inline(__always)
    static func weights(_ block: UnsafeRawPointer, _ b: Int, _ shifts: SIMD16<UInt32>) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let h = b / 4, c = b % 4
        let lowShift = shifts &+ UInt32(4 * (c / 2))
        let highShift = shifts &+ UInt32(2 * c)
        @inline(__always) func half(_ i: Int) -> SIMD16<UInt32> {
            let ql = IntegerLanes.repeated(block, qlOffset + 64 * h + 32 * (c % 2) + 16 * i)
            let qh = IntegerLanes.repeated(block, qhOffset + 32 * h + 16 * i)
            let q = (ql &>> lowShift) & 0xF | ((qh &>> highShift) & 3) &<< 4
            let scale = UInt32(bitPattern: Int32(block.load(fromByteOffset: scalesOffset + 2 * b + i, as: Int8.self)))
            return (q &- 32) &* scale
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
                // Weight w of the super-block: half h, position r; ql nibble r/64 of byte
                // 64h + r%64, qh bits 2(r/32) of byte 32h + r%32; sub-block w/16.
                let w = 32 * (b % 8) + i, h = w / 128, r = w % 128
                let low = block.load(fromByteOffset: qlOffset + 64 * h + r % 64, as: UInt8.self) >> UInt8(4 * (r / 64)) & 0xF
                let high = block.load(fromByteOffset: qhOffset + 32 * h + r % 32, as: UInt8.self) >> UInt8(2 * (r / 32)) & 3
                let scale = Int32(block.load(fromByteOffset: scalesOffset + w / 16, as: Int8.self))
                integer += scale * (Int32(low | high << 4) - 32) * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * activations.scales[b] * Float(integer)
        }
        return total
    }
}
