// Q5_K with AVX-512 VNNI: one 512-bit `vpdpbusd` per two sub-blocks (``ScaleMinKernel``).
//
// The low nibbles are arranged as Q4_K's: the 32 bytes at 32c hold sub-block 2c in their low
// nibbles and 2c + 1 in their high ones. Weight 32s + l has its fifth bit at bit s of qh[l], so
// the 32 qh bytes shifted by 2c and 2c + 1 give both sub-blocks' high bits in the same order.

#if POCKET_X86_KERNELS
extension Q5_K {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q5_K`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: ScaleMinKernel {
        static var superBlockBytes: Int { bytesPerBlock }

        /// Sub-blocks 2c and 2c + 1 as 64 bytes q ∈ 0…31 in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ c: Int) -> SIMD16<UInt32> {
            let q = block.loadUnaligned(fromByteOffset: qsOffset + 32 * c, as: SIMD8<UInt32>.self)
            let qh = block.loadUnaligned(fromByteOffset: qhOffset, as: SIMD8<UInt32>.self)
            let bit = UInt32(2 * c)
            let low = SIMD16(lowHalf: q, highHalf: q &>> 4) & 0x0F0F_0F0F
            let high = SIMD16(lowHalf: qh &>> bit, highHalf: qh &>> (bit + 1)) & 0x0101_0101
            return low | high &<< 4
        }
    }
}
#endif
