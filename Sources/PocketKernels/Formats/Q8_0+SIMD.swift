// Integer dot product of Q8_0 weights with 8-bit activations: Σ d·d_x·Σ q_i·x_i per block.
// Each half-block of 16 signed bytes is loaded as four 32-bit lanes repeated over sixteen; byte
// k of lane m (weight 16h + 4m + k) is sign-extended into lane 4k+m by shifting it to the top
// and back (arithmetic shift), which matches the activations' lane order. The sixteen products
// per half are then folded into llama.cpp's eight per-block lanes (four consecutive weights
// each) so that the float accumulation keeps its order.

extension Q8_0: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    @inline(__always)
    public static func dot(
        row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int
    ) -> Float {
        let scales = activations.scales
        // Eight float lanes (lane j: products of weights 4j…4j+3 of each block) accumulated
        // with fused multiply-adds, then summed pairwise: llama.cpp's x86 order (see Q4_1).
        var lanes = SIMD8<Float>()
        var block = row
        var x = UnsafeRawPointer(activations.values)
        let up = 24 &- IntegerLanes.byteShifts
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, 0)
            let (low, high) = weights(block, up)
            let products = llamaLanes(low &* IntegerLanes.activations(x, 0), high &* IntegerLanes.activations(x, 1))
            lanes.multiplyAdd(SIMD8<Float>(repeating: d * scales[b]), products)
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
        let up = 24 &- IntegerLanes.byteShifts
        var block = row
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, 0)
            let (low, high) = weights(block, up)
            @inline(__always) func products(_ v: UnsafeRawPointer) -> SIMD8<Float> {
                llamaLanes(low &* IntegerLanes.activations(v + 128 * b, 0), high &* IntegerLanes.activations(v + 128 * b, 1))
            }
            l0.multiplyAdd(SIMD8<Float>(repeating: d * x.0.scales[b]), products(v0))
            l1.multiplyAdd(SIMD8<Float>(repeating: d * x.1.scales[b]), products(v1))
            l2.multiplyAdd(SIMD8<Float>(repeating: d * x.2.scales[b]), products(v2))
            l3.multiplyAdd(SIMD8<Float>(repeating: d * x.3.scales[b]), products(v3))
            block += 34
        }
        return SIMD4(l0.pairwiseSum(), l1.pairwiseSum(), l2.pairwiseSum(), l3.pairwiseSum())
    }

    /// The block's 32 signed weights in lane order (low half, high half): byte k of repeated
    /// lane m, shifted to the top (left by 24 − 8k) and back down arithmetically, in lane 4k+m.
    @inline(__always)
    static func weights(_ block: UnsafeRawPointer, _ up: SIMD16<UInt32>) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        @inline(__always) func signExtended(_ offset: Int) -> SIMD16<UInt32> {
            let top = unsafeBitCast(IntegerLanes.repeated(block, offset) &<< up, to: SIMD16<Int32>.self)
            return unsafeBitCast(top &>> 24, to: SIMD16<UInt32>.self)
        }
        return (signExtended(2), signExtended(18))
    }

    /// llama.cpp's eight lanes from the two half blocks' lane-ordered products: lane j < 4
    /// sums weights 4j…4j+3 of the low half (lanes j, 4+j, 8+j, 12+j), lane 4+j those of the
    /// high half. Integer sums, so the grouping is free; converted exactly (|sum| < 2^16).
    @inline(__always)
    static func llamaLanes(_ low: SIMD16<UInt32>, _ high: SIMD16<UInt32>) -> SIMD8<Float> {
        let low8 = low.lowHalf &+ low.highHalf, high8 = high.lowHalf &+ high.highHalf
        let quads = SIMD8(lowHalf: low8.lowHalf &+ low8.highHalf, highHalf: high8.lowHalf &+ high8.highHalf)
        return IntegerLanes.exactFloats(unsafeBitCast(quads, to: SIMD8<Int32>.self))
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
