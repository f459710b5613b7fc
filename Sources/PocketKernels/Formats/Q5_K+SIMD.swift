// Integer dot product of Q5_K weights with 8-bit activations.
//
// Q4_K's kernel (see Q4_K+SIMD.swift: same scales and mins, same nibble layout, the mins applied
// through the activations' half-block sums) plus a fifth bit per weight: sub-block s keeps it
// in bit s of the 32 `qh` bytes, which are loaded as four 32-bit lanes repeated over sixteen and
// shifted so that lane 4k+m holds bit s of byte 4m+k, moved to bit 4 (right by s − 4, or, for
// s < 4, right by s from a copy shifted left by 4 once per super-block: 13 → 15.5 G weights/s).
// Lane magnitudes stay below 2·31·127·63 < 2^19.

extension Q5_K: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var products = SIMD16<Float>()
        var offsets = SIMD16<Float>()
        var block = row
        var values = UnsafeRawPointer(activations.values)
        var scales = activations.scales
        var halfSums = UnsafeRawPointer(activations.halfSums)
        let shifts = IntegerLanes.byteShifts, minShifts = Q4_K.minShifts
        for _ in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            let dmin = IntegerLanes.half(block, dminOffset)
            let (subScales, mins) = Q4_K.scalesAndMins(block, minShifts)
            offsets.multiplyAdd(mins * dmin, halfSums.loadUnaligned(as: SIMD16<Float>.self))
            let fifth = fifthBits(block)
            // Written out, not a loop: with constant sub-block numbers the per-lane shift
            // vectors are loop invariants.
            @inline(__always) func step(_ b: Int) {
                let (low, high) = weights(block, b, fifth, shifts)
                let scale = UInt32(truncatingIfNeeded: subScales >> (8 * b) & 0xFF)
                products.multiplyAdd(IntegerLanes.blockProducts(low &* scale, high &* scale, values + 128 * b), SIMD16(repeating: d * scales[b]))
            }
            step(0); step(1); step(2); step(3); step(4); step(5); step(6); step(7)
            halfSums += 64
            block += bytesPerBlock
            values += 8 * 128
            scales += 8
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
        let shifts = IntegerLanes.byteShifts, minShifts = Q4_K.minShifts
        for sb in 0..<(blocks / 8) {
            let d = IntegerLanes.half(block, dOffset)
            let dmin = IntegerLanes.half(block, dminOffset)
            let (subScales, mins) = Q4_K.scalesAndMins(block, minShifts)
            let scaledMins = mins * dmin
            o0.multiplyAdd(scaledMins, h0.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            o1.multiplyAdd(scaledMins, h1.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            o2.multiplyAdd(scaledMins, h2.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            o3.multiplyAdd(scaledMins, h3.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            let fifth = fifthBits(block)
            @inline(__always) func step(_ local: Int) {
                let b = 8 * sb + local
                let scale = UInt32(truncatingIfNeeded: subScales >> (8 * local) & 0xFF)
                let (low, high) = weights(block, local, fifth, shifts)
                products.add(low &* scale, high &* scale, block: b, scale: d)
            }
            step(0); step(1); step(2); step(3); step(4); step(5); step(6); step(7)
            block += bytesPerBlock
        }
        return products.sums - SIMD4(o0.sum(), o1.sum(), o2.sum(), o3.sum())
    }

    /// The repeated `qh` bytes of the two half blocks, and the same shifted left by 4 (the
    /// source of sub-blocks 0…3, whose bit s moves up to bit 4; bits lost off the top of a
    /// lane belong to sub-blocks 4…7, which read the unshifted copy).
    @inline(__always)
    static func fifthBits(_ block: UnsafeRawPointer) -> (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>) {
        let low = IntegerLanes.repeated(block, qhOffset), high = IntegerLanes.repeated(block, qhOffset + 16)
        return (low, high, low &<< 4, high &<< 4)
    }

    /// The lane-ordered 5-bit weights of sub-block `s` (0…7): nibble s % 2 of `qs` bytes
    /// 32(s / 2)…, fifth bit s of `qh` bytes 0…31 (from ``fifthBits(_:)``).
    @inline(__always)
    static func weights(
        _ block: UnsafeRawPointer, _ s: Int,
        _ fifth: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>), _ shifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let lowShift = shifts &+ UInt32(4 * (s % 2))
        let highShift = shifts &+ UInt32(s % 4)
        @inline(__always) func half(_ i: Int) -> SIMD16<UInt32> {
            let qs = IntegerLanes.repeated(block, qsOffset + 32 * (s / 2) + 16 * i)
            let qh = s >= 4 ? (i == 0 ? fifth.0 : fifth.1) : (i == 0 ? fifth.2 : fifth.3)
            return (qs &>> lowShift) & 0xF | (qh &>> highShift) & 16
        }
        return (half(0), half(1))
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let dmin = Float(block.loadUnaligned(fromByteOffset: dminOffset, as: Float16.self))
            // Activation block b is sub-block s = b % 8: nibble s % 2 of qs bytes 32(s/2)…,
            // fifth bit s of qh byte l.
            let s = b % 8
            let (scale, min) = Q4_K.scaleAndMin(block + scalesOffset, s)
            var integer: Int32 = 0
            for l in 0..<32 {
                let low = block.load(fromByteOffset: qsOffset + 32 * (s / 2) + l, as: UInt8.self) >> UInt8(4 * (s % 2)) & 0xF
                let high = block.load(fromByteOffset: qhOffset + l, as: UInt8.self) >> UInt8(s) & 1
                integer += Int32(low | high << 4) * Q8Activations.element(activations.values + 32 * b, l)
            }
            let groupSums = activations.halfSums + 16 * (b / 8)
            let xSum = groupSums[Q8Activations.halfSumIndex(2 * s)] + groupSums[Q8Activations.halfSumIndex(2 * s + 1)]
            total += d * activations.scales[b] * Float(Int32(scale) * integer) - dmin * Float(min) * xSum
        }
        return total
    }
}
