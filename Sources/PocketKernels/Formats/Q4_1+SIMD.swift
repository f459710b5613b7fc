// Integer dot product of Q4_1 weights with 8-bit activations.
//
// Per block: Σ (d·q_i + m) · (d_x·x_i) = d·d_x·Σ q_i·x_i + m·(d_x·Σ x_i).
// The 16 bytes of nibbles are loaded as four 32-bit lanes; shifting by 8k (and 8k+4) puts weight
// 4j+k (and 16+4j+k) of the block in lane j, which is exactly the activations' lane order.

extension Q4_1: QuantizedDotFormat {
    @inline(__always)
    public static func dot(
        row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int
    ) -> Float {
        let values = activations.values, scales = activations.scales, sums = activations.sums
        // Eight float lanes, lane j holding the products of weights 4j…4j+3 of every block,
        // accumulated with fused multiply-adds across blocks, then summed pairwise: the order
        // llama.cpp's x86 kernel uses, so results agree with its reference outputs bit for bit.
        var lanes = SIMD8<Float>()
        var offsets: Float = 0
        var block = row
        var x = UnsafeRawPointer(values)
        for b in 0..<blocks {
            let d = Float(block.loadUnaligned(as: Float16.self))
            let m = Float(block.loadUnaligned(fromByteOffset: 2, as: Float16.self))
            let q = block.loadUnaligned(fromByteOffset: 4, as: SIMD4<UInt32>.self)
            var low = SIMD4<Int32>(), high = SIMD4<Int32>()
            for k in 0..<4 {
                low &+= SIMD4<Int32>(truncatingIfNeeded: (q &>> UInt32(8 * k)) & 0xF)
                    &* x.loadUnaligned(fromByteOffset: 16 * k, as: SIMD4<Int32>.self)
                high &+= SIMD4<Int32>(truncatingIfNeeded: (q &>> UInt32(8 * k + 4)) & 0xF)
                    &* x.loadUnaligned(fromByteOffset: 64 + 16 * k, as: SIMD4<Int32>.self)
            }
            let products = SIMD8<Float>(lowHalf: SIMD4<Float>(low), highHalf: SIMD4<Float>(high))
            lanes.addProduct(SIMD8<Float>(repeating: d * scales[b]), products)
            offsets = offsets.addingProduct(m, sums[b])
            block += 20
            x += 128
        }
        return lanes.pairwiseSum() + offsets
    }

    public static func dotReference(
        row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int
    ) -> Float {
        let values = activations.values, scales = activations.scales, sums = activations.sums
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + b * 20
            let d = Float(block.loadUnaligned(as: Float16.self))
            let m = Float(block.loadUnaligned(fromByteOffset: 2, as: Float16.self))
            var integer: Int32 = 0
            for i in 0..<32 {
                let byte = block.load(fromByteOffset: 4 + (i & 15), as: UInt8.self)
                let q = Int32(i < 16 ? byte & 0xF : byte >> 4)
                integer += q * Q8Activations.element(values + 32 * b, i)
            }
            total += d * scales[b] * Float(integer) + m * sums[b]
        }
        return total
    }
}
