/// A kernel that multiplies activations with a matrix repacked into ``RowGroups``: sixteen
/// rows at a time, lanes being rows.
///
/// Only per-ISA kernels conform (this build's AVX-512 VNNI kernels of Q2_K, Q4_0, Q4_1, Q4_K, Q5_0,
/// Q6_K and Q8_0); ``WeightMatrix/withRowGroups(pool:)`` repacks a matrix only when its format's
/// kernel does, so the portable build keeps the row-by-row layout. Both products read the
/// kernel's ``DotKernel/activationLayouts`` and must equal
/// ``RowGroupFormat/groupDotReference(_:row:_:blocks:)`` of each row bit for bit.
public protocol RowGroupKernel: DotKernel {
    /// The format of the repacked blocks.
    associatedtype Format: RowGroupFormat

    /// The products of the sixteen rows of one group with one activation vector (lane `r`:
    /// row `r`).
    ///
    /// - Parameters:
    ///   - group: First byte of the group (``RowGroups/group(_:)``).
    ///   - blocks: The format's blocks per row (``RowGroups/blocks``).
    static func groupDot(_ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float>

    /// The products of the sixteen rows of one group with four activation vectors (result `k`:
    /// vector `k`): each column of weights is unpacked once for the four.
    static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>)

    /// The products of the sixteen rows of one group with the eight activation vectors
    /// `x[0..<8]`, into `sums[0..<8]`: for kernels that unpack each column once for eight
    /// vectors. The default is two ``groupDot4(_:_:blocks:)``.
    static func groupDot8(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, blocks: Int, into sums: UnsafeMutablePointer<SIMD16<Float>>)
}

extension RowGroupKernel {
    @inline(__always)
    public static func groupDot8(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, blocks: Int, into sums: UnsafeMutablePointer<SIMD16<Float>>) {
        (sums[0], sums[1], sums[2], sums[3]) = groupDot4(group, (x[0], x[1], x[2], x[3]), blocks: blocks)
        (sums[4], sums[5], sums[6], sums[7]) = groupDot4(group, (x[4], x[5], x[6], x[7]), blocks: blocks)
    }
}
