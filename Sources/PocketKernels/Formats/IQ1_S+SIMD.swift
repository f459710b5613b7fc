// Integer dot product of IQ1_S weights with 8-bit activations.
//
// Each sub-block of 32 weights is exactly one activation block b (scale d_b). In units of 1/8
// the weights are integers, 8·(g + δ) = 8g ± 1 ∈ {−9, −7, −1, 1, 7, 9}, so
//   Σ d·(2s + 1)·(g_i + δ)·d_b·x_i = (d·(2s + 1)/8)·d_b·Σ (8g_i ± 1)·x_i
// with the sum on integers (each lane sums two products of at most 9·127) and then one
// multiply-add by d·(2s + 1)/8·d_b, as IQ4_XS's.
//
// A group's codebook entry is 8 bytes; two groups (16 weights) make four 32-bit words. Repeated
// over sixteen lanes, lane 4k+m holds word m: weights 4(m % 2)…+3 of group m / 2, of which the
// lane needs byte k (element 4m+k of the half block, lane order). Shifting lane 4k+m left by
// 24 − 8k puts that byte at the top, and an arithmetic shift right by 21 gives 8g with its sign
// (and three bits of the byte below, masked off). Portable Swift has no vector gather, so the
// four entries of a sub-block are four scalar loads.

extension IQ1_S: QuantizedDotFormat {
    /// Reads ``Q8Activations/Layouts/lanes``.
    public static var activationLayouts: Q8Activations.Layouts { .lanes }

    /// 24 − 8k in lane 4k+m: a left shift that brings byte k of the lane to the top.
    static let topShifts = SIMD16<UInt32>(24, 24, 24, 24, 16, 16, 16, 16, 8, 8, 8, 8, 0, 0, 0, 0)

    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        IQGrids.iq1s.withUnsafeBytes { codebook in
            let grid = codebook.baseAddress!
            var products = SIMD16<Float>()
            var block = row
            var values = UnsafeRawPointer(activations.values)
            var b = 0
            let shifts = topShifts
            for _ in 0..<(blocks / 8) {
                let d = IntegerLanes.half(block, dOffset)
                for ib in 0..<8 {
                    let (low, high, scale) = subBlock(block, ib, grid, shifts, d)
                    products.multiplyAdd(
                        IntegerLanes.blockProducts(low, high, values), SIMD16(repeating: scale * activations.scales[b]))
                    values += 128
                    b += 1
                }
                block += bytesPerBlock
            }
            return products.sum()
        }
    }

    /// Four activation vectors at once (prefill): each sub-block's codebook entries are looked
    /// up once. Every vector's operations are those of ``dot(row:_:blocks:)`` in the same
    /// order, so each result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        IQGrids.iq1s.withUnsafeBytes { codebook in
            let grid = codebook.baseAddress!
            var products = FourProducts(x)
            let shifts = topShifts
            var block = row
            for sb in 0..<(blocks / 8) {
                let d = IntegerLanes.half(block, dOffset)
                for ib in 0..<8 {
                    let (low, high, scale) = subBlock(block, ib, grid, shifts, d)
                    products.add(low, high, block: 8 * sb + ib, scale: scale)
                }
                block += bytesPerBlock
            }
            return products.sums
        }
    }

    /// Sub-block `ib`'s weights in units of 1/8 (8g ± 1), lane-ordered (weights 0…15, then
    /// 16…31) as two's-complement lanes, and their float scale d·(2s + 1)/8.
    @inline(__always)
    static func subBlock(
        _ block: UnsafeRawPointer, _ ib: Int, _ grid: UnsafeRawPointer, _ shifts: SIMD16<UInt32>, _ d: Float
    ) -> (SIMD16<UInt32>, SIMD16<UInt32>, Float) {
        let qh = UInt32(high(block, ib))
        let qs = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: qsOffset + 4 * ib, as: UInt32.self))
        @inline(__always) func index(_ l: UInt32) -> Int {
            Int((qs &>> (8 * l)) & 0xFF | ((qh &>> (3 * l)) & 7) << 8)
        }
        let sign = SIMD16<UInt32>(repeating: 1 &- (qh &>> 15) << 1)  // 1, or −1 if bit 15 is set
        let low = groupPair(grid, index(0), index(1), shifts, sign)
        let high = groupPair(grid, index(2), index(3), shifts, sign)
        return (low, high, d * Float(2 * ((qh &>> 12) & 7) + 1) * delta)
    }

    /// Codebook entries `first` and `second` (two groups, 16 weights) as 8g + sign in lane
    /// order, two's complement; `sign` (±1 per lane) is δ in units of 1/8. Shared with ``IQ1_M``.
    @inline(__always)
    static func groupPair(
        _ grid: UnsafeRawPointer, _ first: Int, _ second: Int, _ shifts: SIMD16<UInt32>, _ sign: SIMD16<UInt32>
    ) -> SIMD16<UInt32> {
        let entries = SIMD2(grid.load(fromByteOffset: 8 * first, as: UInt64.self), grid.load(fromByteOffset: 8 * second, as: UInt64.self))
        let top = unsafeBitCast(IntegerLanes.repeated(unsafeBitCast(entries, to: SIMD4<UInt32>.self)) &<< shifts, to: SIMD16<Int32>.self)
        return unsafeBitCast((top &>> 21) & -8, to: SIMD16<UInt32>.self) &+ sign
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + (b / 8) * bytesPerBlock
            let ib = b % 8
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            let qh = high(block, ib)
            let sign: Int32 = qh & 0x8000 == 0 ? 1 : -1
            var integer: Int32 = 0
            for i in 0..<32 {
                let l = i / 8
                let index = Int(block.load(fromByteOffset: qsOffset + 4 * ib + l, as: UInt8.self)) | Int((qh >> (3 * l)) & 7) << 8
                let g = Int32(Int8(truncatingIfNeeded: IQGrids.iq1s[index] >> UInt64(8 * (i % 8))))
                integer += (8 * g + sign) * Q8Activations.element(activations.values + 32 * b, i)
            }
            total += d * Float(2 * ((qh >> 12) & 7) + 1) * delta * activations.scales[b] * Float(integer)
        }
        return total
    }
}
