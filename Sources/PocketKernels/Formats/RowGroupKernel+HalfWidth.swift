// The four-vector loop of the 32-weight row-group kernels (``GroupColumnKernel``: Q4_0, Q5_0,
// Q8_0, IQ4_NL) in 256-bit halves, for the tiers without 512-bit vectors (AVX2, SSE2). Written for
// AVX2, whose instructions and registers these are; SSE2 has sixteen registers of 128 bits.
//
// A column's eight weight vectors take sixteen 256-bit registers for sixteen rows, all that
// AVX2 has, so with four vectors' sums the sixteen-row loop of `RowGroupKernel+X86.swift`
// spills. Here each half of a group (rows 0…7, then 8…15) is a pass of its own: eight weight
// registers, the four sums and the products' temporaries fit. (One vector's loop keeps the
// sixteen rows: it has one sum, and two passes measured slower.) Per block and vector:
// - Q4_0 and Q5_0 (weights below 32): two chains of four `vpmaddubsw` added in 16 bits, as on
//   sixteen rows;
// - Q8_0 and IQ4_NL (the codebook + 128): the weights' bytes flipped back to signed and
//   multiplied as |w| · (x with w's sign), one `vpmaddubsw` per vector (llama.cpp's AVX2
//   product), instead of the even and odd bytes' two that the unsigned w + 128 needs; the
//   product is then signed already, so the block starts from zero instead of −128·Σx.
// The integers are the same as the reference's, so the results are bit for bit the same.

#if POCKET_X86_KERNELS && !POCKET_512BIT_VECTORS
/// A four-vector product of a row group from its two passes of eight rows: `pass(0)` gives rows
/// 0…7, `pass(1)` rows 8…15, each the four vectors' sums.
@inline(__always)
func inTwoPasses(_ pass: (Int) -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>))
    -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
    let low = pass(0), high = pass(1)
    return (SIMD16(lowHalf: low.0, highHalf: high.0), SIMD16(lowHalf: low.1, highHalf: high.1),
            SIMD16(lowHalf: low.2, highHalf: high.2), SIMD16(lowHalf: low.3, highHalf: high.3))
}

extension GroupColumnKernel {
    #if !POCKET_WIDENED_COLUMNS  // SSE2 widens the columns of Q4_0 and Q5_0 (`WidenedColumns+SSE2.swift`)
    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        inTwoPasses { halfGroupDot4(group, half: $0, x, blocks: blocks) }
    }
    #endif

    /// Rows `8·half`…`8·half + 7` of a group times four vectors, each column unpacked once:
    /// the 32 bytes at `32·half` of each 64-byte word vector (one 32-bit lane per row) and the
    /// 16 at `16·half` of the scales.
    @inline(__always)
    static func halfGroupDot4(_ group: UnsafeRawPointer, half: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var column = group
        for b in 0..<blocks {
            let w = columnWeights(column + 32 + 32 * half, as: SIMD8<UInt32>.self), d = scales(column, half: half)
            add(&s0, w, d, x.0, b)
            add(&s1, w, d, x.1, b)
            add(&s2, w, d, x.2, b)
            add(&s3, w, d, x.3, b)
            column += Format.groupColumnBytes
        }
        return (s0, s1, s2, s3)
    }
}

extension GroupBlockKernel {
    /// Adds block `b` of eight rows (weights `w`, scales `d`) times `x` into `sum`, in the
    /// order of ``RowGroupFormat/groupDotReference(_:row:_:blocks:)``.
    @inline(__always)
    static func add(_ sum: inout SIMD8<Float>, _ w: GroupWeights<SIMD8<UInt32>>, _ d: SIMD8<Float>, _ x: Q8Vector, _ b: Int) {
        let a = UnsafeRawPointer(x.bytes + 32 * b)
        add(&sum, w, d, start: { SIMD8(repeating: 0 &- x.blockIntegerSums[b] &<< offsetShift) },
            scale: { SIMD8(repeating: x.scales[b]) }, word: { SIMD8(repeating: a.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)) })
    }

    /// ``add(_:_:_:_:_:)`` from a block's activations already in every lane: its words
    /// (`word(k)`: bytes 4k…4k+3), the offset's starting value and its scale.
    @inline(__always)
    static func add(
        _ sum: inout SIMD8<Float>, _ w: GroupWeights<SIMD8<UInt32>>, _ d: SIMD8<Float>, start: () -> SIMD8<Int32>,
        scale: () -> SIMD8<Float>, word: (Int) -> SIMD8<UInt32>
    ) {
        let p: SIMD8<Int32>, q: SIMD8<Int32>
        if offsetShift == 7 {
            // Q8_0, IQ4_NL: signed products, no offset to take away.
            @inline(__always) func product(_ partial: SIMD8<Int32>, _ weights: SIMD8<UInt32>, _ k: Int) -> SIMD8<Int32> {
                ByteDot.dot(partial, flipped: weights, word(k))
            }
            p = product(product(product(product(.zero, w.w0, 0), w.w1, 1), w.w2, 2), w.w3, 3)
            q = product(product(product(product(.zero, w.w4, 4), w.w5, 5), w.w6, 6), w.w7, 7)
        } else {
            // Weights below 32 (Q4_0, Q5_0): each chain of four products in one call.
            p = ByteDot.dot(start(), below32: (w.w0, w.w1, w.w2, w.w3), (word(0), word(1), word(2), word(3)))
            q = ByteDot.dot(.zero, below32: (w.w4, w.w5, w.w6, w.w7), (word(4), word(5), word(6), word(7)))
        }
        sum.multiplyAdd(ByteDot.floats(p &+ q), d * scale())
    }

    /// The scales `d` of rows `8·half`…`8·half + 7` of a column as floats.
    @inline(__always)
    static func scales(_ column: UnsafeRawPointer, half: Int) -> SIMD8<Float> {
        ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 16 * half, as: SIMD8<UInt16>.self))
    }
}
#endif
