// Integer dot product of IQ4_NL weights with 8-bit activations.
//
// Per block b: Σ d·kvalues[q_i]·d_b·x_i = d·d_b·Σ kvalues[q_i]·x_i, all of Σ on integers.
// The nibbles are brought into lane order as Q4_0's are (16 bytes repeated over sixteen 32-bit
// lanes, lane 4k+m shifted by 8k or 8k+4), then each lane's nibble is looked up in the codebook
// with lane arithmetic only (``codebookLanes(_:)``): portable Swift has no vector table lookup
// (the SIMD index subscript compiles to a library call that extracts lane by lane). The rest is
// Q4_0's: exact integer products, one float multiply-add per block, one sum at the end.

extension IQ4_NL: QuantizedDotFormat {
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
            let (low, high) = weights(block + qsOffset, shifts)
            products.multiplyAdd(IntegerLanes.blockProducts(low, high, values), SIMD16(repeating: d * activations.scales[b]))
            block += bytesPerBlock
            values += 128
        }
        return products.sum()
    }

    /// Four activation vectors at once (prefill): each block's weights are looked up once.
    /// Every vector's operations are those of ``dot(row:_:blocks:)`` in the same order, so each
    /// result is bit-identical to a single product.
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var products = FourProducts(x)
        let shifts = IntegerLanes.byteShifts
        var block = row
        for b in 0..<blocks {
            let d = IntegerLanes.half(block, dOffset)
            let (low, high) = weights(block + qsOffset, shifts)
            products.add(low, high, block: b, scale: d)
            block += bytesPerBlock
        }
        return products.sums
    }

    /// The 32 codebook values of the 16 nibble bytes at `qs`, lane-ordered: the low half
    /// (weights 0…15) and the high half (weights 16…31), as two's-complement lanes. Shared with
    /// ``IQ4_XS``, whose sub-blocks are laid out the same way.
    @inline(__always)
    static func weights(_ qs: UnsafeRawPointer, _ shifts: SIMD16<UInt32>) -> (SIMD16<UInt32>, SIMD16<UInt32>) {
        let q = IntegerLanes.repeated(qs, 0)
        return (codebookLanes((q &>> shifts) & 0xF), codebookLanes((q &>> (shifts &+ 4)) & 0xF))
    }

    /// `kvalues[n]` of each lane's index `n` (0…15), as a two's-complement lane.
    ///
    /// The codebook plus 128 (1…241) is packed four bytes to a word: entry n is byte n % 4 of
    /// word n / 4. Bits 2 and 3 of n select the word with two masked blends, bits 0 and 1 the
    /// byte with a per-lane shift; subtracting 128 restores the sign. About a dozen shifts,
    /// masks and adds per sixteen lanes, each one instruction on sixteen 32-bit lanes.
    @inline(__always)
    static func codebookLanes(_ n: SIMD16<UInt32>) -> SIMD16<UInt32> {
        // kvalues + 128 = 01 18 2D 3F | 4F 5D 6A 76 | 81 8D 99 A6 | B5 C5 D9 F1 (hex).
        let w0 = SIMD16<UInt32>(repeating: 0x3F2D_1801), w1 = SIMD16<UInt32>(repeating: 0x766A_5D4F)
        let w2 = SIMD16<UInt32>(repeating: 0xA699_8D81), w3 = SIMD16<UInt32>(repeating: 0xF1D9_C5B5)
        let bit2 = SIMD16<UInt32>() &- ((n &>> 2) & 1), bit3 = SIMD16<UInt32>() &- (n &>> 3)
        let low = w0 ^ ((w0 ^ w1) & bit2), high = w2 ^ ((w2 ^ w3) & bit2)
        let word = low ^ ((low ^ high) & bit3)
        return ((word &>> ((n & 3) &<< 3)) & 0xFF) &- 128
    }

    public static func dotReference(row: UnsafeRawPointer, _ activations: Q8Vector, blocks: Int) -> Float {
        var total: Float = 0
        for b in 0..<blocks {
            let block = row + b * bytesPerBlock
            let d = Float(block.loadUnaligned(fromByteOffset: dOffset, as: Float16.self))
            total += d * activations.scales[b] * Float(integerDot(block + qsOffset, activations.values + 32 * b))
        }
        return total
    }

    /// `Σ kvalues[q_i]·x_i` over the 32 weights of the 16 nibble bytes at `qs` and one
    /// activation block, one element at a time (for the scalar references).
    static func integerDot(_ qs: UnsafeRawPointer, _ x: UnsafePointer<Int32>) -> Int32 {
        var integer: Int32 = 0
        for i in 0..<32 {
            // Byte i % 16 holds weight i in its low nibble (i < 16) or high nibble.
            let byte = qs.load(fromByteOffset: i % 16, as: UInt8.self)
            let q = Int(i < 16 ? byte & 0xF : byte >> 4)
            integer += Int32(codebook[q]) * Q8Activations.element(x, i)
        }
        return integer
    }
}
