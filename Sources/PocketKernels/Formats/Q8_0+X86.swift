// Q8_0 with AVX-512 VNNI: one 512-bit `vpdpbusd` per two blocks (``BlockPairKernel``).
//
// The instruction wants one unsigned operand: the signed weights w are flipped to w + 128
// (xor 0x80), which adds 128·Σx over each lane's four activations; the activations' group sums
// take it away again. The portable kernel keeps llama.cpp's eight lanes, so the two agree to
// float rounding.

#if POCKET_X86_KERNELS
extension Q8_0 {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q8_0`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: BlockPairKernel {
        static var blockBytes: Int { bytesPerBlock }
        static var offsetShift: Int32 { 7 }

        @inline(__always)
        static func pair(_ block: UnsafeRawPointer) -> (weights: SIMD16<UInt32>, dBits: UInt32) {
            let next = block + bytesPerBlock
            let w = SIMD16(lowHalf: block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD8<UInt32>.self),
                           highHalf: next.loadUnaligned(fromByteOffset: qsOffset, as: SIMD8<UInt32>.self))
            return (w ^ 0x8080_8080, scaleBits(block, dOffset))
        }

        @inline(__always)
        static func single(_ block: UnsafeRawPointer) -> (weights: SIMD8<UInt32>, d: Float) {
            (block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD8<UInt32>.self) ^ 0x8080_8080, ByteDot.half(block, dOffset))
        }
    }
}
#endif
