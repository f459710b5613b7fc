// Q4_1 with AVX-512 VNNI: one `vpdpbusd` per block (``AffineKernel``).
//
// The nibbles are unsigned already: low nibbles (weights 0…15) and high nibbles (16…31) side
// by side are the 32 weights in plain order, the activations' byte order. Lane j of the product
// holds weights 4j…4j+3, llama.cpp's lanes, accumulated in the portable kernel's order: results
// are bit-identical to ``Q4_1/dot(row:_:blocks:)``.

#if POCKET_X86_KERNELS
extension Q4_1 {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q4_1`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: AffineKernel {
        public typealias Format = Q4_1

        /// The block's 32 nibbles as bytes in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer) -> SIMD8<UInt32> { nibbles(block, qsOffset) }
    }
}
#endif
