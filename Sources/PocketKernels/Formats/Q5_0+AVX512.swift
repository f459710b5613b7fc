// Q5_0 with AVX-512 VNNI: one 512-bit `vpdpbusd` per two blocks.
//
// The weights q ∈ 0…31 (nibble plus fifth bit) are unsigned; the fifth bits of two blocks come
// from their qh words as one 64-bit byte mask (`vpmovm2b`). The format's offset,
// Σ(q − 16)·x = Σq·x − 16·Σx, is taken off each lane with the activations' group sums. Lanes
// 0…7 hold block b (four consecutive weights each), lanes 8…15 block b + 1; each half is scaled
// by its blocks' d·d_x and accumulated in sixteen float lanes (an odd last block takes the low
// half alone). The portable kernel groups the integers differently, so the two agree to float
// rounding, not bit for bit.

#if POCKET_AVX512_VNNI
extension Q5_0 {
    public typealias Kernel = AVX512

    /// The AVX-512 VNNI kernel of ``Q5_0`` (reads ``Q8Activations/Layouts/bytes``).
    public enum AVX512: DotKernel {
        public static var activationLayouts: Q8Activations.Layouts { .bytes }

        @inline(__always)
        public static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
            var lanes = SIMD16<Float>()
            var block = row
            let values = UnsafeRawPointer(x.bytes), sums = UnsafeRawPointer(x.groupSums)
            var b = 0
            while b + 2 <= blocks {
                let (w, d) = pair(block)
                lanes.addProduct(products(w, values + 32 * b, sums + 32 * b), scales(d, x, b))
                block += 2 * bytesPerBlock
                b += 2
            }
            if b < blocks { addLast(&lanes, block, x, b) }
            return VNNI.sum(lanes)
        }

        /// Four activation vectors at once: each pair of blocks is unpacked once; every vector
        /// gets exactly the operations of ``dot(row:_:blocks:)``.
        @inline(never)
        public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
            var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
            let v0 = UnsafeRawPointer(x.0.bytes), v1 = UnsafeRawPointer(x.1.bytes)
            let v2 = UnsafeRawPointer(x.2.bytes), v3 = UnsafeRawPointer(x.3.bytes)
            let s0 = UnsafeRawPointer(x.0.groupSums), s1 = UnsafeRawPointer(x.1.groupSums)
            let s2 = UnsafeRawPointer(x.2.groupSums), s3 = UnsafeRawPointer(x.3.groupSums)
            var block = row
            var b = 0
            while b + 2 <= blocks {
                let (w, d) = pair(block)
                l0.addProduct(products(w, v0 + 32 * b, s0 + 32 * b), scales(d, x.0, b))
                l1.addProduct(products(w, v1 + 32 * b, s1 + 32 * b), scales(d, x.1, b))
                l2.addProduct(products(w, v2 + 32 * b, s2 + 32 * b), scales(d, x.2, b))
                l3.addProduct(products(w, v3 + 32 * b, s3 + 32 * b), scales(d, x.3, b))
                block += 2 * bytesPerBlock
                b += 2
            }
            if b < blocks {
                addLast(&l0, block, x.0, b); addLast(&l1, block, x.1, b)
                addLast(&l2, block, x.2, b); addLast(&l3, block, x.3, b)
            }
            return SIMD4(VNNI.sum(l0), VNNI.sum(l1), VNNI.sum(l2), VNNI.sum(l3))
        }

        /// Blocks `block` and the next as 64 unsigned bytes q ∈ 0…31 in weight order, and
        /// their scales.
        @inline(__always)
        static func pair(_ block: UnsafeRawPointer) -> (SIMD16<UInt32>, SIMD2<Float>) {
            let next = block + bytesPerBlock
            let q0 = block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD4<UInt32>.self)
            let q1 = next.loadUnaligned(fromByteOffset: qsOffset, as: SIMD4<UInt32>.self)
            let nibbles = SIMD16(lowHalf: SIMD8(lowHalf: q0, highHalf: q0 &>> 4), highHalf: SIMD8(lowHalf: q1, highHalf: q1 &>> 4))
            let qh = UInt64(block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self))
                | UInt64(next.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)) << 32
            let d = SIMD2(VNNI.half(block, dOffset), VNNI.half(next, dOffset))
            return (nibbles & 0x0F0F_0F0F | VNNI.byteMask(qh) & 0x1010_1010, d)
        }

        /// The weight scales `d` of blocks `b` and `b + 1` times their activation scales,
        /// spread over their lanes.
        @inline(__always)
        static func scales(_ d: SIMD2<Float>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
            VNNI.spread(d * UnsafeRawPointer(x.scales + b).loadUnaligned(as: SIMD2<Float>.self))
        }

        /// Sixteen lanes of four products each (two blocks), exactly, as floats: Σq·x − 16·Σx.
        @inline(__always)
        static func products(_ weights: SIMD16<UInt32>, _ values: UnsafeRawPointer, _ sums: UnsafeRawPointer) -> SIMD16<Float> {
            let p = VNNI.dot(.zero, weights, values.loadUnaligned(as: SIMD16<UInt32>.self))
            return VNNI.floats(p &- (sums.loadUnaligned(as: SIMD16<Int32>.self) &<< 4))
        }

        /// Adds an odd last block `b` into the low eight lanes.
        @inline(__always)
        static func addLast(_ lanes: inout SIMD16<Float>, _ block: UnsafeRawPointer, _ x: Q8Vector, _ b: Int) {
            let qs = block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD4<UInt32>.self)
            let qh = block.loadUnaligned(fromByteOffset: qhOffset, as: UInt32.self)
            let w = SIMD8(lowHalf: qs, highHalf: qs &>> 4) & 0x0F0F_0F0F | VNNI.byteMask(qh) & 0x1010_1010
            let values = UnsafeRawPointer(x.bytes + 32 * b), sums = UnsafeRawPointer(x.groupSums + 8 * b)
            let p = VNNI.dot(.zero, w, values.loadUnaligned(as: SIMD8<UInt32>.self)) &- (sums.loadUnaligned(as: SIMD8<Int32>.self) &<< 4)
            lanes.lowHalf.addProduct(IntegerLanes.exactFloats(p), SIMD8(repeating: VNNI.half(block, dOffset) * x.scales[b]))
        }
    }
}
#endif
