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

    /// Four activation vectors at once (prefill): each block's nibbles are unpacked once. Every
    /// vector's float operations are exactly those of ``dot(row:_:blocks:)``, in the same
    /// order, so each result is bit-identical to a single product. Not inlined: inlined into
    /// the matrix loop it slowed the single-vector (decode) path by 13% (measured).
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var l0 = SIMD8<Float>(), l1 = SIMD8<Float>(), l2 = SIMD8<Float>(), l3 = SIMD8<Float>()
        var o0: Float = 0, o1: Float = 0, o2: Float = 0, o3: Float = 0
        let v0 = UnsafeRawPointer(x.0.values), v1 = UnsafeRawPointer(x.1.values)
        let v2 = UnsafeRawPointer(x.2.values), v3 = UnsafeRawPointer(x.3.values)
        var block = row
        for b in 0..<blocks {
            let d = Float(block.loadUnaligned(as: Float16.self))
            let m = Float(block.loadUnaligned(fromByteOffset: 2, as: Float16.self))
            let q = block.loadUnaligned(fromByteOffset: 4, as: SIMD4<UInt32>.self)
            let w0 = SIMD4<Int32>(truncatingIfNeeded: q & 0xF), w1 = SIMD4<Int32>(truncatingIfNeeded: (q &>> 8) & 0xF)
            let w2 = SIMD4<Int32>(truncatingIfNeeded: (q &>> 16) & 0xF), w3 = SIMD4<Int32>(truncatingIfNeeded: (q &>> 24) & 0xF)
            let w4 = SIMD4<Int32>(truncatingIfNeeded: (q &>> 4) & 0xF), w5 = SIMD4<Int32>(truncatingIfNeeded: (q &>> 12) & 0xF)
            let w6 = SIMD4<Int32>(truncatingIfNeeded: (q &>> 20) & 0xF), w7 = SIMD4<Int32>(truncatingIfNeeded: (q &>> 28) & 0xF)
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
            o0 = o0.addingProduct(m, x.0.sums[b])
            o1 = o1.addingProduct(m, x.1.sums[b])
            o2 = o2.addingProduct(m, x.2.sums[b])
            o3 = o3.addingProduct(m, x.3.sums[b])
            block += 20
        }
        return SIMD4(l0.pairwiseSum() + o0, l1.pairwiseSum() + o1, l2.pairwiseSum() + o2, l3.pairwiseSum() + o3)
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
