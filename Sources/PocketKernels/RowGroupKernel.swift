/// A kernel that multiplies activations with a matrix repacked into ``RowGroups``: sixteen
/// rows at a time, lanes being rows.
///
/// Only the x86 kernels conform (`POCKET_X86_KERNELS`: the avx512, avx2 and sse2 tiers alike),
/// those of Q2_K, Q4_0, Q4_1, Q4_K, Q5_0, Q5_1, Q6_K, Q8_0, IQ4_NL and IQ4_XS (`Formats/*+RowGroups.swift`, on the
/// tier's ``ByteDot``); the 256-bit tiers (avx2, sse2) run some of their loops in halves of eight
/// rows (`Formats/*+RowGroups+HalfWidth*.swift`). ``WeightMatrix/withRowGroups(pool:)`` repacks a
/// matrix only when its format's kernel conforms, so the portable build and the other formats
/// keep the row-by-row layout. Both products read the
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
    /// `x[0..<8]`: vector `k`'s sixteen sums are stored at `output + k · stride` (a product's
    /// output rows, one token apart). For kernels that unpack each column once for eight
    /// vectors; the default is two ``groupDot4(_:_:blocks:)``.
    static func groupDot8(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, blocks: Int, into output: UnsafeMutablePointer<Float>, stride: Int)

    /// ``groupDot8(_:_:blocks:into:stride:)`` for the `count` consecutive groups from `first`
    /// (`groupBytes` apart; group `g`'s sums at `output + 16g`). A kernel may go through the
    /// tile column by column instead of group by group, to prepare each column's activations once
    /// for all of its groups; the default is one ``groupDot8(_:_:blocks:into:stride:)`` per group.
    static func tileDot8(
        _ first: UnsafeRawPointer, groupBytes: Int, count: Int, _ x: UnsafePointer<Q8Vector>, blocks: Int,
        into output: UnsafeMutablePointer<Float>, stride: Int)

    /// The least number of groups a ``tileDot8(_:groupBytes:count:_:blocks:into:stride:)`` tile
    /// should have, whatever their size (the default, 1, leaves the tile to the weight bytes).
    static var tileGroupsAtLeast: Int { get }
}

extension RowGroupKernel {
    @inline(__always)
    public static func tileDot8(
        _ first: UnsafeRawPointer, groupBytes: Int, count: Int, _ x: UnsafePointer<Q8Vector>, blocks: Int,
        into output: UnsafeMutablePointer<Float>, stride: Int
    ) {
        for g in 0..<count {
            groupDot8(first + g * groupBytes, x, blocks: blocks, into: output + g * RowGroups.rowsPerGroup, stride: stride)
        }
    }

    @inline(__always)
    public static var tileGroupsAtLeast: Int { 1 }

    @inline(__always)
    public static func groupDot8(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, blocks: Int, into output: UnsafeMutablePointer<Float>, stride: Int) {
        groupDot8InFours(group, x, blocks: blocks, into: output, stride: stride)
    }

    /// ``groupDot8(_:_:blocks:into:stride:)`` as two ``groupDot4(_:_:blocks:)`` (the default,
    /// and what a kernel that overrides it falls back to).
    @inline(__always)
    static func groupDot8InFours(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, blocks: Int, into output: UnsafeMutablePointer<Float>, stride: Int) {
        for half in 0..<2 {
            let x = x + 4 * half, sums = groupDot4(group, (x[0], x[1], x[2], x[3]), blocks: blocks)
            let out = UnsafeMutableRawPointer(output + 4 * half * stride)
            out.storeBytes(of: sums.0, as: SIMD16<Float>.self)
            out.storeBytes(of: sums.1, toByteOffset: 4 * stride, as: SIMD16<Float>.self)
            out.storeBytes(of: sums.2, toByteOffset: 8 * stride, as: SIMD16<Float>.self)
            out.storeBytes(of: sums.3, toByteOffset: 12 * stride, as: SIMD16<Float>.self)
        }
    }
}
