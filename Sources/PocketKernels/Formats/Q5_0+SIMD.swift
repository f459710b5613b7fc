// Integer dot product of Q5_0 weights with 8-bit activations.
//
// Per block b: Σ d·(q_i − 16)·d_b·x_i = d·d_b·Σ (q_i − 16)·x_i, all of Σ on integers.
// The low nibbles are unpacked as in Q4_0 (four 32-bit lanes repeated over sixteen, lane 4k+m
// shifted by 8k, or 8k+4 for the upper half block, holds weight 4m+k). The fifth bits live in
// one 32-bit word, bit i for weight i: broadcast to all lanes and shifted right by 4m+k in
// lane 4k+m (``highBitShifts``) they line up with the same weights.

extension Q5_0: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    /// Lane 4k+m: 4m+k, the weight (of a half block) that lane holds in lane order.
    static let highBitShifts = SIMD16<UInt32>(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15)

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var products = SIMD16<Float>()
        var block = row
        var values = UnsafeRawPointer(activations.values)
        let shifts = IntegerLanes.byteShifts, highShifts = highBitShifts
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, dOffset)
            let (low, high) = weights(block, shifts, highShifts)
            products.multiplyAdd(IntegerLanes.blockProducts(low, high, values), SIMD16(repeating: d * activations.scales[b]))
            block += bytesPerBlock
            values += 128
        }
        return products.sum()
    }

    /// Four activation vectors at once (prefill): each block's weights are unpacked once.
    /// Every vector's operations are those of ``dot(row:_:blocks:)`` in the same order, so
    /// each result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var products = FourProducts(x)
        let shifts = IntegerLanes.byteShifts, highShifts = highBitShifts
        var block = row
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, dOffset)
            let (low, high) = weights(block, shifts, highShifts)
            products.add(low, high, block: b, scale: d)
            block += bytesPerBlock
        }
        return products.sums
    }

    /// The block's 32 weights minus 16, lane-ordered, as two's-complement lanes: the low half
    /// (weights 0…15) and the high half (16…31).
    @inline(__always)
    static func weights(
        _ block: UnsafeRawPointer, _ shifts: SIMD16<UInt32>, _ highShifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let q = IntegerLanes.repeated(block, qsOffset)
        let qh = SIMD16(repeating: block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self))
        // Bit 4m+k (upper half: 16+4m+k) of qh moved to bit 4 of lane 4k+m. (A mask compare
        // and `replacing(with:where:)` instead is a library call per vector: 100× slower.)
        let highLow = ((qh &<< 4) &>> highShifts) & 16
        let highHigh = (qh &>> (highShifts &+ 12)) & 16
        return (((q &>> shifts) & 0xF | highLow) &- 16, ((q &>> (shifts &+ 4)) & 0xF | highHigh) &- 16)
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + b * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let qh = block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)
            var integer: Int32 = 0
            for i in 0..<32 {
                // Byte i % 16 holds weight i's low bits (low nibble for i < 16); qh bit i its fifth.
                let byte = block.load(fromByteOffset: qsOffset + i % 16, as: UInt8.self)
                let low = Int32(i < 16 ? byte & 0xF : byte >> 4)
                let q = low | Int32(qh >> UInt32(i) & 1) << 4
                integer += (q - 16) * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * activations.scales[b] * Float(integer)
        }
        return total
    }
}
