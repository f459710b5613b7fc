// Q5_1 in row groups (``RowGroups``): the scales `d`, then the minimums `m`, then the block's
// five words (`qh`, then the four words of nibbles) rearranged as Q5_0's (`Q5_0+RowGroups.swift`:
// each of the eight weight vectors unpacks with at most four instructions).
//
// The kernels keep Q4_1's float order (``AffineGroupFormat``) with the exact activation sums
// (see `Q5_1+X86.swift`), so the row-group kernel's results equal ``Q5_1/X86/dot(row:_:blocks:)``
// bit for bit.

extension Q5_1: AffineGroupFormat {
    /// Q5_0's arrangement of the same five words.
    public static func groupWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32> { Q5_0.groupWords(words) }

    /// Q5_0's arrangement undone.
    public static func blockWords(_ words: SIMD8<UInt32>) -> SIMD8<UInt32> { Q5_0.blockWords(words) }

    public static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8] {
        fiveBitWeights(block, qhOffset: qhOffset, qsOffset: qsOffset)
    }

    /// The exact `d_x·Σx`, as Q5_1's reference and portable kernel use it.
    @inline(__always)
    static func minimumFactor(_ x: Q8Vector, _ b: Int) -> Float { x.blockSums[b] }
}

#if POCKET_X86_KERNELS
extension Q5_1.X86: AffineGroupKernel {
    @inline(__always)
    static func columnWeights(_ words: UnsafeRawPointer) -> GroupWeights<SIMD16<UInt32>> {
        Q5_0.X86.columnWeights(words, as: SIMD16<UInt32>.self)
    }
}
#endif
