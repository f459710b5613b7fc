// IQ3_S on x86: one 512-bit `vpdpbusd` per 64 weights (``LatticeX86Kernel``).
//
// Sub-blocks 2k and 2k + 1 have the low 8 bits of their sixteen grid indices at qs + 16k (byte
// j: weights 4j…4j+3), the ninth bits in the two qh bytes 2k and 2k + 1 (bit j for group j), and
// their sign bits at signs + 8k: one 64-bit word, bit i negating weight 64k + i. The sixteen
// grid points (four magnitudes 1…15 each) laid side by side are the 64 weights in weight order,
// the activations' byte order. The scale 1 + 2ls is the integer per 32 weights: the two nibbles
// of scale byte k; d is not scaled.

#if POCKET_X86_KERNELS
extension IQ3_S {
    public typealias Kernel = X86

    /// The x86 kernel of ``IQ3_S`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: LatticeX86Kernel {
        static var grid: [UInt32] { IQGrids.iq3s }
        static var superBlockBytes: Int { bytesPerBlock }
        static var scaleOffset: Int { dOffset }
        static var scaleFactor: Float { 1 }

        /// Weights 64k…64k+63 of the super-block as bytes 64 ± g in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ k: Int, _ grid: UnsafePointer<UInt32>) -> SIMD16<UInt32> {
            let first = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k, as: UInt64.self)
            let second = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k + 8, as: UInt64.self)
            let high = UInt64(block.loadUnaligned(fromByteOffset: qhOffset + 2 * k, as: UInt16.self))
            // Group j of `word` (group 8h + j of the two sub-blocks): its byte, and bit 8h + j of `high` as bit 8.
            @inline(__always) func point(_ word: UInt64, _ h: UInt64, _ j: UInt64) -> UInt32 {
                grid[Int(truncatingIfNeeded: word &>> (8 * j) & 0xFF | (high &>> (8 * h + j) & 1) &<< 8)]
            }
            let magnitudes = SIMD16<UInt32>(
                point(first, 0, 0), point(first, 0, 1), point(first, 0, 2), point(first, 0, 3),
                point(first, 0, 4), point(first, 0, 5), point(first, 0, 6), point(first, 0, 7),
                point(second, 1, 0), point(second, 1, 1), point(second, 1, 2), point(second, 1, 3),
                point(second, 1, 4), point(second, 1, 5), point(second, 1, 6), point(second, 1, 7))
            let signs = block.loadUnaligned(fromByteOffset: signsOffset + 8 * k, as: UInt64.self)
            return LatticeX86Kernels.offsetWeights(magnitudes, signs: signs)
        }

        /// 1 + 2·ls of sub-block 2k over lanes 0…7 and of sub-block 2k + 1 over lanes 8…15.
        @inline(__always)
        static func scales(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<Int32> {
            let packed = Int32(block.load(fromByteOffset: scalesOffset + k, as: UInt8.self))
            return SIMD16(lowHalf: SIMD8(repeating: (packed & 0xF) &* 2 &+ 1), highHalf: SIMD8(repeating: (packed &>> 4) &* 2 &+ 1))
        }
    }
}
#endif
