// IQ4_XS on x86: one 512-bit byte product per 64 weights (two sub-blocks, two activation
// blocks), the codebook looked up by `vpshufb` as IQ4_NL's kernel does (`IQ4_NL+X86.swift`).
//
// Sub-block ib (32 weights, one activation block) is an IQ4_NL block with the scale
// d·(ls − 32): lanes 0…7 of a product hold sub-block 2k, lanes 8…15 sub-block 2k + 1, so the
// sub-block scale goes into the float multiplier of each half, d·(ls − 32)·d_x (d·(ls − 32) is
// exact: 11 × 6 significant bits), instead of a 32-bit integer multiply per lane. The looked-up
// bytes are the codebook plus 128 (1…241):
// - AVX-512: the unsigned product `vpdpbusd`, started from −128 times each lane's activation
//   sum (the activations' group sums), as Q8_0's;
// - AVX2 and SSE2: the flipped signed product (|w| times x with w's sign on AVX2: one
//   `vpmaddubsw` per 32 bytes instead of the two that unsigned bytes above 127 need), exact as
//   the activations are within ±127, with no offset to take off.
// The portable kernel and the reference multiply the scale in integers, so they agree to float
// rounding.

#if POCKET_X86_KERNELS
extension IQ4_XS {
    public typealias Kernel = X86

    /// The x86 kernel of ``IQ4_XS`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads
    /// ``Q8Activations/Layouts/bytes``).
    public enum X86: SharedLoopKernel {
        /// The loop behind ``DotKernel/dot(row:_:blocks:)`` (see ``SharedLoopKernel``).
        @inline(__always)
        static func loopDot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
            var lanes = SIMD16<Float>()
            var block = row
            for sb in 0..<(blocks / 8) {
                let d = ByteDot.half(block, dOffset)
                for k in 0..<4 {
                    let b = 8 * sb + 2 * k
                    lanes.multiplyAdd(products(weights(block, k), x, b), spreadScales(scales(block, k, d), x, b))
                }
                block += bytesPerBlock
            }
            return ByteDot.sum(lanes)
        }

        /// ``DotKernel/dot4(row:_:blocks:)`` for this kernel: each pair of sub-blocks is
        /// unpacked, and its scales computed, once; every vector gets exactly the operations
        /// of ``loopDot(row:_:blocks:)``.
        @inline(__always)
        static func loopDot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
            var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
            var block = row
            for sb in 0..<(blocks / 8) {
                let d = ByteDot.half(block, dOffset)
                for k in 0..<4 {
                    let b = 8 * sb + 2 * k
                    let w = weights(block, k), s = scales(block, k, d)
                    l0.multiplyAdd(products(w, x.0, b), spreadScales(s, x.0, b))
                    l1.multiplyAdd(products(w, x.1, b), spreadScales(s, x.1, b))
                    l2.multiplyAdd(products(w, x.2, b), spreadScales(s, x.2, b))
                    l3.multiplyAdd(products(w, x.3, b), spreadScales(s, x.3, b))
                }
                block += bytesPerBlock
            }
            return SIMD4(ByteDot.sum(l0), ByteDot.sum(l1), ByteDot.sum(l2), ByteDot.sum(l3))
        }

        /// Sub-blocks 2k and 2k + 1 of the super-block (weights 64k…64k+63) as the codebook
        /// plus 128, unsigned bytes in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<UInt32> {
            let q = block + qsOffset + 32 * k
            let first = q.loadUnaligned(as: SIMD4<UInt32>.self), second = q.loadUnaligned(fromByteOffset: 16, as: SIMD4<UInt32>.self)
            let indices = SIMD16(lowHalf: SIMD8(lowHalf: first, highHalf: first &>> 4),
                                 highHalf: SIMD8(lowHalf: second, highHalf: second &>> 4)) & 0x0F0F_0F0F
            return ByteDot.shuffleBytes(IQ4_NL.X86.table, indices)
        }

        /// d·(ls − 32) of sub-blocks 2k and 2k + 1 (exact), from the super-block's scale `d`.
        @inline(__always)
        static func scales(_ block: UnsafeRawPointer, _ k: Int, _ d: Float) -> SIMD2<Float> {
            // scales_l byte k: ls's low four bits, sub-block 2k's then 2k + 1's; scales_h bits
            // 4k…4k + 3: their high two bits each.
            let low = UInt32(block.byte(at: scalesLowOffset + k))
            let high = UInt32(block.loadUnaligned(fromByteOffset: scalesHighOffset, as: UInt16.self)) &>> UInt32(4 * k)
            let ls0 = low & 0xF | (high & 3) &<< 4, ls1 = low &>> 4 | (high &>> 2 & 3) &<< 4
            return SIMD2(Float(Int32(ls0) - 32), Float(Int32(ls1) - 32)) * d
        }

        /// The sub-blocks' scales times their activation blocks' (b, b + 1), spread over
        /// their lanes.
        @inline(__always)
        static func spreadScales(_ scales: SIMD2<Float>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
            ByteDot.spread(scales * UnsafeRawPointer(x.scales + b).loadUnaligned(as: SIMD2<Float>.self))
        }

        /// Sixteen lanes of four products Σ kvalues[q]·x each (activation blocks b, b + 1),
        /// exactly, as floats.
        @inline(__always)
        static func products(_ weights: SIMD16<UInt32>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
            let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD16<UInt32>.self)
            #if POCKET_512BIT_VECTORS
            let sums = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD16<Int32>.self)
            return ByteDot.floats(ByteDot.dot(SIMD16<Int32>.zero &- sums &<< 7, weights, values))
            #else
            return ByteDot.floats(ByteDot.dot(.zero, flipped: weights, values))
            #endif
        }
    }
}
#endif
