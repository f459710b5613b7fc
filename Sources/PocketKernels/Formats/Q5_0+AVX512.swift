// Q5_0 with AVX-512 VNNI: one `vpdpbusd` per block.
//
// The weights q ∈ 0…31 (nibble plus fifth bit) are unsigned; the fifth bits come from the 32-bit
// qh word as a byte mask (`vpmovm2b`). The format's offset, Σ(q − 16)·x = Σq·x − 16·Σx, is taken
// off each lane with the activations' group sums. Eight lanes of four consecutive weights,
// accumulated per block and summed pairwise as llama.cpp's x86 kernel does (the portable kernel
// groups the integers differently, so the two agree to float rounding, not bit for bit).

#if POCKET_AVX512_VNNI
extension Q5_0 {
    public typealias Kernel = AVX512

    /// The AVX-512 VNNI kernel of ``Q5_0`` (reads ``Q8Activations/Layouts/bytes``).
    public enum AVX512: DotKernel {
        public static var activationLayouts: Q8Activations.Layouts { .bytes }

        @inline(__always)
        public static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
            var lanes = SIMD8<Float>()
            var block = row
            let values = UnsafeRawPointer(x.bytes), sums = UnsafeRawPointer(x.groupSums)
            for b in 0..<blocks {
                let d = VNNI.half(block, dOffset)
                lanes.addProduct(SIMD8(repeating: d * x.scales[b]), products(weights(block), values + 32 * b, sums + 32 * b))
                block += bytesPerBlock
            }
            return lanes.pairwiseSum()
        }

        /// Four activation vectors at once: each block's weights are unpacked once; every
        /// vector gets exactly the operations of ``dot(row:_:blocks:)``.
        @inline(never)
        public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
            var l0 = SIMD8<Float>(), l1 = SIMD8<Float>(), l2 = SIMD8<Float>(), l3 = SIMD8<Float>()
            let v0 = UnsafeRawPointer(x.0.bytes), v1 = UnsafeRawPointer(x.1.bytes)
            let v2 = UnsafeRawPointer(x.2.bytes), v3 = UnsafeRawPointer(x.3.bytes)
            let s0 = UnsafeRawPointer(x.0.groupSums), s1 = UnsafeRawPointer(x.1.groupSums)
            let s2 = UnsafeRawPointer(x.2.groupSums), s3 = UnsafeRawPointer(x.3.groupSums)
            var block = row
            for b in 0..<blocks {
                let d = VNNI.half(block, dOffset)
                let w = weights(block)
                l0.addProduct(SIMD8(repeating: d * x.0.scales[b]), products(w, v0 + 32 * b, s0 + 32 * b))
                l1.addProduct(SIMD8(repeating: d * x.1.scales[b]), products(w, v1 + 32 * b, s1 + 32 * b))
                l2.addProduct(SIMD8(repeating: d * x.2.scales[b]), products(w, v2 + 32 * b, s2 + 32 * b))
                l3.addProduct(SIMD8(repeating: d * x.3.scales[b]), products(w, v3 + 32 * b, s3 + 32 * b))
                block += bytesPerBlock
            }
            return SIMD4(l0.pairwiseSum(), l1.pairwiseSum(), l2.pairwiseSum(), l3.pairwiseSum())
        }

        /// The block's 32 weights q ∈ 0…31 as bytes in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer) -> SIMD8<UInt32> {
            let qs = block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD4<UInt32>.self)
            let qh = block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)
            return SIMD8(lowHalf: qs, highHalf: qs &>> 4) & 0x0F0F_0F0F | VNNI.byteMask(qh) & 0x1010_1010
        }

        /// Eight lanes of four products each, exactly, as floats: Σq·x − 16·Σx.
        @inline(__always)
        static func products(_ weights: SIMD8<UInt32>, _ values: UnsafeRawPointer, _ sums: UnsafeRawPointer) -> SIMD8<Float> {
            let p = VNNI.dot(.zero, weights, values.loadUnaligned(as: SIMD8<UInt32>.self))
            return IntegerLanes.exactFloats(p &- (sums.loadUnaligned(as: SIMD8<Int32>.self) &<< 4))
        }
    }
}
#endif
