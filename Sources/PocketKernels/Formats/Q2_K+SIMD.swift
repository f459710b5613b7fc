// Integer dot product of Q2_K weights with 8-bit activations in super-block order.
//
// Activations come with one scale a per 256 values (Q8Activations.superValues, as llama.cpp's
// Q8_K), so a whole super-block stays in integers:
//   Σ (d·sc_s·q_i − dmin·m_s)·(a·x_i)  =  d·a·Σ_s sc_s·Σ_{i∈s} q_i·x_i  −  dmin·a·Σ_s m_s·Σ_{i∈s} x_i
// The 64 bytes of 2-bit values are loaded as sixteen 32-bit lanes. For bit plane j, shifting by
// 2j (and 2j + 8) and masking two bits in each 16-bit half yields 32 weights per vector, one per
// 16-bit lane; the activations are stored in exactly that order, so 16-bit multiplies
// (|q·x| ≤ 381) need no shuffles. Adjacent 16-bit products are then summed into 32-bit lanes:
// lanes 4g…4g+3 of plane j all belong to sub-block 8h + 2j + f (g = 2h + f) and are multiplied
// by its scale. The sixteen mins meet the activations' scaled sub-block sums in one float multiply-add.

extension Q2_K: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/superBlocks``.
    public static var activationLayouts: Q8Activations.Layouts { .superBlocks }

    /// Per-lane shifts that bring scale byte `8h + 2j + f` of ``spreadScales(_:)``'s lane `4g + j`
    /// (`g = 2h + f`) to the bottom.
    @usableFromInline static let scaleShifts = SIMD16<UInt32>(0, 16, 0, 16, 8, 24, 8, 24, 0, 16, 0, 16, 8, 24, 8, 24)

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var sum = SIMD16<Float>()
        var block = row
        var x = UnsafeRawPointer(activations.superValues)
        var sums = UnsafeRawPointer(activations.scaledSubBlockSums)
        var scale = activations.superScales
        let shifts = scaleShifts
        for _ in 0..<(blocks / 8) {
            let (scales, mins) = scalesAndMins(block, shifts)
            let qs = block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD16<UInt32>.self)
            var products = SIMD16<Int32>()
            for j in 0..<4 {
                let even = plane(qs, 2 * j), odd = plane(qs, 2 * j + 8)
                let pairs = even &* x.loadUnaligned(fromByteOffset: 128 * j, as: SIMD32<Int16>.self)
                    &+ odd &* x.loadUnaligned(fromByteOffset: 128 * j + 64, as: SIMD32<Int16>.self)
                products &+= IntegerLanes.pairSums(pairs) &* broadcastPlane(scales, j)
            }
            let d = IntegerLanes.half(block, dOffset) * scale.pointee
            let dmin = IntegerLanes.half(block, dminOffset)
            sum.multiplyAdd(IntegerLanes.exactFloats(products), SIMD16(repeating: d))
            sum.multiplyAdd(IntegerLanes.exactFloats(mins) * -dmin, sums.loadUnaligned(as: SIMD16<Float>.self))
            block += bytesPerBlock
            x += 512
            sums += 64
            scale += 1
        }
        return sum.sum()
    }

    /// Four activation vectors at once (prefill): each super-block's weights and scales are
    /// unpacked once. Not inlined: inlined into the matrix loop it makes the compiler's code
    /// for the single-vector (decode) path slower.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var sum0 = SIMD16<Float>(), sum1 = SIMD16<Float>(), sum2 = SIMD16<Float>(), sum3 = SIMD16<Float>()
        let v0 = UnsafeRawPointer(x.0.superValues), v1 = UnsafeRawPointer(x.1.superValues)
        let v2 = UnsafeRawPointer(x.2.superValues), v3 = UnsafeRawPointer(x.3.superValues)
        let s0 = UnsafeRawPointer(x.0.scaledSubBlockSums), s1 = UnsafeRawPointer(x.1.scaledSubBlockSums)
        let s2 = UnsafeRawPointer(x.2.scaledSubBlockSums), s3 = UnsafeRawPointer(x.3.scaledSubBlockSums)
        let shifts = scaleShifts
        var block = row
        for sb in 0..<(blocks / 8) {
            let (scales, mins) = scalesAndMins(block, shifts)
            let qs = block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD16<UInt32>.self)
            let e0 = plane(qs, 0), o0 = plane(qs, 8), e1 = plane(qs, 2), o1 = plane(qs, 10)
            let e2 = plane(qs, 4), o2 = plane(qs, 12), e3 = plane(qs, 6), o3 = plane(qs, 14)
            let c0 = broadcastPlane(scales, 0), c1 = broadcastPlane(scales, 1)
            let c2 = broadcastPlane(scales, 2), c3 = broadcastPlane(scales, 3)
            let base = 512 * sb
            @inline(__always) func products(_ v: UnsafeRawPointer) -> SIMD16<Int32> {
                @inline(__always) func load(_ k: Int) -> SIMD32<Int16> {
                    v.loadUnaligned(fromByteOffset: base + 64 * k, as: SIMD32<Int16>.self)
                }
                return IntegerLanes.pairSums(e0 &* load(0) &+ o0 &* load(1)) &* c0
                    &+ IntegerLanes.pairSums(e1 &* load(2) &+ o1 &* load(3)) &* c1
                    &+ IntegerLanes.pairSums(e2 &* load(4) &+ o2 &* load(5)) &* c2
                    &+ IntegerLanes.pairSums(e3 &* load(6) &+ o3 &* load(7)) &* c3
            }
            let d = IntegerLanes.half(block, dOffset)
            let dmin = IntegerLanes.half(block, dminOffset)
            let offsets = IntegerLanes.exactFloats(mins) * -dmin
            @inline(__always) func sums(_ s: UnsafeRawPointer) -> SIMD16<Float> {
                s.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self)
            }
            sum0.multiplyAdd(IntegerLanes.exactFloats(products(v0)), SIMD16(repeating: d * x.0.superScales[sb]))
            sum1.multiplyAdd(IntegerLanes.exactFloats(products(v1)), SIMD16(repeating: d * x.1.superScales[sb]))
            sum2.multiplyAdd(IntegerLanes.exactFloats(products(v2)), SIMD16(repeating: d * x.2.superScales[sb]))
            sum3.multiplyAdd(IntegerLanes.exactFloats(products(v3)), SIMD16(repeating: d * x.3.superScales[sb]))
            sum0.multiplyAdd(offsets, sums(s0))
            sum1.multiplyAdd(offsets, sums(s1))
            sum2.multiplyAdd(offsets, sums(s2))
            sum3.multiplyAdd(offsets, sums(s3))
            block += bytesPerBlock
        }
        return SIMD4(sum0.sum(), sum1.sum(), sum2.sum(), sum3.sum())
    }

    /// The sixteen 4-bit scales and mins of a super-block, lane `4g + j` holding sub-block
    /// `8h + 2j + f` (`g = 2h + f`), the order of ``Q8Activations/subBlockLane(_:)``.
    @inline(__always)
    static func scalesAndMins(_ block: UnsafeRawPointer, _ shifts: SIMD16<UInt32>) -> (SIMD16<Int32>, SIMD16<Int32>) {
        // Lane 4g + j needs word 2h + j/2 of the 16 scale bytes (byte 2(j%2) + f within it).
        let w = block.loadUnaligned(as: SIMD4<UInt32>.self)
        let spread = SIMD16(w[0], w[0], w[1], w[1], w[0], w[0], w[1], w[1], w[2], w[2], w[3], w[3], w[2], w[2], w[3], w[3])
        return (unsafeBitCast((spread &>> shifts) & 0xF, to: SIMD16<Int32>.self),
                unsafeBitCast((spread &>> (shifts &+ 4)) & 0xF, to: SIMD16<Int32>.self))
    }

    /// Two bits starting at bit `shift` of each 16-bit half of the 32-bit lanes, as 32 values.
    @inline(__always)
    static func plane(_ qs: SIMD16<UInt32>, _ shift: Int) -> SIMD32<Int16> {
        unsafeBitCast((qs &>> UInt32(shift)) & 0x0003_0003, to: SIMD32<Int16>.self)
    }

    /// Lanes `4g…4g+3` all set to lane `4g + j` of `v`: the scale of plane `j`'s sub-blocks.
    @inline(__always)
    static func broadcastPlane(_ v: SIMD16<Int32>, _ j: Int) -> SIMD16<Int32> {
        SIMD16(v[j], v[j], v[j], v[j], v[4 + j], v[4 + j], v[4 + j], v[4 + j],
               v[8 + j], v[8 + j], v[8 + j], v[8 + j], v[12 + j], v[12 + j], v[12 + j], v[12 + j])
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for sb in 0..<(blocks / 8) {
            let block = row + sb * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let dmin = Float(block.loadUnaligned(fromByteOffset: dminOffset, as: Float16.self))
            let x = activations.superValues + 256 * sb
            var products: Int32 = 0, offsets: Int32 = 0
            for s in 0..<16 {
                let packed = block.load(fromByteOffset: scalesOffset + s, as: UInt8.self)
                var integer: Int32 = 0
                var xSum: Int32 = 0
                for i in (16 * s)..<(16 * s + 16) {
                    // Weight i = 128h + 32j + l is bits 2j…2j+1 of byte 32h + l.
                    let byte = block.load(fromByteOffset: qsOffset + 32 * (i >> 7) + (i & 31), as: UInt8.self)
                    let q = Int32((byte >> UInt8(2 * ((i >> 5) & 3))) & 3)
                    let value = Int32(x[Q8Activations.superBlockPosition(i)])
                    integer += q * value
                    xSum += value
                }
                products += Int32(packed & 0xF) * integer
                offsets += Int32(packed >> 4) * xSum
            }
            let a = activations.superScales[sb]
            total += d * a * Float(products) - dmin * a * Float(offsets)
        }
        return total
    }
}
