// Q4_0 with AVX-512 VNNI: one 512-bit `vpdpbusd` per two blocks (``BlockPairKernel``).
//
// A block's 16 qs bytes hold weights 0…15 in their low nibbles and 16…31 in their high ones:
// the two nibble halves side by side are the block in weight order. The nibbles q ∈ 0…15 are
// unsigned; the format's offset, Σ(q − 8)·x = Σq·x − 8·Σx, is taken off each lane with the
// activations' group sums. The portable kernel groups the integers differently, so the two
// agree to float rounding.

#if POCKET_X86_KERNELS
extension Q4_0 {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q4_0`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: BlockPairKernel {
        static var blockBytes: Int { bytesPerBlock }
        static var offsetShift: Int32 { 3 }

        @inline(__always)
        static func pair(_ block: UnsafeRawPointer) -> (weights: SIMD16<UInt32>, dBits: UInt32) {
            let next = block + bytesPerBlock
            return (SIMD16(lowHalf: nibbles(block, qsOffset), highHalf: nibbles(next, qsOffset)),
                    scaleBits(block, dOffset))
        }

        @inline(__always)
        static func single(_ block: UnsafeRawPointer) -> (weights: SIMD8<UInt32>, d: Float) {
            (nibbles(block, qsOffset), ByteDot.half(block, dOffset))
        }
    }
}
#endif
