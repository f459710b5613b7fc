// Integer dot product of Q4_K weights with 8-bit activations.
//
// Each sub-block of 32 weights is exactly one activation block b (scale a_b):
//   Σ (d·sc_b·q_i − dmin·m_b)·a_b·x_i  =  d·a_b·sc_b·Σ q_i·x_i  −  dmin·m_b·(a_b·Σ x_i)
// The second term needs only the activations' half-block sums (Q8Activations.halfSums, in the
// same lane order within each super-block): the eight mins are spread over sixteen lanes
// (lane 4k+m: the sub-block of half block 4m+k) and all are applied with one multiply-add per
// super-block. The first term runs on integers: the 16 bytes behind one half block are loaded
// once as four 32-bit lanes repeated over sixteen; shifting lane 4k+m by 8k (low nibbles, the
// even sub-block) or 8k+4 (high nibbles, the odd one) leaves weight 4m+k in lane 4k+m.
//
// The 6-bit scales and mins are unpacked four at a time from the 12 packed bytes as 32-bit words.

extension Q4_K: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    /// Lane 4k+m of the repeated mins words (m0…3, m0…3, m4…7, m4…7) holds the min of half
    /// block 4m+k, sub-block 2m + k/2, at bit 16(m % 2) + 8(k / 2).
    /// (Copied into a local before the loops: see ``IntegerLanes/byteShifts``.)
    static let minShifts = SIMD16<UInt32>(0, 16, 0, 16, 0, 16, 0, 16, 8, 24, 8, 24, 8, 24, 8, 24)

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var products = SIMD16<Float>()
        var offsets = SIMD16<Float>()
        var block = row
        let values = UnsafeRawPointer(activations.values)
        var halfSums = UnsafeRawPointer(activations.halfSums)
        var first = 0
        let shifts = IntegerLanes.byteShifts, minShifts = minShifts
        for _ in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            let dmin = IntegerLanes.half(block, dminOffset)
            let (scales, mins) = scalesAndMins(block, minShifts)
            offsets.multiplyAdd(mins * dmin, halfSums.loadUnaligned(as: SIMD16<Float>.self))
            for c in 0..<4 {
                let bytes = (IntegerLanes.repeated(block, qsOffset + 32 * c), IntegerLanes.repeated(block, qsOffset + 32 * c + 16))
                for n in 0..<2 {
                    let b = 2 * c + n
                    let (low, high) = weights(bytes, n, shifts)
                    let scale = UInt32(truncatingIfNeeded: scales >> (8 * b) & 0xFF)
                    products.multiplyAdd(
                        IntegerLanes.blockProducts(low &* scale, high &* scale, values + 128 * (first + b)),
                        SIMD16(repeating: d * activations.scales[first + b]))
                }
            }
            halfSums += 64
            block += bytesPerBlock
            first += 8
        }
        return products.sum() - offsets.sum()
    }

    /// Four activation vectors at once (prefill): each sub-block's weights are unpacked and
    /// multiplied by their scale once for all four. Each vector's float operations are those
    /// of ``dot(row:_:blocks:)`` in the same order (the integer sums are exact either way), so
    /// each result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var products = FourProducts(x)
        var o0 = SIMD16<Float>(), o1 = SIMD16<Float>(), o2 = SIMD16<Float>(), o3 = SIMD16<Float>()
        let h0 = UnsafeRawPointer(x.0.halfSums), h1 = UnsafeRawPointer(x.1.halfSums)
        let h2 = UnsafeRawPointer(x.2.halfSums), h3 = UnsafeRawPointer(x.3.halfSums)
        var block = row
        let shifts = IntegerLanes.byteShifts, minShifts = minShifts
        for sb in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            let dmin = IntegerLanes.half(block, dminOffset)
            let (scales, mins) = scalesAndMins(block, minShifts)
            let scaledMins = mins * dmin
            o0.multiplyAdd(scaledMins, h0.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            o1.multiplyAdd(scaledMins, h1.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            o2.multiplyAdd(scaledMins, h2.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            o3.multiplyAdd(scaledMins, h3.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            for c in 0..<4 {
                let bytes = (IntegerLanes.repeated(block, qsOffset + 32 * c), IntegerLanes.repeated(block, qsOffset + 32 * c + 16))
                for n in 0..<2 {
                    let b = 8 * sb + 2 * c + n
                    let scale = UInt32(truncatingIfNeeded: scales >> (8 * (2 * c + n)) & 0xFF)
                    let (low, high) = weights(bytes, n, shifts)
                    products.add(low &* scale, high &* scale, block: b, scale: d)
                }
            }
            block += bytesPerBlock
        }
        return products.sums - SIMD4(o0.sum(), o1.sum(), o2.sum(), o3.sum())
    }

    /// The eight 6-bit scales (byte s of the result: sub-block s) and the eight mins spread
    /// over sixteen float lanes in half-block sum order (lane 4k+m: sub-block 2m + k/2).
    @inline(__always)
    static func scalesAndMins(_ block: UnsafeRawPointer, _ minShifts: SIMD16<UInt32>) -> (UInt64, SIMD16<Float>) {
        let w0 = block.loadUnaligned(fromByteOffset: scalesOffset, as: UInt32.self)
        let w1 = block.loadUnaligned(fromByteOffset: scalesOffset + 4, as: UInt32.self)
        let w2 = block.loadUnaligned(fromByteOffset: scalesOffset + 8, as: UInt32.self)
        // Sub-blocks 0…3 keep scale and min in the low 6 bits of bytes 0…3 and 4…7; 4…7 have
        // their low 4 bits in the nibbles of bytes 8…11 and the top 2 bits above those 6.
        let scalesLow = w0 & 0x3F3F_3F3F
        let scalesHigh = w2 & 0x0F0F_0F0F | (w0 >> 6 & 0x0303_0303) << 4
        let minsLow = w1 & 0x3F3F_3F3F
        let minsHigh = w2 >> 4 & 0x0F0F_0F0F | (w1 >> 6 & 0x0303_0303) << 4
        let mins = (IntegerLanes.repeated(SIMD4(minsLow, minsLow, minsHigh, minsHigh)) &>> minShifts) & 0xFF
        return (UInt64(scalesLow) | UInt64(scalesHigh) << 32, IntegerLanes.exactFloats(mins))
    }

    /// The lane-ordered 4-bit weights of sub-block 2c+n: nibble n of the repeated bytes.
    @inline(__always)
    static func weights(_ bytes: (SIMD16<UInt32>, SIMD16<UInt32>), _ n: Int, _ shifts: SIMD16<UInt32>) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let shift = shifts &+ UInt32(4 * n)
        return ((bytes.0 &>> shift) & 0xF, (bytes.1 &>> shift) & 0xF)
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let dmin = Float(block.loadUnaligned(fromByteOffset: dminOffset, as: Float16.self))
            // Activation block b is sub-block s = b % 8: nibble s % 2 of bytes 32(s/2)….
            let s = b % 8
            let (scale, min) = scaleAndMin(block + scalesOffset, s)
            var integer: Int32 = 0
            for i in 0..<32 {
                let byte = block.load(fromByteOffset: qsOffset + 32 * (s / 2) + i, as: UInt8.self)
                integer += Int32(byte >> UInt8(4 * (s % 2)) & 0xF) * Q8Activations.element(activations.values + 32 * b, i)
            }
            let groupSums = activations.halfSums + 16 * (b / 8)
            let xSum = groupSums[Q8Activations.halfSumIndex(2 * s)] + groupSums[Q8Activations.halfSumIndex(2 * s + 1)]
            total += d * activations.scales[b] * Float(Int32(scale) * integer) - dmin * Float(min) * xSum
        }
        return total
    }
}
