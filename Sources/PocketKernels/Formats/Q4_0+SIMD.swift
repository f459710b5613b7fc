// Integer dot product of Q4_0 weights with 8-bit activations.
//
// Per block b: Σ d·(q_i − 8)·d_b·x_i = d·d_b·Σ (q_i − 8)·x_i, all of Σ on integers.
// The 16 bytes of nibbles are loaded once as four 32-bit lanes repeated over sixteen; shifting
// lane 4k+m by 8k (low nibbles) or 8k+4 (high nibbles) leaves weight 4m+k (or 16+4m+k) in the
// lane where the activations keep element 4m+k (16+4m+k): no shuffles. The sixteen integer
// lanes become floats exactly and are accumulated across blocks with one multiply-add by d·d_b;
// the sixteen float lanes are summed once at the end.

extension Q4_0: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var products = SIMD16<Float>()
        var block = row
        var values = UnsafeRawPointer(activations.values)
        let shifts = IntegerLanes.byteShifts
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, dOffset)
            let (low, high) = weights(block, shifts)
            products.multiplyAdd(IntegerLanes.blockProducts(low, high, values), SIMD16(repeating: d * activations.scales[b]))
            block += bytesPerBlock
            values += 128
        }
        return products.sum()
    }

    /// Four activation vectors at once (prefill): each block's nibbles are unpacked once. Every
    /// vector's operations are those of ``dot(row:_:blocks:)`` in the same order, so each result
    /// is bit-identical to a single product. Not inlined, like the other `dot4`s, to keep the
    /// decode loop's code small.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var products = FourProducts(x)
        let shifts = IntegerLanes.byteShifts
        var block = row
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, dOffset)
            let (low, high) = weights(block, shifts)
            products.add(low, high, block: b, scale: d)
            block += bytesPerBlock
        }
        return products.sums
    }

    /// The block's 32 weights minus 8, lane-ordered: the low half (weights 0…15) and the high
    /// half (weights 16…31), as two's-complement lanes.
    @inline(__always)
    static func weights(_ block: UnsafeRawPointer, _ shifts: SIMD16<UInt32>) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let q = IntegerLanes.repeated(block, qsOffset)
        return (((q &>> shifts) & 0xF) &- 8, ((q &>> (shifts &+ 4)) & 0xF) &- 8)
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + b * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            var integer: Int32 = 0
            for i in 0..<32 {
                // Byte i % 16 holds weight i in its low nibble (i < 16) or high nibble.
                let byte = block.load(fromByteOffset: qsOffset + i % 16, as: UInt8.self)
                let q = Int32(i < 16 ? byte & 0xF : byte >> 4) - 8
                integer += q * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * activations.scales[b] * Float(integer)
        }
        return total
    }
}
