// IQ2_XS on x86: one 512-bit `vpdpbusd` per 64 weights (``LatticeX86Kernel``).
//
// Groups 8k…8k+7 (weights 64k…64k+63) are the eight 16-bit codes at qs + 16k: a 9-bit grid
// index and a 7-bit sign index each. The eight grid points (eight magnitudes each, byte j for
// weight j) laid side by side are the 64 weights in weight order, the activations' byte order;
// the sign indices, packed one per byte, become the sign bytes (``LatticeX86Kernels/evenSigns(_:)``).
// The scale (0.5 + ls)/4 is (2ls + 1)/8: the integer per 16 weights from the nibbles of scale
// bytes 2k and 2k + 1 (four lanes each), 1/8 on d.

#if POCKET_X86_KERNELS
#if POCKET_REQUIRES_BMI2
import _Builtin_intrinsics.intel
#endif

extension IQ2_XS {
    public typealias Kernel = X86

    /// The x86 kernel of ``IQ2_XS`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: LatticeX86Kernel {
        static var grid: [UInt64] { IQGrids.iq2xs }
        static var superBlockBytes: Int { bytesPerBlock }
        static var scaleOffset: Int { dOffset }
        static var scaleFactor: Float { 0.125 }
        static var weightsPerScale: Int { 16 }
        static var nibbleScalesOffset: Int { scalesOffset }

        /// Weights 64k…64k+63 of the super-block as bytes 64 ± g in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ k: Int, _ grid: UnsafePointer<UInt64>) -> SIMD16<UInt32> {
            let first = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k, as: UInt64.self)
            let second = block.loadUnaligned(fromByteOffset: qsOffset + 16 * k + 8, as: UInt64.self)
            @inline(__always) func point(_ codes: UInt64, _ l: UInt64) -> UInt64 { grid[Int(truncatingIfNeeded: codes &>> (16 * l) & 511)] }
            let magnitudes = SIMD8<UInt64>(
                point(first, 0), point(first, 1), point(first, 2), point(first, 3),
                point(second, 0), point(second, 1), point(second, 2), point(second, 3))
            let signs = LatticeX86Kernels.evenSigns(signIndices(first, second))
            return LatticeX86Kernels.offsetWeights(unsafeBitCast(magnitudes, to: SIMD16<UInt32>.self), signs: signs)
        }

        /// The 7-bit sign indices (bits 9…15) of eight 16-bit codes (four in each word), one per byte.
        @inline(__always)
        static func signIndices(_ first: UInt64, _ second: UInt64) -> UInt64 {
            #if POCKET_REQUIRES_BMI2
            // Each word's four indices gathered into 28 bits, then spread seven to a byte.
            let gathered = _pext_u64(first, 0xFE00_FE00_FE00_FE00) | _pext_u64(second, 0xFE00_FE00_FE00_FE00) &<< 28
            return _pdep_u64(gathered, 0x7F7F_7F7F_7F7F_7F7F)
            #else
            @inline(__always) func four(_ codes: UInt64) -> UInt64 {
                var indices = codes &>> 9 & 0x007F_007F_007F_007F
                indices = (indices | indices &>> 8) & 0x0000_FFFF_0000_FFFF
                return (indices | indices &>> 16) & 0xFFFF_FFFF
            }
            return four(first) | four(second) &<< 32
            #endif
        }

        /// 2·ls + 1 of each 16 weights of 64k…64k+63 over its four lanes.
        @inline(__always)
        static func scales(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<Int32> {
            LatticeX86Kernels.nibbleScales(block, at: scalesOffset, k)
        }
    }
}
#endif
