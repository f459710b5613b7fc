// Integer dot product of Q8_0 weights with 8-bit activations: Σ d·d_x·Σ q_i·x_i per block.
// Each half-block of 16 signed bytes is loaded as four 32-bit lanes; byte k of lane j (weight
// 16h + 4j + k) is sign-extended by shifting it to the top and back (arithmetic shift), which
// matches the activations' lane order.

extension Q8_0: QuantizedDotFormat {
    @inline(__always)
    public static func dot(
        row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int
    ) -> Float {
        let values = activations.values, scales = activations.scales
        // Eight float lanes (lane j: products of weights 4j…4j+3 of each block) accumulated
        // with fused multiply-adds, then summed pairwise: llama.cpp's x86 order (see Q4_1).
        var lanes = SIMD8<Float>()
        var block = row
        var x = UnsafeRawPointer(values)
        for b in 0..<blocks {
            let d = Float(block.loadUnaligned(as: Float16.self))
            let q0 = block.loadUnaligned(fromByteOffset: 2, as: SIMD4<Int32>.self)
            let q1 = block.loadUnaligned(fromByteOffset: 18, as: SIMD4<Int32>.self)
            var low = SIMD4<Int32>(), high = SIMD4<Int32>()
            for k in 0..<4 {
                let up = Int32(24 - 8 * k)
                low &+= ((q0 &<< up) &>> 24) &* x.loadUnaligned(fromByteOffset: 16 * k, as: SIMD4<Int32>.self)
                high &+= ((q1 &<< up) &>> 24) &* x.loadUnaligned(fromByteOffset: 64 + 16 * k, as: SIMD4<Int32>.self)
            }
            let products = SIMD8<Float>(lowHalf: SIMD4<Float>(low), highHalf: SIMD4<Float>(high))
            lanes.addProduct(SIMD8<Float>(repeating: d * scales[b]), products)
            block += 34
            x += 128
        }
        return lanes.pairwiseSum()
    }

    public static func dotReference(
        row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int
    ) -> Float {
        let values = activations.values, scales = activations.scales
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + b * 34
            let d = Float(block.loadUnaligned(as: Float16.self))
            var integer: Int32 = 0
            for i in 0..<32 {
                let q = Int32(block.load(fromByteOffset: 2 + i, as: Int8.self))
                integer += q * Q8Activations.element(values + 32 * b, i)
            }
            total += d * scales[b] * Float(integer)
        }
        return total
    }
}
