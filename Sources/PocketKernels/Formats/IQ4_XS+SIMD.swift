// Integer dot product of IQ4_XS weights with 8-bit activations.
//
// Each sub-block of 32 weights is exactly one activation block b (scale d_b):
//   Σ d·(ls − 32)·kvalues[q_i]·d_b·x_i = d·d_b·Σ (ls − 32)·kvalues[q_i]·x_i
// The codebook values are unpacked into lane order as IQ4_NL's are and multiplied by the
// sub-block's signed scale on integers (each lane sums two products of at most 32·127·127,
// well below the 2^22 that converts to a float exactly), then the block is accumulated like
// Q4_0's with one multiply-add by d·d_b.

extension IQ4_XS: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var products = SIMD16<Float>()
        var block = row
        var values = UnsafeRawPointer(activations.values)
        var b = 0
        let shifts = IntegerLanes.byteShifts
        for _ in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            for ib in 0..<8 {
                let scale = UInt32(bitPattern: subBlockScale(block, ib))
                let (low, high) = IQ4_NL.weights(block + qsOffset + 16 * ib, shifts)
                products.multiplyAdd(
                    IntegerLanes.blockProducts(low &* scale, high &* scale, values), SIMD16(repeating: d * activations.scales[b]))
                values += 128
                b += 1
            }
            block += bytesPerBlock
        }
        return products.sum()
    }

    /// Four activation vectors at once (prefill): each sub-block's weights are looked up and
    /// scaled once. Every vector's operations are those of ``dot(row:_:blocks:)`` in the same
    /// order, so each result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var products = FourProducts(x)
        let shifts = IntegerLanes.byteShifts
        var block = row
        for sb in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            for ib in 0..<8 {
                let scale = UInt32(bitPattern: subBlockScale(block, ib))
                let (low, high) = IQ4_NL.weights(block + qsOffset + 16 * ib, shifts)
                products.add(low &* scale, high &* scale, block: 8 * sb + ib, scale: d)
            }
            block += bytesPerBlock
        }
        return products.sums
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let integer = IQ4_NL.integerDot(block + qsOffset + 16 * (b % 8), activations.values + 32 * b)
            total += d * activations.scales[b] * Float(subBlockScale(block, b % 8) * integer)
        }
        return total
    }
}
