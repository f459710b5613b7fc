// The loop shared by the AVX-512 kernels of the k-quants with one fp16 scale d per 256 weights
// and sixteen signed sub-block scales (Q3_K, Q6_K): one 512-bit `vpdpbusd` per 64 weights.
// A format says how to unpack 64 weights to unsigned bytes (its signed values plus
// `2^offsetShift`) and its sub-block scales over their lanes; the offset correction with the
// activations' group sums, the integer scaling and the float accumulation are here.

#if POCKET_X86_KERNELS
/// An x86 kernel (``ByteDot``: AVX-512 VNNI, AVX2 or SSE2) of a k-quant with sixteen signed sub-block scales per super-block.
///
/// For the weights 64k…64k+63 of a super-block (activation blocks 8·sb + 2k and the next), lane
/// L of a product holds weights 4L…4L+3: sub-block 4k + L/4. Each lane is corrected by the
/// offset, multiplied by its sub-block scale in integers (exact: below 2^24 in magnitude) and
/// by d·a of its activation block in floats.
protocol SignedScaleKernel: SharedLoopKernel {
    /// Bytes per super-block of the format.
    static var superBlockBytes: Int { get }
    /// Byte offset of the fp16 super-block scale d.
    static var scaleOffset: Int { get }
    /// The unsigned weights are the signed ones plus `2^offsetShift` (Q3_K: 4, Q6_K: 32).
    static var offsetShift: Int32 { get }
    /// Weights 64k…64k+63 of the super-block as unsigned bytes in weight order.
    static func weights(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<UInt32>
    /// The signed scales of sub-blocks 4k…4k+3, each over its four lanes; `shifts` is
    /// ``SignedScaleKernels/byteToTop`` (passed in so that it stays in a register).
    static func scales(_ block: UnsafeRawPointer, _ k: Int, _ shifts: SIMD16<UInt32>) -> SIMD16<Int32>
}

/// Constants of ``SignedScaleKernel``.
enum SignedScaleKernels {
    /// Per-lane shifts that bring byte L/4 of a 32-bit word to the top of lane L.
    static let byteToTop = SIMD16<UInt32>(24, 24, 24, 24, 16, 16, 16, 16, 8, 8, 8, 8, 0, 0, 0, 0)
}

extension SignedScaleKernel {
    /// The loop behind ``DotKernel/dot(row:_:blocks:)`` (see ``SharedLoopKernel``).
    @inline(__always)
    static func loopDot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
        var lanes = SIMD16<Float>()
        var block = row
        let shifts = SignedScaleKernels.byteToTop
        for sb in 0..<(blocks / 8) {
            let d = ByteDot.half(block, scaleOffset)
            for k in 0..<4 {
                let b = 8 * sb + 2 * k
                lanes.multiplyAdd(products(weights(block, k), scales(block, k, shifts), x, b), spreadScales(d, x, b))
            }
            block += superBlockBytes
        }
        return ByteDot.sum(lanes)
    }

    /// ``DotKernel/dot4(row:_:blocks:)`` for this kernel: each quarter super-block's weights
    /// and scales are unpacked once; every vector gets exactly the operations of
    /// ``loopDot(row:_:blocks:)``.
    @inline(__always)
    static func loopDot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
        var block = row
        let shifts = SignedScaleKernels.byteToTop
        for sb in 0..<(blocks / 8) {
            let d = ByteDot.half(block, scaleOffset)
            for k in 0..<4 {
                let b = 8 * sb + 2 * k
                let w = weights(block, k), s = scales(block, k, shifts)
                l0.multiplyAdd(products(w, s, x.0, b), spreadScales(d, x.0, b))
                l1.multiplyAdd(products(w, s, x.1, b), spreadScales(d, x.1, b))
                l2.multiplyAdd(products(w, s, x.2, b), spreadScales(d, x.2, b))
                l3.multiplyAdd(products(w, s, x.3, b), spreadScales(d, x.3, b))
            }
            block += superBlockBytes
        }
        return SIMD4(ByteDot.sum(l0), ByteDot.sum(l1), ByteDot.sum(l2), ByteDot.sum(l3))
    }

    /// d·a of activation blocks b and b + 1 over their lanes.
    @inline(__always)
    static func spreadScales(_ d: Float, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
        ByteDot.spread(UnsafeRawPointer(x.scales + b).loadUnaligned(as: SIMD2<Float>.self) * d)
    }

    /// Sixteen lanes of sc·Σ(w − offset)·x over four products each, exactly, as floats.
    @inline(__always)
    static func products(_ weights: SIMD16<UInt32>, _ scales: SIMD16<Int32>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
        let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD16<UInt32>.self)
        let sums = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD16<Int32>.self)
        return ByteDot.floats((ByteDot.dot(.zero, small: weights, values) &- sums &<< offsetShift) &* scales)
    }
}
#endif
