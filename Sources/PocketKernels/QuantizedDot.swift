/// A dot-product kernel of one block format with ``Q8Activations``: what ``MatrixMultiply``
/// calls. Every ``QuantizedDotFormat`` is one (its portable Swift-SIMD kernel); per-ISA kernels
/// are separate types (e.g. `Q8_0.X86`) that a format names as its ``QuantizedDotFormat/Kernel``
/// on builds for that instruction set.
public protocol DotKernel: Sendable {
    /// Dot product of one weight row (`blocks` consecutive blocks) with one activation vector.
    ///
    /// - Parameters:
    ///   - row: First byte of the row's first block.
    ///   - x: The quantized activation vector.
    ///   - blocks: Number of 32-weight activation blocks (the row length divided by 32).
    static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float

    /// Dot products of one weight row with four activation vectors (a prefill batch), which
    /// lets a kernel unpack the row's weights once for all four. Must equal four ``dot`` calls
    /// up to float rounding; the default implementation is exactly those calls.
    static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float>

    /// Dot products of four consecutive weight rows with four activation vectors (a tile of a
    /// prefill's matrix product): element `k` of result `i` is row `i` times vector `k`. A
    /// kernel that keeps the tile's sixteen sums in registers unpacks each row's weights once
    /// for four vectors and prepares each vector's scales once for four rows. Must equal
    /// ``dot4(row:_:blocks:)`` of each row up to float rounding; the default implementation is
    /// exactly those calls.
    ///
    /// - Parameters:
    ///   - rows: First byte of the first row; row `i` starts `i × rowBytes` further.
    ///   - rowBytes: Bytes per row.
    static func dot4x4(
        rows: UnsafeRawPointer, rowBytes: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)

    /// The activation layouts the kernel reads (ggml's `vec_dot_type`): only these are built
    /// before a product.
    static var activationLayouts: Q8Activations.Layouts { get }
}

/// A block format whose rows can be dotted with ``Q8Activations`` using integer arithmetic.
///
/// Each conforming format provides a portable SIMD kernel (its ``DotKernel`` conformance) and
/// the scalar reference it is tested against; ``Kernel`` is the fastest kernel of this build.
/// Adding a new weight format to the matrix products is one new file with one conformance and
/// one row in ``BlockFormats``.
public protocol QuantizedDotFormat: BlockFormat, DotKernel {
    /// The kernel ``MatrixMultiply`` uses on this build: a per-ISA kernel where the build
    /// machine's CPU has one (`POCKET_X86_KERNELS`), otherwise the format itself.
    associatedtype Kernel: DotKernel = Self

    /// The same product computed one element at a time, for tests.
    static func dotReference(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float
}

extension DotKernel {
    @inline(__always)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        SIMD4(dot(row: row, x.0, blocks: blocks), dot(row: row, x.1, blocks: blocks),
              dot(row: row, x.2, blocks: blocks), dot(row: row, x.3, blocks: blocks))
    }

    @inline(__always)
    public static func dot4x4(
        rows: UnsafeRawPointer, rowBytes: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        (dot4(row: rows, x, blocks: blocks), dot4(row: rows + rowBytes, x, blocks: blocks),
         dot4(row: rows + 2 * rowBytes, x, blocks: blocks), dot4(row: rows + 3 * rowBytes, x, blocks: blocks))
    }
}

/// One activation vector of ``Q8Activations``: the pointers a dot-product kernel reads.
public struct Q8Vector {
    /// Lane-ordered quantized values, 32 per block.
    package let values: UnsafePointer<Int32>
    /// Per-block scales `d`.
    package let scales: UnsafePointer<Float>
    /// Per-block `d × Σq`.
    package let sums: UnsafePointer<Float>
    /// Per-half-block (16 values) `d × Σq`.
    package let halfSums: UnsafePointer<Float>
    /// The same values as Int16 in pair order (``Q8Activations/pairOrderIndex(_:)``).
    package let pairValues: UnsafePointer<Int16>
    /// Values in super-block order (k-quants; only when the length is a multiple of 256).
    package let superValues: UnsafePointer<Int16>
    /// Per-256 scales of ``superValues``.
    package let superScales: UnsafePointer<Float>
    /// Sums of each 16 ``superValues`` times their scale, in ``Q8Activations/subBlockLane(_:)`` order.
    package let scaledSubBlockSums: UnsafePointer<Float>
    /// The values as bytes in plain order (``Q8Activations/Layouts/bytes``).
    package let bytes: UnsafePointer<Int8>
    /// Sums of each four consecutive ``bytes``.
    package let groupSums: UnsafePointer<Int32>
    /// Per-block `d × Σq`, not rounded.
    package let blockSums: UnsafePointer<Float>
    /// Per-block `Σq` of ``bytes`` as an integer.
    package let blockIntegerSums: UnsafePointer<Int32>
    /// The super-block values as bytes in plane order (``Q8Activations/planeOrderPosition(_:)``).
    package let superBytes: UnsafePointer<Int8>
    /// Integer sums of each 16 ``superBytes``, in ``Q8Activations/subBlockPairIndex(_:)`` order.
    package let pairedSubBlockSums: UnsafePointer<Int16>
}

extension Q8Activations {
    /// The activation vector of token `t`.
    @inline(__always) package func vector(token t: Int) -> Q8Vector {
        Q8Vector(
            values: values(token: t), scales: scales(token: t), sums: sums(token: t), halfSums: halfSums(token: t),
            pairValues: pairValues(token: t), superValues: superValues(token: t), superScales: superScales(token: t),
            scaledSubBlockSums: scaledSubBlockSums(token: t), bytes: bytes(token: t), groupSums: groupSums(token: t),
            blockSums: blockSums(token: t), blockIntegerSums: blockIntegerSums(token: t),
            superBytes: superBytes(token: t), pairedSubBlockSums: pairedSubBlockSums(token: t))
    }
}

extension Q8Activations {
    /// The plain (not lane-ordered) quantized value `i` of a block starting at `values`.
    @inline(__always)
    static func element(_ values: UnsafePointer<Int32>, _ i: Int) -> Int32 {
        values[laneOrderIndex(i)]
    }
}

extension SIMD8<Float> {
    /// `((x0 + x4) + (x2 + x6)) + ((x1 + x5) + (x3 + x7))`: the horizontal-sum order of
    /// llama.cpp's x86 kernels, kept so that sums round the same way.
    @inline(__always)
    func pairwiseSum() -> Float {
        let quad = lowHalf + highHalf
        return (quad[0] + quad[2]) + (quad[1] + quad[3])
    }
}
