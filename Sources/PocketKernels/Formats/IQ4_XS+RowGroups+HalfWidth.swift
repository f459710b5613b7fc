// IQ4_XS's four-vector row-group kernel in 256-bit halves, for the tiers without 512-bit vectors
// (AVX2, SSE2; the layout: `IQ4_XS+RowGroups.swift`). As the 32-weight kernels' loop
// (`RowGroupKernel+HalfWidth.swift`): a sub-block's eight weight vectors of sixteen rows take
// all of AVX2's sixteen registers, so each half of a group (rows 0…7, then 8…15) is a pass of
// its own, and each sub-block's block product is theirs, the codebook's signed bytes
// multiplied as |w| · (x with w's sign). The integers and float steps are those of the
// sixteen-row kernel, so the results are the same bit for bit.

#if POCKET_X86_KERNELS && !POCKET_512BIT_VECTORS
extension IQ4_XS.X86 {
    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        inTwoPasses { halfGroupDot4(group, half: $0, x, blocks: blocks) }
    }

    /// Rows `8·half`…`8·half + 7` of a group times four vectors, each sub-block unpacked, and
    /// its scale made, once for the four.
    @inline(__always)
    static func halfGroupDot4(_ group: UnsafeRawPointer, half: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>) {
        var s0 = SIMD8<Float>(), s1 = SIMD8<Float>(), s2 = SIMD8<Float>(), s3 = SIMD8<Float>()
        var column = group
        for sb in 0..<blocks {
            let scales = SubBlockScales<SIMD8<UInt32>>(column, half: half), d = self.scales(column, half: half)
            eachSubBlock { s in
                let w = subBlockWeights(column, s, half: half, as: SIMD8<UInt32>.self), dl = scales.scale(s, d), b = 8 * sb + s
                add(&s0, w, dl, x.0, b); add(&s1, w, dl, x.1, b)
                add(&s2, w, dl, x.2, b); add(&s3, w, dl, x.3, b)
            }
            column += IQ4_XS.groupColumnBytes
        }
        return (s0, s1, s2, s3)
    }
}

extension IQ4_XS.X86.SubBlockScales where Lanes == SIMD8<UInt32> {
    /// d·(ls − 32) of sub-block `s` of eight rows, exact, from their `d`.
    @inline(__always)
    func scale(_ s: Int, _ d: SIMD8<Float>) -> SIMD8<Float> {
        d * ByteDot.floats(unsafeBitCast(signed(s), to: SIMD8<Int32>.self))
    }
}
#endif
