// Q5_0 with AVX-512 VNNI: one 512-bit `vpdpbusd` per two blocks (``BlockPairKernel``).
//
// The weights q ∈ 0…31 (nibble plus fifth bit) are unsigned; the fifth bits of two blocks come
// from their qh words as one 64-bit byte mask (`vpmovm2b`). The format's offset,
// Σ(q − 16)·x = Σq·x − 16·Σx, is taken off each lane with the activations' group sums. The
// portable kernel groups the integers differently, so the two agree to float rounding.

#if POCKET_X86_KERNELS
extension Q5_0 {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q5_0`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: BlockPairKernel {
        static var blockBytes: Int { bytesPerBlock }
        static var offsetShift: Int32 { 4 }

        @inline(__always)
        static func pair(_ block: UnsafeRawPointer) -> (weights: SIMD16<UInt32>, dBits: UInt32) {
            let next = block + bytesPerBlock
            let qh = UInt64(block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self))
                | UInt64(next.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)) << 32
            return (SIMD16(lowHalf: nibbles(block, qsOffset), highHalf: nibbles(next, qsOffset)) | ByteDot.byteMask(qh) & 0x1010_1010,
                    scaleBits(block, dOffset))
        }

        @inline(__always)
        static func single(_ block: UnsafeRawPointer) -> (weights: SIMD8<UInt32>, d: Float) {
            let qh = block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)
            return (nibbles(block, qsOffset) | ByteDot.byteMask(qh) & 0x1010_1010, ByteDot.half(block, dOffset))
        }
    }
}
#endif
