// Q8_0 with AVX-512 VNNI: one `vpdpbusd` per block.
//
// The instruction wants one unsigned operand: the signed weights w are flipped to w + 128
// (xor 0x80), which adds 128·Σx over each lane's four activations; the activations' group sums
// (``Q8Activations/groupSums``) take it away again. Each 32-bit lane then holds the products of
// four consecutive weights, llama.cpp's eight lanes, accumulated and summed in the portable
// kernel's order: results are bit-identical to ``Q8_0/dot(row:_:blocks:)``.

#if POCKET_AVX512_VNNI
extension Q8_0 {
    public typealias Kernel = AVX512

    /// The AVX-512 VNNI kernel of ``Q8_0`` (reads ``Q8Activations/Layouts/bytes``).
    public enum AVX512: DotKernel {
        public static var activationLayouts: Q8Activations.Layouts { .bytes }

        @inline(__always)
        public static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
            var lanes = SIMD8<Float>()
            var block = row
            let values = UnsafeRawPointer(x.bytes), sums = UnsafeRawPointer(x.groupSums)
            for b in 0..<blocks {
                let d = VNNI.half(block, dOffset)
                lanes.addProduct(SIMD8(repeating: d * x.scales[b]), products(block, values + 32 * b, sums + 32 * b))
                block += bytesPerBlock
            }
            return lanes.pairwiseSum()
        }

        /// Four activation vectors at once: each block's weights are loaded and flipped once;
        /// every vector gets exactly the operations of ``dot(row:_:blocks:)``.
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
                let w = flipped(block)
                @inline(__always) func products(_ v: UnsafeRawPointer, _ s: UnsafeRawPointer) -> SIMD8<Float> {
                    Self.products(w, v + 32 * b, s + 32 * b)
                }
                l0.addProduct(SIMD8(repeating: d * x.0.scales[b]), products(v0, s0))
                l1.addProduct(SIMD8(repeating: d * x.1.scales[b]), products(v1, s1))
                l2.addProduct(SIMD8(repeating: d * x.2.scales[b]), products(v2, s2))
                l3.addProduct(SIMD8(repeating: d * x.3.scales[b]), products(v3, s3))
                block += bytesPerBlock
            }
            return SIMD4(l0.pairwiseSum(), l1.pairwiseSum(), l2.pairwiseSum(), l3.pairwiseSum())
        }

        /// The block's weights plus 128, as unsigned bytes.
        @inline(__always)
        static func flipped(_ block: UnsafeRawPointer) -> SIMD8<UInt32> {
            block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD8<UInt32>.self) ^ 0x8080_8080
        }

        @inline(__always)
        static func products(_ block: UnsafeRawPointer, _ values: UnsafeRawPointer, _ sums: UnsafeRawPointer) -> SIMD8<Float> {
            products(flipped(block), values, sums)
        }

        /// Eight lanes of four products each, exactly, as floats: Σ(w + 128)·x − 128·Σx.
        @inline(__always)
        static func products(_ flipped: SIMD8<UInt32>, _ values: UnsafeRawPointer, _ sums: UnsafeRawPointer) -> SIMD8<Float> {
            let p = VNNI.dot(.zero, flipped, values.loadUnaligned(as: SIMD8<UInt32>.self))
            return IntegerLanes.exactFloats(p &- (sums.loadUnaligned(as: SIMD8<Int32>.self) &<< 7))
        }
    }
}
#endif
