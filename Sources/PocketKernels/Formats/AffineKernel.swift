// The loop shared by the x86 kernels of the 32-weight formats with a minimum (Q4_1, Q5_1), in
// llama.cpp's order (``AffineGroupFormat``): one 256-bit byte dot product per block, whose lane
// j holds the four products of weights 4j…4j+3, scaled by d·d_x into eight float lanes; the
// minimums' term m·d_x·Σx is a scalar of its own. A format only says how to unpack a block's
// weights to unsigned bytes (``AffineKernel/weights(_:)``) and which activation sum its minimum
// multiplies (``AffineGroupFormat/minimumFactor(_:_:)``).

#if POCKET_X86_KERNELS
/// An x86 kernel (``ByteDot``: AVX-512 VNNI, AVX2 or SSE2) of a format with a minimum, in
/// llama.cpp's float order (see ``AffineGroupFormat``).
protocol AffineKernel: DotKernel {
    /// The format of the blocks: `d` at byte 0, `m` at byte 2.
    associatedtype Format: AffineGroupFormat
    /// The block's 32 weights as unsigned bytes (below 32) in weight order.
    static func weights(_ block: UnsafeRawPointer) -> SIMD8<UInt32>
}

extension AffineKernel {
    /// Reads ``Q8Activations/Layouts/bytes``.
    public static var activationLayouts: Q8Activations.Layouts { .bytes }

    /// One activation vector, in llama.cpp's order (``AffineGroupFormat``).
    @inline(__always)
    public static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
        var lanes = SIMD8<Float>()
        var offsets: Float = 0
        var block = row
        let values = UnsafeRawPointer(x.bytes)
        for b in 0..<blocks {
            let dm = ByteDot.halves(block, 0), d = dm[0], m = dm[1]
            lanes.multiplyAdd(SIMD8(repeating: d * x.scales[b]), products(weights(block), values + 32 * b))
            offsets = offsets.plusProduct(m, Format.minimumFactor(x, b))
            block += Format.bytesPerBlock
        }
        return lanes.pairwiseSum() + offsets
    }

    /// Four activation vectors at once: each block's weights are unpacked once; every
    /// vector gets exactly the operations of ``dot(row:_:blocks:)``. Not inlined: inlined into
    /// the matrix loop it slowed the single-vector (decode) path by 13% (measured on Q4_1).
    @inline(never)
    public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var l0 = SIMD8<Float>(), l1 = SIMD8<Float>(), l2 = SIMD8<Float>(), l3 = SIMD8<Float>()
        var o0: Float = 0, o1: Float = 0, o2: Float = 0, o3: Float = 0
        let v0 = UnsafeRawPointer(x.0.bytes), v1 = UnsafeRawPointer(x.1.bytes)
        let v2 = UnsafeRawPointer(x.2.bytes), v3 = UnsafeRawPointer(x.3.bytes)
        var block = row
        for b in 0..<blocks {
            let dm = ByteDot.halves(block, 0), d = dm[0], m = dm[1]
            let w = weights(block)
            l0.multiplyAdd(SIMD8(repeating: d * x.0.scales[b]), products(w, v0 + 32 * b))
            l1.multiplyAdd(SIMD8(repeating: d * x.1.scales[b]), products(w, v1 + 32 * b))
            l2.multiplyAdd(SIMD8(repeating: d * x.2.scales[b]), products(w, v2 + 32 * b))
            l3.multiplyAdd(SIMD8(repeating: d * x.3.scales[b]), products(w, v3 + 32 * b))
            o0 = o0.plusProduct(m, Format.minimumFactor(x.0, b)); o1 = o1.plusProduct(m, Format.minimumFactor(x.1, b))
            o2 = o2.plusProduct(m, Format.minimumFactor(x.2, b)); o3 = o3.plusProduct(m, Format.minimumFactor(x.3, b))
            block += Format.bytesPerBlock
        }
        return SIMD4(l0.pairwiseSum() + o0, l1.pairwiseSum() + o1, l2.pairwiseSum() + o2, l3.pairwiseSum() + o3)
    }

    /// The 16 bytes at `offset` of a block as its 32 nibbles in weight order (weights 0…15 in
    /// the low nibbles, 16…31 in the high ones: Q4_1's and Q5_1's `qs`).
    @inline(__always)
    static func nibbles(_ block: UnsafeRawPointer, _ offset: Int) -> SIMD8<UInt32> {
        let qs = block.loadUnaligned(fromByteOffset: offset, as: SIMD4<UInt32>.self)
        return SIMD8(lowHalf: qs, highHalf: qs &>> 4) & 0x0F0F_0F0F
    }

    /// Eight lanes of four products each, exactly, as floats.
    @inline(__always)
    static func products(_ weights: SIMD8<UInt32>, _ values: UnsafeRawPointer) -> SIMD8<Float> {
        IntegerLanes.exactFloats(ByteDot.dot(.zero, small: weights, values.loadUnaligned(as: SIMD8<UInt32>.self)))
    }
}
#endif
