// Integer dot product of Q5_1 weights with 8-bit activations.
//
// Per block b: Σ (d·q_i + m)·d_b·x_i = d·d_b·Σ q_i·x_i + m·d_b·Σ x_i. The first term unpacks
// the weights as Q5_0 does (without the −16) and runs on integers; so does the second: the
// block's activation lanes are added (one more vector add) and scaled by m·d_b in a second
// accumulator. That is exact, unlike the fp16-rounded block sum (`Q8Activations.sums`), and
// needs no half-block sums, whose lane order only lines up per token when rows are a multiple
// of 256 long.

extension Q5_1: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var products = SIMD16<Float>()
        var offsets = SIMD16<Float>()
        var block = row
        var values = UnsafeRawPointer(activations.values)
        let shifts = IntegerLanes.byteShifts, highShifts = Q5_0.highBitShifts
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, dOffset)
            let m = IntegerLanes.half(block, mOffset)
            let (low, high) = weights(block, shifts, highShifts)
            let xLow = IntegerLanes.activations(values, 0), xHigh = IntegerLanes.activations(values, 1)
            let a = activations.scales[b]
            products.multiplyAdd(IntegerLanes.exactFloats(low &* xLow &+ high &* xHigh), SIMD16(repeating: d * a))
            offsets.multiplyAdd(IntegerLanes.exactFloats(xLow &+ xHigh), SIMD16(repeating: m * a))
            block += bytesPerBlock
            values += 128
        }
        return products.sum() + offsets.sum()
    }

    /// Four activation vectors at once (prefill): each block's weights are unpacked once.
    /// Every vector's operations are those of ``dot(row:_:blocks:)`` in the same order, so
    /// each result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var p0 = SIMD16<Float>(), p1 = SIMD16<Float>(), p2 = SIMD16<Float>(), p3 = SIMD16<Float>()
        var o0 = SIMD16<Float>(), o1 = SIMD16<Float>(), o2 = SIMD16<Float>(), o3 = SIMD16<Float>()
        let shifts = IntegerLanes.byteShifts, highShifts = Q5_0.highBitShifts
        var block = row
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, dOffset)
            let m = IntegerLanes.half(block, mOffset)
            let (low, high) = weights(block, shifts, highShifts)
            @inline(__always) func accumulate(_ v: Q8Vector, _ p: inout SIMD16<Float>, _ o: inout SIMD16<Float>) {
                let values = UnsafeRawPointer(v.values) + 128 * b
                let xLow = IntegerLanes.activations(values, 0), xHigh = IntegerLanes.activations(values, 1)
                let a = v.scales[b]
                p.multiplyAdd(IntegerLanes.exactFloats(low &* xLow &+ high &* xHigh), SIMD16(repeating: d * a))
                o.multiplyAdd(IntegerLanes.exactFloats(xLow &+ xHigh), SIMD16(repeating: m * a))
            }
            accumulate(x.0, &p0, &o0)
            accumulate(x.1, &p1, &o1)
            accumulate(x.2, &p2, &o2)
            accumulate(x.3, &p3, &o3)
            block += bytesPerBlock
        }
        return SIMD4(p0.sum() + o0.sum(), p1.sum() + o1.sum(), p2.sum() + o2.sum(), p3.sum() + o3.sum())
    }

    /// The block's 32 unsigned 5-bit weights, lane-ordered: the low half and the high half.
    @inline(__always)
    static func weights(
        _ block: UnsafeRawPointer, _ shifts: SIMD16<UInt32>, _ highShifts: SIMD16<UInt32>
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let q = IntegerLanes.repeated(block, qsOffset)
        let qh = SIMD16(repeating: block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self))
        let highLow = ((qh &<< 4) &>> highShifts) & 16
        let highHigh = (qh &>> (highShifts &+ 12)) & 16
        return ((q &>> shifts) & 0xF | highLow, (q &>> (shifts &+ 4)) & 0xF | highHigh)
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + b * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let m = Float(block.loadUnaligned(fromByteOffset: mOffset, as: Float16.self))
            let qh = block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)
            var integer: Int32 = 0
            var plain: Int32 = 0
            for i in 0..<32 {
                let byte = block.load(fromByteOffset: qsOffset + i % 16, as: UInt8.self)
                let low = Int32(i < 16 ? byte & 0xF : byte >> 4)
                let q = low | Int32(qh >> UInt32(i) & 1) << 4
                let x = Q8Activations.element(activations.values + 32 * b, i)
                integer += q * x
                plain += x
            }
            total += d * activations.scales[b] * Float(integer) + m * (activations.scales[b] * Float(plain))
        }
        return total
    }
}
