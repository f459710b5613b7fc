// IQ2_XXS on x86: one 512-bit `vpdpbusd` per 64 weights (``LatticeX86Kernel``).
//
// Sub-blocks 2k and 2k + 1 are the 16 bytes at qs + 16k: per sub-block four grid indices, then
// a word with four 7-bit sign indices and the scale ls in its top four bits. The eight grid
// points (eight magnitudes each, byte j for weight j) laid side by side are the 64 weights in
// weight order, the activations' byte order; the two words' sign indices become eight sign
// bytes (``LatticeX86Kernels/signs(ofWords:)``), bit j of byte l negating weight 8l + j. The
// scale (0.5 + ls)/4 is (2ls + 1)/8: the integer per 32 weights (eight lanes), 1/8 on d.

#if POCKET_X86_KERNELS
extension IQ2_XXS {
    public typealias Kernel = X86

    /// The x86 kernel of ``IQ2_XXS`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: LatticeX86Kernel {
        static var grid: [UInt64] { IQGrids.iq2xxs }
        static var superBlockBytes: Int { bytesPerBlock }
        static var scaleOffset: Int { dOffset }
        static var scaleFactor: Float { 0.125 }

        /// Weights 64k…64k+63 of the super-block as bytes 64 ± g in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ k: Int, _ grid: UnsafePointer<UInt64>) -> SIMD16<UInt32> {
            let first = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k, as: UInt64.self)
            let second = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k + 8, as: UInt64.self)
            @inline(__always) func point(_ word: UInt64, _ l: UInt64) -> UInt64 { grid[Int(truncatingIfNeeded: word &>> (8 * l) & 0xFF)] }
            let magnitudes = SIMD8<UInt64>(
                point(first, 0), point(first, 1), point(first, 2), point(first, 3),
                point(second, 0), point(second, 1), point(second, 2), point(second, 3))
            let words = first &>> 32 | second & 0xFFFF_FFFF_0000_0000
            return LatticeX86Kernels.offsetWeights(
                unsafeBitCast(magnitudes, to: SIMD16<UInt32>.self), signs: LatticeX86Kernels.signs(ofWords: words))
        }

        /// 2·ls + 1 of sub-block 2k over lanes 0…7 and of sub-block 2k + 1 over lanes 8…15.
        @inline(__always)
        static func scales(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<Int32> {
            let first = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k + 4, as: UInt32.self)
            let second = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k + 12, as: UInt32.self)
            return SIMD16(lowHalf: SIMD8(repeating: Int32(first &>> 28) &* 2 &+ 1),
                          highHalf: SIMD8(repeating: Int32(second &>> 28) &* 2 &+ 1))
        }
    }
}
#endif
