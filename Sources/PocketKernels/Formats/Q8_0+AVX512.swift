// Q8_0 with AVX-512 VNNI: one 512-bit `vpdpbusd` per two blocks.
//
// The instruction wants one unsigned operand: the signed weights w are flipped to w + 128
// (xor 0x80), which adds 128·Σx over each lane's four activations; the activations' group sums
// (``Q8Activations/groupSums``) take it away again. Lanes 0…7 hold block b (four consecutive
// weights each), lanes 8…15 block b + 1; each half is scaled by its blocks' d·d_x and
// accumulated in sixteen float lanes (an odd last block takes the low half alone). The
// portable kernel keeps llama.cpp's eight lanes, so the two agree to float rounding.

#if POCKET_AVX512_VNNI
extension Q8_0 {
    public typealias Kernel = AVX512

    /// The AVX-512 VNNI kernel of ``Q8_0`` (reads ``Q8Activations/Layouts/bytes``).
    public enum AVX512: DotKernel {
        public static var activationLayouts: Q8Activations.Layouts { .bytes }

        @inline(__always)
        public static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
            var lanes = SIMD16<Float>()
            var block = row
            var b = 0
            while b + 2 <= blocks {
                let (w, d) = pair(block)
                lanes.addProduct(products(w, x, b), scales(d, x, b))
                block += 2 * bytesPerBlock
                b += 2
            }
            if b < blocks { addLast(&lanes, block, x, b) }
            return VNNI.sum(lanes)
        }

        /// Four activation vectors at once: each pair of blocks is loaded and flipped once;
        /// every vector gets exactly the operations of ``dot(row:_:blocks:)``.
        @inline(never)
        public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
            var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
            var block = row
            var b = 0
            while b + 2 <= blocks {
                let (w, d) = pair(block)
                l0.addProduct(products(w, x.0, b), scales(d, x.0, b))
                l1.addProduct(products(w, x.1, b), scales(d, x.1, b))
                l2.addProduct(products(w, x.2, b), scales(d, x.2, b))
                l3.addProduct(products(w, x.3, b), scales(d, x.3, b))
                block += 2 * bytesPerBlock
                b += 2
            }
            if b < blocks {
                addLast(&l0, block, x.0, b); addLast(&l1, block, x.1, b)
                addLast(&l2, block, x.2, b); addLast(&l3, block, x.3, b)
            }
            return SIMD4(VNNI.sum(l0), VNNI.sum(l1), VNNI.sum(l2), VNNI.sum(l3))
        }

        /// Blocks `block` and the next as 64 bytes w + 128, and their scales.
        @inline(__always)
        static func pair(_ block: UnsafeRawPointer) -> (SIMD16<UInt32>, SIMD2<Float>) {
            let next = block + bytesPerBlock
            let w = SIMD16(lowHalf: block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD8<UInt32>.self),
                           highHalf: next.loadUnaligned(fromByteOffset: qsOffset, as: SIMD8<UInt32>.self))
            let d = SIMD2(VNNI.half(block, dOffset), VNNI.half(next, dOffset))
            return (w ^ 0x8080_8080, d)
        }

        /// The weight scales `d` of blocks `b` and `b + 1` times their activation scales,
        /// spread over their lanes.
        @inline(__always)
        static func scales(_ d: SIMD2<Float>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
            VNNI.spread(d * UnsafeRawPointer(x.scales + b).loadUnaligned(as: SIMD2<Float>.self))
        }

        /// Sixteen lanes of four products each (blocks b, b + 1), exactly, as floats:
        /// Σ(w + 128)·x − 128·Σx.
        @inline(__always)
        static func products(_ flipped: SIMD16<UInt32>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
            let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD16<UInt32>.self)
            let sums = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD16<Int32>.self)
            return VNNI.floats(VNNI.dot(.zero, flipped, values) &- sums &<< 7)
        }

        /// Adds an odd last block `b` into the low eight lanes.
        @inline(__always)
        static func addLast(_ lanes: inout SIMD16<Float>, _ block: UnsafeRawPointer, _ x: Q8Vector, _ b: Int) {
            let w = block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD8<UInt32>.self) ^ 0x8080_8080
            let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD8<UInt32>.self)
            let sums = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD8<Int32>.self)
            let p = VNNI.dot(.zero, w, values) &- sums &<< 7
            lanes.lowHalf.addProduct(IntegerLanes.exactFloats(p), SIMD8(repeating: VNNI.half(block, dOffset) * x.scales[b]))
        }
    }
}
#endif
