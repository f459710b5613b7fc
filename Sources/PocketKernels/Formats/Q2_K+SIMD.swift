// Integer dot product of Q2_K weights with 8-bit activations.
//
// Per sub-block s of 16 weights (inside activation block b, scale a_b):
//   Σ (d·sc_s·q_i − dmin·m_s) · a_b·x_i  =  d·a_b·sc_s·Σ q_i·x_i  −  dmin·m_s·(a_b·Σ x_i)
// The second term only needs the activations' half-block sums (Q8Activations.halfSums, stored
// in the same lane order): one 16-lane multiply-add per super-block for all sixteen mins. The first term runs on integers:
// the 16 bytes of 2-bit values behind one half block are loaded once as four 32-bit lanes and
// repeated four times across a 16-lane vector; shifting lane group k by 8k (plus 2j for bit
// plane j) puts weight 4m+k in lane 4k+m, which is the activations' lane order. The four bit
// planes of those bytes are the same half of four consecutive activation blocks.

extension Q2_K: QuantizedDotFormat {
    /// Per-lane shifts that spread four 32-bit lanes of bytes over sixteen lanes.
    @usableFromInline static let laneShifts = SIMD16<UInt32>(0, 0, 0, 0, 8, 8, 8, 8, 16, 16, 16, 16, 24, 24, 24, 24)

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var products = SIMD16<Float>()
        var offsets = SIMD16<Float>()
        var block = row
        var values = UnsafeRawPointer(activations.values)
        var scales = activations.scales
        var halfSums = UnsafeRawPointer(activations.halfSums)
        let shifts = laneShifts
        for _ in 0..<(blocks / 8) {
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let dmin = Float(block.loadUnaligned(fromByteOffset: dminOffset, as: Float16.self))
            // The sixteen mins, spread like the half-block sums (lane 4k+m: sub-block 4m+k),
            // against those sums in one multiply-add.
            let packed = repeated(block.loadUnaligned(as: SIMD4<UInt32>.self))
            let mins = exactFloats((packed &>> (shifts &+ 4)) & 0xF)
            offsets.addProduct(mins * dmin, halfSums.loadUnaligned(as: SIMD16<Float>.self))
            for h in 0..<2 {
                let low = repeated(block.loadUnaligned(fromByteOffset: qsOffset + 32 * h, as: SIMD4<UInt32>.self))
                let high = repeated(block.loadUnaligned(fromByteOffset: qsOffset + 32 * h + 16, as: SIMD4<UInt32>.self))
                for j in 0..<4 {
                    let plane = shifts &+ UInt32(2 * j)
                    let s = 8 * h + 2 * j
                    let scaleLow = UInt32(block.load(fromByteOffset: s, as: UInt8.self) & 0xF)
                    let scaleHigh = UInt32(block.load(fromByteOffset: s + 1, as: UInt8.self) & 0xF)
                    // Unsigned lanes: wrapping products have the same bits as signed ones.
                    let xLow = values.loadUnaligned(as: SIMD16<UInt32>.self)
                    let xHigh = values.loadUnaligned(fromByteOffset: 64, as: SIMD16<UInt32>.self)
                    let sum = ((low &>> plane) & 3) &* scaleLow &* xLow &+ ((high &>> plane) & 3) &* scaleHigh &* xHigh
                    products.addProduct(exactFloats(sum), SIMD16<Float>(repeating: d * scales.pointee))
                    values += 128
                    scales += 1
                }
            }
            halfSums += 64
            block += bytesPerBlock
        }
        return products.sum() - offsets.sum()
    }

    /// Four activation vectors at once: each super-block's weights are unpacked and scaled
    /// once, then multiplied with each vector (the prefill path). Not inlined: inlined into
    /// the matrix loop it makes the compiler's code for the single-vector (decode) path slower.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var p0 = SIMD16<Float>(), p1 = SIMD16<Float>(), p2 = SIMD16<Float>(), p3 = SIMD16<Float>()
        var o0 = SIMD16<Float>(), o1 = SIMD16<Float>(), o2 = SIMD16<Float>(), o3 = SIMD16<Float>()
        let v0 = UnsafeRawPointer(x.0.values), v1 = UnsafeRawPointer(x.1.values)
        let v2 = UnsafeRawPointer(x.2.values), v3 = UnsafeRawPointer(x.3.values)
        let h0 = UnsafeRawPointer(x.0.halfSums), h1 = UnsafeRawPointer(x.1.halfSums)
        let h2 = UnsafeRawPointer(x.2.halfSums), h3 = UnsafeRawPointer(x.3.halfSums)
        let shifts = laneShifts
        var block = row
        for sb in 0..<(blocks / 8) {
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let dmin = Float(block.loadUnaligned(fromByteOffset: dminOffset, as: Float16.self))
            let packed = repeated(block.loadUnaligned(as: SIMD4<UInt32>.self))
            let mins = exactFloats((packed &>> (shifts &+ 4)) & 0xF) * dmin
            o0.addProduct(mins, h0.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            o1.addProduct(mins, h1.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            o2.addProduct(mins, h2.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            o3.addProduct(mins, h3.loadUnaligned(fromByteOffset: 64 * sb, as: SIMD16<Float>.self))
            for h in 0..<2 {
                let low = repeated(block.loadUnaligned(fromByteOffset: qsOffset + 32 * h, as: SIMD4<UInt32>.self))
                let high = repeated(block.loadUnaligned(fromByteOffset: qsOffset + 32 * h + 16, as: SIMD4<UInt32>.self))
                for j in 0..<4 {
                    let plane = shifts &+ UInt32(2 * j)
                    let s = 8 * h + 2 * j
                    let b = 8 * sb + 4 * h + j
                    let wLow = ((low &>> plane) & 3) &* UInt32(block.load(fromByteOffset: s, as: UInt8.self) & 0xF)
                    let wHigh = ((high &>> plane) & 3) &* UInt32(block.load(fromByteOffset: s + 1, as: UInt8.self) & 0xF)
                    let offset = 128 * b
                    @inline(__always) func term(_ v: UnsafeRawPointer) -> SIMD16<Float> {
                        exactFloats(wLow &* v.loadUnaligned(fromByteOffset: offset, as: SIMD16<UInt32>.self)
                            &+ wHigh &* v.loadUnaligned(fromByteOffset: offset + 64, as: SIMD16<UInt32>.self))
                    }
                    p0.addProduct(term(v0), SIMD16(repeating: d * x.0.scales[b]))
                    p1.addProduct(term(v1), SIMD16(repeating: d * x.1.scales[b]))
                    p2.addProduct(term(v2), SIMD16(repeating: d * x.2.scales[b]))
                    p3.addProduct(term(v3), SIMD16(repeating: d * x.3.scales[b]))
                }
            }
            block += bytesPerBlock
        }
        return SIMD4(p0.sum() - o0.sum(), p1.sum() - o1.sum(), p2.sum() - o2.sum(), p3.sum() - o3.sum())
    }

    /// Four 32-bit lanes repeated over sixteen.
    @inline(__always)
    static func repeated(_ lanes: SIMD4<UInt32>) -> SIMD16<UInt32> {
        let eight = SIMD8(lowHalf: lanes, highHalf: lanes)
        return SIMD16(lowHalf: eight, highHalf: eight)
    }

    /// The signed integers in `bits` (each of magnitude below 2^22) as floats, exactly.
    ///
    /// Adding the integer to the bit pattern of 1.5·2^23 gives a float whose value is
    /// 1.5·2^23 plus the integer; subtracting 1.5·2^23 leaves the integer. Swift's generic
    /// integer-to-float vector conversion is a library call per vector; this is two instructions.
    @inline(__always)
    static func exactFloats(_ bits: SIMD16<UInt32>) -> SIMD16<Float> {
        unsafeBitCast(bits &+ 0x4B40_0000, to: SIMD16<Float>.self) - 12_582_912
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let dmin = Float(block.loadUnaligned(fromByteOffset: dminOffset, as: Float16.self))
            // Activation block b covers weights 32(b % 8)…: half h = (b % 8) / 4, bit plane j = b % 4.
            let h = (b % 8) / 4, j = b % 4
            for half in 0..<2 {
                let s = 8 * h + 2 * j + half
                let packed = block.load(fromByteOffset: scalesOffset + s, as: UInt8.self)
                var integer: Int32 = 0
                for l in 0..<16 {
                    let byte = block.load(fromByteOffset: qsOffset + 32 * h + 16 * half + l, as: UInt8.self)
                    let q = Int32((byte >> UInt8(2 * j)) & 3)
                    integer += q * Q8Activations.element(activations.values + 32 * b, 16 * half + l)
                }
                total += d * activations.scales[b] * Float(Int32(packed & 0xF) * integer)
                total -= dmin * Float(packed >> 4) * activations.halfSums[(b / 8) * 16 + Q8Activations.halfSumIndex(s)]
            }
        }
        return total
    }
}
