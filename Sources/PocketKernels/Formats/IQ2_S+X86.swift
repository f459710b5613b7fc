// IQ2_S on x86: one 512-bit `vpdpbusd` per 64 weights (``LatticeX86Kernel``).
//
// Groups 8k…8k+7 (weights 64k…64k+63) have the low 8 bits of their grid indices in the 8 bytes
// at qs + 8k, bits 8…9 in the two qh bytes 2k and 2k + 1 (two bits per group, in order), and
// their sign bytes at signs + 8k: one 64-bit word, bit i negating weight 64k + i, with no table.
// The eight grid points (eight magnitudes each, byte j for weight j) laid side by side are the
// 64 weights in weight order, the activations' byte order. The scale (0.5 + ls)/4 is
// (2ls + 1)/8: the integer per 16 weights from the nibbles of scale bytes 2k and 2k + 1 (four
// lanes each), 1/8 on d.

#if POCKET_X86_KERNELS
extension IQ2_S {
    public typealias Kernel = X86

    /// The x86 kernel of ``IQ2_S`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: LatticeX86Kernel {
        static var grid: [UInt64] { IQGrids.iq2s }
        static var superBlockBytes: Int { bytesPerBlock }
        static var scaleOffset: Int { dOffset }
        static var scaleFactor: Float { 0.125 }
        static var weightsPerScale: Int { 16 }
        static var nibbleScalesOffset: Int { scalesOffset }

        /// Weights 64k…64k+63 of the super-block as bytes 64 ± g in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ k: Int, _ grid: UnsafePointer<UInt64>) -> SIMD16<UInt32> {
            let low = block.loadUnaligned(fromByteOffset: qsOffset + 8 * k, as: UInt64.self)
            let high = UInt64(block.loadUnaligned(fromByteOffset: qhOffset + 2 * k, as: UInt16.self))
            // Group m's index: byte m of `low`, then bits 2m…2m+1 of `high` as bits 8…9.
            @inline(__always) func point(_ m: UInt64) -> UInt64 {
                grid[Int(truncatingIfNeeded: low &>> (8 * m) & 0xFF | (high &>> (2 * m) & 3) &<< 8)]
            }
            let magnitudes = SIMD8<UInt64>(point(0), point(1), point(2), point(3), point(4), point(5), point(6), point(7))
            let signs = block.loadUnaligned(fromByteOffset: signsOffset + 8 * k, as: UInt64.self)
            return LatticeX86Kernels.offsetWeights(unsafeBitCast(magnitudes, to: SIMD16<UInt32>.self), signs: signs)
        }

        /// 2·ls + 1 of each 16 weights of 64k…64k+63 over its four lanes.
        @inline(__always)
        static func scales(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<Int32> {
            LatticeX86Kernels.nibbleScales(block, at: scalesOffset, k)
        }
    }
}
#endif
