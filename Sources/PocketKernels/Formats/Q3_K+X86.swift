// Q3_K with AVX-512 VNNI: one 512-bit `vpdpbusd` per 64 weights (``SignedScaleKernel``).
//
// Weight 128h + 32j + l (q ∈ −4…3) has its low two bits at bits 2j of qs[32h + l] and its high
// bit (clear: subtract 4) at bit 4h + j of hmask[l]. For the 64 weights 64k…64k+63 (h = k/2,
// j = 2(k%2) and 2(k%2) + 1) the low bits are the 32 bytes qs[32h…] shifted by 4(k%2) and by
// 4(k%2) + 2, and the high bits the 32 hmask bytes shifted by 2k and 2k + 1: plain order, the
// activations' byte order. low | high·4 = q + 4 ∈ 0…7 is the unsigned weight. The sixteen
// 6-bit scales (biased by 32) are unpacked four at a time as in the portable kernel.

#if POCKET_X86_KERNELS
extension Q3_K {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q3_K`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: SignedScaleKernel {
        static var superBlockBytes: Int { bytesPerBlock }
        static var scaleOffset: Int { dOffset }
        static var offsetShift: Int32 { 2 }

        /// Weights 64k…64k+63 of the super-block as bytes q + 4 ∈ 0…7 in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<UInt32> {
            let h = k >> 1, e = UInt32(k & 1), bit = UInt32(2 * k)
            let qs = block.loadUnaligned(fromByteOffset: qsOffset + 32 * h, as: SIMD8<UInt32>.self)
            let low = SIMD16(lowHalf: qs &>> (4 * e), highHalf: qs &>> (4 * e + 2)) & 0x0303_0303
            let hmask = block.loadUnaligned(fromByteOffset: hmaskOffset, as: SIMD8<UInt32>.self)
            let high = SIMD16(lowHalf: hmask &>> bit, highHalf: hmask &>> (bit + 1)) & 0x0101_0101
            return low | high &<< 2
        }

        /// The signed scales (6-bit value − 32) of sub-blocks 4k…4k+3, each over its four lanes:
        /// low nibbles from byte word k % 2 (shifted by 4 for k ≥ 2), top bits from bits 2k of
        /// the last word.
        @inline(__always)
        static func scales(_ block: UnsafeRawPointer, _ k: Int, _ shifts: SIMD16<UInt32>) -> SIMD16<Int32> {
            let nibbles = block.loadUnaligned(fromByteOffset: scalesOffset + 4 * (k & 1), as: UInt32.self)
            let top = block.loadUnaligned(fromByteOffset: scalesOffset + 8, as: UInt32.self)
            let word = (nibbles >> UInt32(4 * (k >> 1))) & 0x0F0F_0F0F | (top >> UInt32(2 * k) & 0x0303_0303) << 4
            let biased = (SIMD16(repeating: word) &<< shifts) &>> 24
            return unsafeBitCast(biased, to: SIMD16<Int32>.self) &- 32
        }
    }
}
#endif
