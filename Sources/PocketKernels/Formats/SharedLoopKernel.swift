// What the shared AVX-512 loops (``BlockPairKernel``, ``ScaleMinKernel``, ``SignedScaleKernel``)
// have in common: they read the activations as bytes and give a kernel its `DotKernel` entry
// points, so a per-format kernel is only its unpacking.

#if POCKET_X86_KERNELS
/// An x86 kernel (``ByteDot``: AVX-512 VNNI, AVX2 or SSE2) written with one of the shared loops.
protocol SharedLoopKernel: DotKernel {
    /// One activation vector: the shared loop's product.
    static func loopDot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float
    /// Four activation vectors at once; each equals ``loopDot(row:_:blocks:)`` exactly.
    static func loopDot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float>
}

extension SharedLoopKernel {
    /// The loops read the activations as bytes (``Q8Activations/Layouts/bytes``).
    public static var activationLayouts: Q8Activations.Layouts { .bytes }

    /// The kernel's ``DotKernel/dot(row:_:blocks:)``. The matrix products call it with the
    /// kernel as a static type (``KernelTable``), so it is specialized there; a call from
    /// another module goes through the conformance and is not. Not inlined: inside the row
    /// loop the 32-weight formats' loop ran about 1.5× slower.
    @inline(never)
    public static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
        loopDot(row: row, x, blocks: blocks)
    }

    /// The kernel's ``DotKernel/dot4(row:_:blocks:)`` (see ``dot(row:_:blocks:)``).
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        loopDot4(row: row, x, blocks: blocks)
    }
}
#endif
