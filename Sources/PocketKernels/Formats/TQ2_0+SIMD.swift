// Integer dot product of TQ2_0 weights with 8-bit activations.
//
// Activation block b of a super-block is weights 32b…32b+31: g = b / 4 and j = b % 4 in
// TQ2_0's layout, i.e. bits 2j…2j+1 of bytes 32g…32g+31. Those 32 bytes are loaded as two sets
// of four 32-bit lanes repeated over sixteen and shifted into lane order once (lane 4k+m by
// 8k, as Q4_0's nibbles); each of the four blocks that share them is then one uniform shift by
// 2j, a mask and a subtraction of 1. Per block:
//   Σ d·(q_i − 1)·d_b·x_i = d·d_b·Σ (q_i − 1)·x_i,
// the sum on integers, then Q4_0's exact conversion and one multiply-add by d·d_b.

extension TQ2_0: QuantizedDotFormat {
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
            for g in 0..<2 {
                let (low, high) = bytes(block, g, shifts)
                for j in 0..<4 {
                    products.multiplyAdd(
                        IntegerLanes.blockProducts(weights(low, j), weights(high, j), values),
                        SIMD16(repeating: d * activations.scales[b]))
                    values += 128
                    b += 1
                }
            }
            block += bytesPerBlock
        }
        return products.sum()
    }

    /// Four activation vectors at once (prefill): each block's weights are unpacked once. Every
    /// vector's operations are those of ``dot(row:_:blocks:)`` in the same order, so each
    /// result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var products = FourProducts(x)
        let shifts = IntegerLanes.byteShifts
        var block = row
        for sb in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            for g in 0..<2 {
                let (low, high) = bytes(block, g, shifts)
                for j in 0..<4 {
                    products.add(weights(low, j), weights(high, j), block: 8 * sb + 4 * g + j, scale: d)
                }
            }
            block += bytesPerBlock
        }
        return products.sums
    }

    /// Bytes `32g…32g+15` and `32g+16…32g+31` of the values, one per lane in lane order (not
    /// yet masked: the byte is in the low 8 bits of each lane).
    @inline(__always)
    static func bytes(_ block: UnsafeRawPointer, _ g: Int, _ shifts: SIMD16<UInt32>) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        (IntegerLanes.repeated(block, qsOffset + 32 * g) &>> shifts,
         IntegerLanes.repeated(block, qsOffset + 32 * g + 16) &>> shifts)
    }

    /// The weights `q − 1` in bits `2j…2j+1` of each lane's low byte, as two's-complement lanes.
    @inline(__always)
    static func weights(_ bytes: SIMD16<UInt32>, _ j: Int) -> SIMD16<UInt32> {
        ((bytes &>> UInt32(2 * j)) & 3) &- 1
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            var integer: Int32 = 0
            for i in 0..<32 {
                // Weight 32b' + i (b' = b % 8 = 4g + j) is bits 2j…2j+1 of byte 32g + i.
                let byte = block.load(fromByteOffset: qsOffset + 32 * ((b % 8) / 4) + i, as: UInt8.self)
                let q = Int32((byte >> UInt8(2 * (b % 4))) & 3) - 1
                integer += q * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * activations.scales[b] * Float(integer)
        }
        return total
    }
}
