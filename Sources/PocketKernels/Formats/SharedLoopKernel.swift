// What the shared AVX-512 loops (``BlockPairKernel``, ``ScaleMinKernel``, ``SignedScaleKernel``)
// have in common: they read the activations as bytes and give a kernel its `DotKernel` entry
// points, so a per-format kernel is only its unpacking.

#if POCKET_AVX512_VNNI
/// An AVX-512 VNNI kernel written with one of the shared loops.
protocol SharedLoopKernel: DotKernel {
    /// One activation vector: the shared loop's product.
    static func loopDot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float
    /// Four activation vectors at once; each equals ``loopDot(row:_:blocks:)`` exactly.
    static func loopDot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float>
    /// Four rows times four activation vectors; each row's results equal
    /// ``loopDot4(row:_:blocks:)`` exactly.
    static func loopDot4x4(
        rows: UnsafeRawPointer, rowBytes: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>)
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

    /// The kernel's ``DotKernel/dot4x4(rows:rowBytes:_:blocks:)`` (see ``dot(row:_:blocks:)``).
    @inline(never)
    public static func dot4x4(
        rows: UnsafeRawPointer, rowBytes: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        loopDot4x4(rows: rows, rowBytes: rowBytes, x, blocks: blocks)
    }

    /// A loop without a tile of its own: ``loopDot4(row:_:blocks:)`` row by row.
    @inline(__always)
    static func loopDot4x4(
        rows: UnsafeRawPointer, rowBytes: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        (loopDot4(row: rows, x, blocks: blocks), loopDot4(row: rows + rowBytes, x, blocks: blocks),
         loopDot4(row: rows + 2 * rowBytes, x, blocks: blocks), loopDot4(row: rows + 3 * rowBytes, x, blocks: blocks))
    }
}

/// The sums of one activation vector with the four rows of a ``SharedLoopKernel/loopDot4x4(rows:rowBytes:_:blocks:)``
/// tile, sixteen float lanes per row.
struct TileColumn {
    var r0 = SIMD16<Float>(), r1 = SIMD16<Float>(), r2 = SIMD16<Float>(), r3 = SIMD16<Float>()

    /// Row `r`'s lanes (for the tail of a loop; the hot path names the rows).
    subscript(r: Int) -> SIMD16<Float> {
        @inline(__always) get { r == 0 ? r0 : r == 1 ? r1 : r == 2 ? r2 : r3 }
        @inline(__always) set {
            switch r {
            case 0: r0 = newValue
            case 1: r1 = newValue
            case 2: r2 = newValue
            default: r3 = newValue
            }
        }
    }

    /// The tile's results from the four vectors' sums: element `k` of result `i` is row `i`
    /// times vector `k`.
    @inline(__always)
    static func sums(_ c0: TileColumn, _ c1: TileColumn, _ c2: TileColumn, _ c3: TileColumn)
        -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        (SIMD4(VNNI.sum(c0.r0), VNNI.sum(c1.r0), VNNI.sum(c2.r0), VNNI.sum(c3.r0)),
         SIMD4(VNNI.sum(c0.r1), VNNI.sum(c1.r1), VNNI.sum(c2.r1), VNNI.sum(c3.r1)),
         SIMD4(VNNI.sum(c0.r2), VNNI.sum(c1.r2), VNNI.sum(c2.r2), VNNI.sum(c3.r2)),
         SIMD4(VNNI.sum(c0.r3), VNNI.sum(c1.r3), VNNI.sum(c2.r3), VNNI.sum(c3.r3)))
    }
}
#endif
