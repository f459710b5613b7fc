// Integer dot product of Q4_1 weights with 8-bit activations.
//
// Per block: Σ (d·q_i + m) · (d_x·x_i) = d·d_x·Σ q_i·x_i + m·(d_x·Σ x_i).
// The 16 bytes of nibbles are loaded as four 32-bit lanes and repeated four times over sixteen;
// shifting lane group k by 4k and masking four bits in each 16-bit half gives all 32 weights as
// 16-bit lanes, in the order of the activations' pairValues (Q8Activations.pairOrderIndex), so
// one 16-bit multiply covers the block and adjacent products share a group of four weights.

extension Q4_1: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/pairs``.
    public static var activationLayouts: Q8Activations.Layouts { .pairs }

    /// Per-lane shifts: lane group `k` of the repeated nibble bytes is shifted by `4k`, which
    /// brings each nibble to the bottom of a 16-bit half in the activations' pair order.
    @usableFromInline static let nibbleShifts = SIMD16<UInt32>(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12)

    @inline(__always)
    public static func dot(
        row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int
    ) -> Float {
        let scales = activations.scales, sums = activations.sums
        // Eight float lanes, lane j holding the products of weights 4j…4j+3 (and 16+4j…) of
        // every block, accumulated with fused multiply-adds across blocks, then summed pairwise:
        // the order llama.cpp's x86 kernel uses, so results agree with its reference outputs bit
        // for bit. The integer sums behind each lane are exact, so computing them with 16-bit
        // products in any lane arrangement does not change any rounding.
        var lanes = SIMD8<Float>()
        var offsets: Float = 0
        var block = row
        var x = UnsafeRawPointer(activations.pairValues)
        let shifts = nibbleShifts
        for b in 0..<blocks {
            let products = groupSums(nibbles(block, shifts) &* x.loadUnaligned(as: SIMD32<Int16>.self))
            let d = IntegerLanes.half(block, 0)
            let m = IntegerLanes.half(block, 2)
            lanes.multiplyAdd(SIMD8<Float>(repeating: d * scales[b]), products)
            offsets = offsets.plusProduct(m, sums[b])
            block += 20
            x += 64
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
        let v0 = UnsafeRawPointer(x.0.pairValues), v1 = UnsafeRawPointer(x.1.pairValues)
        let v2 = UnsafeRawPointer(x.2.pairValues), v3 = UnsafeRawPointer(x.3.pairValues)
        let shifts = nibbleShifts
        var block = row
        for b in 0..<blocks {
            let q = nibbles(block, shifts)
            let base = 64 * b
            @inline(__always) func products(_ v: UnsafeRawPointer) -> SIMD8<Float> {
                groupSums(q &* v.loadUnaligned(fromByteOffset: base, as: SIMD32<Int16>.self))
            }
            let d = IntegerLanes.half(block, 0)
            let m = IntegerLanes.half(block, 2)
            l0.multiplyAdd(SIMD8<Float>(repeating: d * x.0.scales[b]), products(v0))
            l1.multiplyAdd(SIMD8<Float>(repeating: d * x.1.scales[b]), products(v1))
            l2.multiplyAdd(SIMD8<Float>(repeating: d * x.2.scales[b]), products(v2))
            l3.multiplyAdd(SIMD8<Float>(repeating: d * x.3.scales[b]), products(v3))
            o0 = o0.plusProduct(m, x.0.sums[b])
            o1 = o1.plusProduct(m, x.1.sums[b])
            o2 = o2.plusProduct(m, x.2.sums[b])
            o3 = o3.plusProduct(m, x.3.sums[b])
            block += 20
        }
        return SIMD4(l0.pairwiseSum() + o0, l1.pairwiseSum() + o1, l2.pairwiseSum() + o2, l3.pairwiseSum() + o3)
    }

    /// The block's 32 nibbles as 16-bit lanes in the activations' pair order.
    @inline(__always)
    static func nibbles(_ block: UnsafeRawPointer, _ shifts: SIMD16<UInt32>) -> SIMD32<Int16> {
        #if POCKET_256BIT_VECTORS
        unsafeBitCast((IntegerLanes.repeated(block, 4) &>> shifts) & 0x000F_000F, to: SIMD32<Int16>.self)
        #else
        // 128-bit registers only (SSE2 has no per-lane shift: `&>> shifts` was four shifts and
        // shuffles per register): each quarter's lanes share a shift, so each is one shift.
        let q = block.loadUnaligned(fromByteOffset: 4, as: SIMD4<UInt32>.self)
        let lanes = SIMD16(lowHalf: SIMD8(lowHalf: q, highHalf: q &>> 4), highHalf: SIMD8(lowHalf: q &>> 8, highHalf: q &>> 12))
        return unsafeBitCast(lanes & 0x000F_000F, to: SIMD32<Int16>.self)
        #endif
    }

    /// Lane `j` of the result: the sum of the four products of weights `4j…4j+3` (lane `4 + j`:
    /// weights `16+4j…`), from 32 pair-ordered 16-bit products (each below 2^11), as exact floats.
    @inline(__always)
    static func groupSums(_ products: SIMD32<Int16>) -> SIMD8<Float> {
        // Pairs into 32-bit lanes, then lane L plus lane L + 8.
        let pairs = IntegerLanes.pairSums(products)
        return IntegerLanes.exactFloats(pairs.lowHalf &+ pairs.highHalf)
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
