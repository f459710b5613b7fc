// Q5_1 with AVX-512 VNNI: one `vpdpbusd` per block (``AffineKernel``, shared with Q4_1).
//
// The weights q ∈ 0…31 are Q5_0's without its offset: the nibbles in weight order or'ed with
// the fifth bits, spread from the qh word to bit 4 of each byte (`vpmovm2b`). Lane j of the
// product holds weights 4j…4j+3.
//
// Float order: llama.cpp's, as Q4_1's kernel (``AffineGroupFormat``: eight float lanes scaled by
// d·d_x, summed pairwise, plus the minimums' term), so the two formats with a minimum share
// their row and row-group loops and a grouped matrix gives the row kernel's bits. One
// difference: the minimum multiplies the exact d_x·Σx (``Q8Activations/blockSums``), not
// llama.cpp's fp16-rounded `s` (``Q8Activations/sums``, which Q4_1 keeps for its golden
// traces): Q5_1's reference (``Q5_1/dotReference(row:_:blocks:)``) and portable kernel use the
// exact sum, and the rounded one would put this kernel ~1e-4 off them (no llama.cpp trace pins
// Q5_1's bits). The portable kernel sums its lanes in another order, so the two agree to float
// rounding.

#if POCKET_X86_KERNELS
extension Q5_1 {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q5_1`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: AffineKernel {
        public typealias Format = Q5_1

        /// The block's 32 five-bit weights as bytes in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer) -> SIMD8<UInt32> {
            let qh = block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)
            return nibbles(block, qsOffset) | ByteDot.byteMask(qh) & 0x1010_1010
        }
    }
}
#endif
