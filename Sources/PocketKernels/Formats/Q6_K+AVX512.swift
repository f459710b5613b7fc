// Q6_K with AVX-512 VNNI: one 512-bit `vpdpbusd` per 64 weights.
//
// Weight 128h + 32j + l (q ∈ 0…63, value q − 32, one signed scale per 16) has its low four bits
// in nibble j/2 of ql[64h + 32(j%2) + l] and its high two in bits 2j of qh[32h + l]. For the 64
// weights 64k…64k+63 (h = k/2, j = 2(k%2) and 2(k%2) + 1) the low bits are nibble k%2 of the 64
// bytes ql[64h…] and the high bits come from the 32 bytes qh[32h…] shifted by 4(k%2) and by
// 4(k%2) + 2: plain order, the activations' byte order. The offset, Σ(q − 32)·x = Σq·x − 32·Σx,
// is taken off each lane with the activations' group sums; each four lanes (one sub-block of 16)
// are multiplied by its scale in integers, and each half (one activation block) by d·a.

#if POCKET_AVX512_VNNI
extension Q6_K {
    public typealias Kernel = AVX512

    /// The AVX-512 VNNI kernel of ``Q6_K`` (reads ``Q8Activations/Layouts/bytes``).
    public enum AVX512: DotKernel {
        public static var activationLayouts: Q8Activations.Layouts { .bytes }

        /// Per-lane shifts that bring scale byte L/4 of a 32-bit word to the top of lane L.
        static let scaleShifts = SIMD16<UInt32>(24, 24, 24, 24, 16, 16, 16, 16, 8, 8, 8, 8, 0, 0, 0, 0)

        @inline(__always)
        public static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
            var lanes = SIMD16<Float>()
            var block = row
            let shifts = scaleShifts
            for sb in 0..<(blocks / 8) {
                let d = VNNI.half(block, dOffset)
                for k in 0..<4 {
                    let b = 8 * sb + 2 * k
                    lanes.addProduct(products(weights(block, k), scales(block, k, shifts), x, b), spreadScales(d, x, b))
                }
                block += bytesPerBlock
            }
            return VNNI.sum(lanes)
        }

        /// Four activation vectors at once: each quarter super-block's weights and scales are
        /// unpacked once; every vector gets exactly the operations of ``dot(row:_:blocks:)``.
        @inline(never)
        public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
            var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
            var block = row
            let shifts = scaleShifts
            for sb in 0..<(blocks / 8) {
                let d = VNNI.half(block, dOffset)
                for k in 0..<4 {
                    let b = 8 * sb + 2 * k
                    let w = weights(block, k), s = scales(block, k, shifts)
                    l0.addProduct(products(w, s, x.0, b), spreadScales(d, x.0, b))
                    l1.addProduct(products(w, s, x.1, b), spreadScales(d, x.1, b))
                    l2.addProduct(products(w, s, x.2, b), spreadScales(d, x.2, b))
                    l3.addProduct(products(w, s, x.3, b), spreadScales(d, x.3, b))
                }
                block += bytesPerBlock
            }
            return SIMD4(VNNI.sum(l0), VNNI.sum(l1), VNNI.sum(l2), VNNI.sum(l3))
        }

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

        /// d·a of activation blocks b and b + 1 over their lanes.
        @inline(__always)
        static func spreadScales(_ d: Float, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
            VNNI.spread(UnsafeRawPointer(x.scales + b).loadUnaligned(as: SIMD2<Float>.self) * d)
        }

        /// Sixteen lanes of sc·Σ(q − 32)·x over four products each, exactly, as floats.
        @inline(__always)
        static func products(_ weights: SIMD16<UInt32>, _ scales: SIMD16<Int32>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
            let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD16<UInt32>.self)
            let sums = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD16<Int32>.self)
            return VNNI.floats((VNNI.dot(.zero, weights, values) &- sums &<< 5) &* scales)
        }
    }
}
#endif
