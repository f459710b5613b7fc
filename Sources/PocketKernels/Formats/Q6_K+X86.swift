// Q6_K with AVX-512 VNNI: one 512-bit `vpdpbusd` per 64 weights (``SignedScaleKernel``).
//
// Weight 128h + 32j + l (q ∈ 0…63, value q − 32, one signed scale per 16) has its low four bits
// in nibble j/2 of ql[64h + 32(j%2) + l] and its high two in bits 2j of qh[32h + l]. For the 64
// weights 64k…64k+63 (h = k/2, j = 2(k%2) and 2(k%2) + 1) the low bits are nibble k%2 of the 64
// bytes ql[64h…] and the high bits come from the 32 bytes qh[32h…] shifted by 4(k%2) and by
// 4(k%2) + 2: plain order, the activations' byte order. The scales are signed bytes, four per
// 32-bit word.

#if POCKET_X86_KERNELS
extension Q6_K {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q6_K`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: SignedScaleKernel {
        static var superBlockBytes: Int { bytesPerBlock }
        static var scaleOffset: Int { dOffset }
        static var offsetShift: Int32 { 5 }

        /// Weights 64k…64k+63 of the super-block as bytes q ∈ 0…63 in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<UInt32> {
            let h = k >> 1, e = UInt32(k & 1)
            let low = (block.loadUnaligned(fromByteOffset: qlOffset + 64 * h, as: SIMD16<UInt32>.self) &>> (4 * e)) & 0x0F0F_0F0F
            let qh = block.loadUnaligned(fromByteOffset: qhOffset + 32 * h, as: SIMD8<UInt32>.self)
            let high = SIMD16(lowHalf: qh &>> (4 * e), highHalf: qh &>> (4 * e + 2)) & 0x0303_0303
            return low | high &<< 4
        }

        /// The signed scales of sub-blocks 4k…4k+3, each over its four lanes.
        @inline(__always)
        static func scales(_ block: UnsafeRawPointer, _ k: Int, _ shifts: SIMD16<UInt32>) -> SIMD16<Int32> {
            let word = SIMD16(repeating: block.loadUnaligned(fromByteOffset: scalesOffset + 4 * k, as: UInt32.self))
            return unsafeBitCast(word &<< shifts, to: SIMD16<Int32>.self) &>> 24
        }
    }
}
#endif
