// Q4_1 in row groups (``RowGroups``): the scales `d`, then the minimums `m`, then the four
// words of nibbles `qs` as they are (see Q4_0's row groups).
//
// Unlike the formats with an offset, the Q4_1 kernels keep llama.cpp's float order
// (docs/kernels.md, ``AffineGroupFormat``): eight float lanes per row, summed pairwise at the
// end, plus the minimums' term. The row-group kernel keeps them too (the loops it shares with
// Q5_1, `AffineKernel+RowGroups.swift`), so its results equal ``Q4_1/dot(row:_:blocks:)`` bit
// for bit.

extension Q4_1: AffineGroupFormat {
    public static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8] { nibbles(block, at: qsOffset) }

    /// llama.cpp's fp16-rounded `d_x·Σx` (its `q8_1` block's `s`), as the portable kernel reads it.
    @inline(__always)
    static func minimumFactor(_ x: Q8Vector, _ b: Int) -> Float { x.sums[b] }
}

#if POCKET_X86_KERNELS
extension Q4_1.X86: AffineGroupKernel {
    @inline(__always)
    static func columnWeights(_ words: UnsafeRawPointer) -> GroupWeights<SIMD16<UInt32>> { .fourBit(words) }
}
#endif
