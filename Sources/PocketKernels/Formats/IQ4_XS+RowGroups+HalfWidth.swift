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
        var sums = (SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>(), SIMD8<Float>())
        var column = group
        for sb in 0..<blocks {
            let scales = SubBlockScales<SIMD8<UInt32>>(column, half: half), d = self.scales(column, half: half)
            // Written out, so that the scales' shifts are constants; a static function, not a
            // nested one, whose captured sums would be checked for exclusive access.
            addSubBlock(0, column, half, scales, d, x, sb, &sums); addSubBlock(1, column, half, scales, d, x, sb, &sums)
            addSubBlock(2, column, half, scales, d, x, sb, &sums); addSubBlock(3, column, half, scales, d, x, sb, &sums)
            addSubBlock(4, column, half, scales, d, x, sb, &sums); addSubBlock(5, column, half, scales, d, x, sb, &sums)
            addSubBlock(6, column, half, scales, d, x, sb, &sums); addSubBlock(7, column, half, scales, d, x, sb, &sums)
            column += IQ4_XS.groupColumnBytes
        }
        return sums
    }

    /// Adds sub-block `s` of super-block `sb` (rows of half `half`) times the four vectors into
    /// their sums.
    @inline(__always)
    static func addSubBlock(
        _ s: Int, _ column: UnsafeRawPointer, _ half: Int, _ scales: SubBlockScales<SIMD8<UInt32>>, _ d: SIMD8<Float>,
        _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), _ sb: Int, _ sums: inout (SIMD8<Float>, SIMD8<Float>, SIMD8<Float>, SIMD8<Float>)
    ) {
        let w = subBlockWeights(column, s, half: half, as: SIMD8<UInt32>.self), dl = scales.scale(s, d)
        let b = 8 * sb + s
        add(&sums.0, w, dl, x.0, b); add(&sums.1, w, dl, x.1, b)
        add(&sums.2, w, dl, x.2, b); add(&sums.3, w, dl, x.3, b)
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
