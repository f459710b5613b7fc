// IQ4_NL on x86: Q4_0's loop (``BlockPairKernel``: one 512-bit `vpdpbusd` per two blocks) with
// the codebook looked up by `vpshufb`.
//
// The nibbles are unpacked in weight order as Q4_0's are; each then indexes a 16-byte table of
// the codebook plus 128 (1…241), which makes the weights the unsigned bytes the instruction
// takes. The bias, Σ(kvalues[q] + 128)·x − 128·Σx, is taken off with the activations' group
// sums, as Q8_0's is. The portable kernel groups the integers differently, so the two agree to
// float rounding.

#if POCKET_X86_KERNELS
extension IQ4_NL {
    public typealias Kernel = X86

    /// The x86 kernel of ``IQ4_NL`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads
    /// ``Q8Activations/Layouts/bytes``).
    public enum X86: BlockPairKernel {
        static var blockBytes: Int { bytesPerBlock }
        static var offsetShift: Int32 { 7 }

        /// ``IQ4_NL/codebook`` plus 128, four bytes to a word, repeated in every 16-byte lane
        /// (`vpshufb` looks up within each lane).
        static var table: SIMD16<UInt32> {
            SIMD16(0x3F2D_1801, 0x766A_5D4F, 0xA699_8D81, 0xF1D9_C5B5, 0x3F2D_1801, 0x766A_5D4F, 0xA699_8D81, 0xF1D9_C5B5,
                   0x3F2D_1801, 0x766A_5D4F, 0xA699_8D81, 0xF1D9_C5B5, 0x3F2D_1801, 0x766A_5D4F, 0xA699_8D81, 0xF1D9_C5B5)
        }

        @inline(__always)
        static func pair(_ block: UnsafeRawPointer) -> (weights: SIMD16<UInt32>, dBits: UInt32) {
            let next = block + bytesPerBlock
            let indices = SIMD16(lowHalf: nibbles(block, qsOffset), highHalf: nibbles(next, qsOffset))
            #if POCKET_512BIT_VECTORS
            let weights = ByteDot.shuffleBytes(table, indices)
            #else
            let weights = SIMD16(lowHalf: ByteDot.shuffleBytes(table.lowHalf, indices.lowHalf),
                                 highHalf: ByteDot.shuffleBytes(table.lowHalf, indices.highHalf))
            #endif
            return (weights, scaleBits(block, dOffset))
        }

        @inline(__always)
        static func single(_ block: UnsafeRawPointer) -> (weights: SIMD8<UInt32>, d: Float) {
            let indices = nibbles(block, qsOffset)
            #if POCKET_512BIT_VECTORS
            let weights = ByteDot.shuffleBytes(table, SIMD16(lowHalf: indices, highHalf: indices)).lowHalf
            #else
            let weights = ByteDot.shuffleBytes(table.lowHalf, indices)
            #endif
            return (weights, ByteDot.half(block, dOffset))
        }
    }
}
#endif
