// The loop shared by the AVX-512 kernels of the k-quants with a scale and a minimum per
// sub-block of 32 (Q4_K, Q5_K): one 512-bit `vpdpbusd` per two sub-blocks.
//
// A sub-block of 32 weights is one activation block b (scale a_b), so
//   Σ (d·sc_b·q − dmin·m_b)·a_b·x  =  Σ_b d·sc_b·a_b·Σ q·x  −  dmin·Σ_b m_b·(a_b·Σ x).
// Lanes 0…7 of a product belong to sub-block 2c, lanes 8…15 to 2c + 1, each scaled by its
// d·sc·a in floats; the mins meet the activations' exact block sums (``Q8Vector/blockSums``)
// in one eight-lane multiply-add per super-block. A format only says how to unpack two
// sub-blocks to unsigned bytes; both formats pack their scales and mins as Q4_K does
// (``Q4_K/scaleAndMin(_:_:)``) after d and dmin at bytes 0 and 2.

#if POCKET_X86_KERNELS
/// An x86 kernel (``ByteDot``: AVX-512 VNNI, AVX2 or SSE2) of a k-quant with eight (scale, min) pairs per super-block.
protocol ScaleMinKernel: SharedLoopKernel {
    /// Bytes per super-block of the format.
    static var superBlockBytes: Int { get }
    /// Sub-blocks 2c and 2c + 1 of the super-block as 64 unsigned bytes in weight order.
    static func weights(_ block: UnsafeRawPointer, _ c: Int) -> SIMD16<UInt32>
}

extension ScaleMinKernel {
    /// The loop behind ``DotKernel/dot(row:_:blocks:)`` (see ``SharedLoopKernel``).
    @inline(__always)
    static func loopDot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
        var lanes = SIMD16<Float>()
        var offsets = SIMD8<Float>()
        var block = row
        for sb in 0..<(blocks / 8) {
            let (scales, mins) = scalesAndMins(block)
            offsets.multiplyAdd(mins, UnsafeRawPointer(x.blockSums + 8 * sb).loadUnaligned(as: SIMD8<Float>.self))
            for c in 0..<4 {
                let b = 8 * sb + 2 * c
                lanes.multiplyAdd(products(weights(block, c), x, b), spreadScales(scales, c, x, b))
            }
            block += superBlockBytes
        }
        return ByteDot.sum(lanes) - offsets.pairwiseSum()
    }

    /// ``DotKernel/dot4(row:_:blocks:)`` for this kernel: each super-block's weights and scales
    /// are unpacked once; every vector gets exactly the operations of
    /// ``loopDot(row:_:blocks:)``.
    @inline(__always)
    static func loopDot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
        var o0 = SIMD8<Float>(), o1 = SIMD8<Float>(), o2 = SIMD8<Float>(), o3 = SIMD8<Float>()
        var block = row
        for sb in 0..<(blocks / 8) {
            let (scales, mins) = scalesAndMins(block)
            @inline(__always) func sums(_ v: Q8Vector) -> SIMD8<Float> {
                UnsafeRawPointer(v.blockSums + 8 * sb).loadUnaligned(as: SIMD8<Float>.self)
            }
            o0.multiplyAdd(mins, sums(x.0)); o1.multiplyAdd(mins, sums(x.1))
            o2.multiplyAdd(mins, sums(x.2)); o3.multiplyAdd(mins, sums(x.3))
            for c in 0..<4 {
                let b = 8 * sb + 2 * c
                let w = weights(block, c)
                l0.multiplyAdd(products(w, x.0, b), spreadScales(scales, c, x.0, b))
                l1.multiplyAdd(products(w, x.1, b), spreadScales(scales, c, x.1, b))
                l2.multiplyAdd(products(w, x.2, b), spreadScales(scales, c, x.2, b))
                l3.multiplyAdd(products(w, x.3, b), spreadScales(scales, c, x.3, b))
            }
            block += superBlockBytes
        }
        return SIMD4(ByteDot.sum(l0) - o0.pairwiseSum(), ByteDot.sum(l1) - o1.pairwiseSum(), ByteDot.sum(l2) - o2.pairwiseSum(), ByteDot.sum(l3) - o3.pairwiseSum())
    }

    /// The eight sub-block scales times d, and the eight mins times dmin, as floats.
    @inline(__always)
    static func scalesAndMins(_ block: UnsafeRawPointer) -> (SIMD8<Float>, SIMD8<Float>) {
        let dm = ByteDot.halves(block, Q4_K.dOffset)
        var scales = SIMD8<Float>(), mins = SIMD8<Float>()
        for s in 0..<8 {
            let (scale, min) = Q4_K.scaleAndMin(block + Q4_K.scalesOffset, s)
            scales[s] = Float(scale)
            mins[s] = Float(min)
        }
        return (scales * dm[0], mins * dm[1])
    }

    /// d·sc·a of sub-blocks 2c and 2c + 1 (activation blocks b, b + 1) over their lanes.
    @inline(__always)
    static func spreadScales(_ scales: SIMD8<Float>, _ c: Int, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
        let pair = SIMD2(scales[2 * c], scales[2 * c + 1])
        return ByteDot.spread(pair * UnsafeRawPointer(x.scales + b).loadUnaligned(as: SIMD2<Float>.self))
    }

    /// Sixteen lanes of four products each (activation blocks b, b + 1), exactly, as floats.
    @inline(__always)
    static func products(_ weights: SIMD16<UInt32>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
        let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD16<UInt32>.self)
        return ByteDot.floats(ByteDot.dot(.zero, small: weights, values))
    }
}
#endif
