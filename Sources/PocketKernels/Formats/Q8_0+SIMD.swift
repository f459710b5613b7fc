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
            let d = IntegerLanes.half(block, 0)
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

    /// Four activation vectors at once (prefill): each block's bytes are sign-extended once.
    /// Every vector's operations are those of ``dot(row:_:blocks:)`` in the same order, so
    /// each result is bit-identical to a single product (and keeps llama.cpp's summation
    /// order). Not inlined, like the other `dot4`s, to keep the decode loop's code small.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var l0 = SIMD8<Float>(), l1 = SIMD8<Float>(), l2 = SIMD8<Float>(), l3 = SIMD8<Float>()
        let v0 = UnsafeRawPointer(x.0.values), v1 = UnsafeRawPointer(x.1.values)
        let v2 = UnsafeRawPointer(x.2.values), v3 = UnsafeRawPointer(x.3.values)
        var block = row
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, 0)
            let q0 = block.loadUnaligned(fromByteOffset: 2, as: SIMD4<Int32>.self)
            let q1 = block.loadUnaligned(fromByteOffset: 18, as: SIMD4<Int32>.self)
            // Byte k of lane j (weight 4j+k, or 16+4j+k), sign-extended.
            let w0 = (q0 &<< 24) &>> 24, w1 = (q0 &<< 16) &>> 24, w2 = (q0 &<< 8) &>> 24, w3 = q0 &>> 24
            let w4 = (q1 &<< 24) &>> 24, w5 = (q1 &<< 16) &>> 24, w6 = (q1 &<< 8) &>> 24, w7 = q1 &>> 24
            let base = 128 * b
            @inline(__always) func products(_ v: UnsafeRawPointer) -> SIMD8<Float> {
                @inline(__always) func load(_ offset: Int) -> SIMD4<Int32> {
                    v.loadUnaligned(fromByteOffset: base + offset, as: SIMD4<Int32>.self)
                }
                let low = w0 &* load(0) &+ w1 &* load(16) &+ w2 &* load(32) &+ w3 &* load(48)
                let high = w4 &* load(64) &+ w5 &* load(80) &+ w6 &* load(96) &+ w7 &* load(112)
                return SIMD8<Float>(lowHalf: SIMD4<Float>(low), highHalf: SIMD4<Float>(high))
            }
            l0.addProduct(SIMD8<Float>(repeating: d * x.0.scales[b]), products(v0))
            l1.addProduct(SIMD8<Float>(repeating: d * x.1.scales[b]), products(v1))
            l2.addProduct(SIMD8<Float>(repeating: d * x.2.scales[b]), products(v2))
            l3.addProduct(SIMD8<Float>(repeating: d * x.3.scales[b]), products(v3))
            block += 34
        }
        return SIMD4(l0.pairwiseSum(), l1.pairwiseSum(), l2.pairwiseSum(), l3.pairwiseSum())
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
