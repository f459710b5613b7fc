// Q4_K with AVX-512 VNNI: one 512-bit `vpdpbusd` per two sub-blocks (``ScaleMinKernel``).
//
// The 32 bytes at 32c hold sub-block 2c in their low nibbles and 2c + 1 in their high ones:
// side by side they are the 64 weights of both in plain order, the activations' byte order.

#if POCKET_X86_KERNELS
extension Q4_K {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q4_K`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: ScaleMinKernel {
        static var superBlockBytes: Int { bytesPerBlock }

        /// Sub-blocks 2c and 2c + 1 as 64 bytes q ∈ 0…15 in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ c: Int) -> SIMD16<UInt32> {
            let q = block.loadUnaligned(fromByteOffset: qsOffset + 32 * c, as: SIMD8<UInt32>.self)
            return SIMD16(lowHalf: q, highHalf: q &>> 4) & 0x0F0F_0F0F
        }
    }
}
#endif
