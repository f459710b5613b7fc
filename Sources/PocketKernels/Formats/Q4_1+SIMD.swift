// Integer dot product of Q4_1 weights with 8-bit activations.
//
// Per block: Σ (d·q_i + m) · (d_x·x_i) = d·d_x·Σ q_i·x_i + m·(d_x·Σ x_i).
// The 16 bytes of nibbles are loaded as four 32-bit lanes and repeated four times over sixteen;
// shifting lane group k by 8k (and 8k+4) puts weight 4j+k (and 16+4j+k) of the block in lane
// 4k+j, which is exactly the activations' lane order.

extension Q4_1: QuantizedDotFormat {
    /// Per-lane shifts that spread the block's four 32-bit lanes of nibbles over sixteen lanes:
    /// lane `4k + j` gets byte `k` of lane `j`, i.e. weight `4j + k` (the activations' lane order).
    @usableFromInline static let nibbleShifts = SIMD16<UInt32>(0, 0, 0, 0, 8, 8, 8, 8, 16, 16, 16, 16, 24, 24, 24, 24)

    @inline(__always)
    public static func dot(
        row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int
    ) -> Float {
        let scales = activations.scales, sums = activations.sums
        // Eight float lanes, lane j holding the products of weights 4j…4j+3 (and 16+4j…) of
        // every block, accumulated with fused multiply-adds across blocks, then summed pairwise:
        // the order llama.cpp's x86 kernel uses, so results agree with its reference outputs bit
        // for bit. The integer sums behind each lane are exact, so computing them sixteen lanes
        // at a time does not change any rounding.
        var lanes = SIMD8<Float>()
        var offsets: Float = 0
        var block = row
        var x = UnsafeRawPointer(activations.values)
        let shifts = nibbleShifts
        for b in 0..<blocks {
            let q = repeated(block.loadUnaligned(fromByteOffset: 4, as: SIMD4<UInt32>.self)) &>> shifts
            let products = fourSums(
                (q & 0xF) &* x.loadUnaligned(as: SIMD16<UInt32>.self),
                ((q &>> 4) & 0xF) &* x.loadUnaligned(fromByteOffset: 64, as: SIMD16<UInt32>.self))
            let d = Float(block.loadUnaligned(as: Float16.self))
            let m = Float(block.loadUnaligned(fromByteOffset: 2, as: Float16.self))
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
        let shifts = nibbleShifts
        var block = row
        for b in 0..<blocks {
            let q = repeated(block.loadUnaligned(fromByteOffset: 4, as: SIMD4<UInt32>.self)) &>> shifts
            let low = q & 0xF, high = (q &>> 4) & 0xF
            let base = 128 * b
            @inline(__always) func products(_ v: UnsafeRawPointer) -> SIMD8<Float> {
                fourSums(low &* v.loadUnaligned(fromByteOffset: base, as: SIMD16<UInt32>.self),
                         high &* v.loadUnaligned(fromByteOffset: base + 64, as: SIMD16<UInt32>.self))
            }
            let d = Float(block.loadUnaligned(as: Float16.self))
            let m = Float(block.loadUnaligned(fromByteOffset: 2, as: Float16.self))
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

    /// Four 32-bit lanes repeated over sixteen.
    @inline(__always)
    static func repeated(_ lanes: SIMD4<UInt32>) -> SIMD16<UInt32> {
        let eight = SIMD8(lowHalf: lanes, highHalf: lanes)
        return SIMD16(lowHalf: eight, highHalf: eight)
    }

    /// Lane `j` of the result: the sum of lanes `j, 4+j, 8+j, 12+j` of `low` (products of weights
    /// `4j…4j+3`), lane `4+j` the same of `high`; as exact floats (sums below 2^22).
    @inline(__always)
    static func fourSums(_ low: SIMD16<UInt32>, _ high: SIMD16<UInt32>) -> SIMD8<Float> {
        let eight = SIMD16(lowHalf: low.lowHalf &+ low.highHalf, highHalf: high.lowHalf &+ high.highHalf)
        let sums = SIMD8(lowHalf: eight.lowHalf.lowHalf &+ eight.lowHalf.highHalf,
                         highHalf: eight.highHalf.lowHalf &+ eight.highHalf.highHalf)
        return unsafeBitCast(sums &+ 0x4B40_0000, to: SIMD8<Float>.self) - 12_582_912
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
