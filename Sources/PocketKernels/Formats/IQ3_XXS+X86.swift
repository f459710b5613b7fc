// IQ3_XXS on x86: one 512-bit `vpdpbusd` per 64 weights (``LatticeX86Kernel``).
//
// Sub-blocks 2k and 2k + 1 have their sixteen grid indices at qs + 16k (byte j: weights 4j…4j+3)
// and their sign-and-scale words side by side at signsOffset + 8k: four 7-bit sign indices each,
// the scale ls in the top four bits. The sixteen grid points (four magnitudes each) laid side by
// side are the 64 weights in weight order, the activations' byte order; the sign indices become
// eight sign bytes (``LatticeX86Kernels/signs(ofWords:)``), bit j of byte l negating weight
// 8l + j. The scale (0.5 + ls)/2 is (2ls + 1)/4: the integer per 32 weights, 1/4 on d.

#if POCKET_X86_KERNELS
extension IQ3_XXS {
    public typealias Kernel = X86

    /// The x86 kernel of ``IQ3_XXS`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: LatticeX86Kernel {
        static var grid: [UInt32] { IQGrids.iq3xxs }
        static var superBlockBytes: Int { bytesPerBlock }
        static var scaleOffset: Int { dOffset }
        static var scaleFactor: Float { 0.25 }

        /// Weights 64k…64k+63 of the super-block as bytes 64 ± g in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ k: Int, _ grid: UnsafePointer<UInt32>) -> SIMD16<UInt32> {
            let first = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k, as: UInt64.self)
            let second = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k + 8, as: UInt64.self)
            @inline(__always) func point(_ word: UInt64, _ j: UInt64) -> UInt32 { grid[Int(truncatingIfNeeded: word &>> (8 * j) & 0xFF)] }
            let magnitudes = SIMD16<UInt32>(
                point(first, 0), point(first, 1), point(first, 2), point(first, 3),
                point(first, 4), point(first, 5), point(first, 6), point(first, 7),
                point(second, 0), point(second, 1), point(second, 2), point(second, 3),
                point(second, 4), point(second, 5), point(second, 6), point(second, 7))
            let words = block.loadUnaligned(fromByteOffset: signsOffset + 8 * k, as: UInt64.self)
            return LatticeX86Kernels.offsetWeights(magnitudes, signs: LatticeX86Kernels.signs(ofWords: words))
        }

        /// 2·ls + 1 of sub-block 2k over lanes 0…7 and of sub-block 2k + 1 over lanes 8…15.
        @inline(__always)
        static func scales(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<Int32> {
            let words = block.loadUnaligned(fromByteOffset: signsOffset + 8 * k, as: UInt64.self)
            return SIMD16(lowHalf: SIMD8(repeating: Int32(truncatingIfNeeded: words &>> 28 & 0xF) &* 2 &+ 1),
                          highHalf: SIMD8(repeating: Int32(truncatingIfNeeded: words &>> 60) &* 2 &+ 1))
        }
    }
}
#endif
