// Q4_1 with AVX-512 VNNI: one `vpdpbusd` per block.
//
// The nibbles are unsigned already: low nibbles (weights 0…15) and high nibbles (16…31) side
// by side are the 32 weights in plain order, the activations' byte order. Lane j of the product
// holds weights 4j…4j+3, llama.cpp's lanes, accumulated in the portable kernel's order: results
// are bit-identical to ``Q4_1/dot(row:_:blocks:)``.

#if POCKET_X86_KERNELS
extension Q4_1 {
    public typealias Kernel = X86

    /// The x86 kernel of ``Q4_1`` (AVX-512 VNNI, AVX2 or SSE2, through ``ByteDot``; reads ``Q8Activations/Layouts/bytes``).
    public enum X86: DotKernel {
        public static var activationLayouts: Q8Activations.Layouts { .bytes }

        @inline(__always)
        public static func dot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
            var lanes = SIMD8<Float>()
            var offsets: Float = 0
            var block = row
            let values = UnsafeRawPointer(x.bytes)
            for b in 0..<blocks {
                let dm = ByteDot.halves(block, dOffset), d = dm[0], m = dm[1]
                lanes.multiplyAdd(SIMD8(repeating: d * x.scales[b]), products(weights(block), values + 32 * b))
                offsets = offsets.plusProduct(m, x.sums[b])
                block += bytesPerBlock
            }
            return lanes.pairwiseSum() + offsets
        }

        /// Four activation vectors at once: each block's nibbles are unpacked once; every
        /// vector gets exactly the operations of ``dot(row:_:blocks:)``.
        @inline(never)
        public static func dot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
            var l0 = SIMD8<Float>(), l1 = SIMD8<Float>(), l2 = SIMD8<Float>(), l3 = SIMD8<Float>()
            var o0: Float = 0, o1: Float = 0, o2: Float = 0, o3: Float = 0
            let v0 = UnsafeRawPointer(x.0.bytes), v1 = UnsafeRawPointer(x.1.bytes)
            let v2 = UnsafeRawPointer(x.2.bytes), v3 = UnsafeRawPointer(x.3.bytes)
            var block = row
            for b in 0..<blocks {
                let dm = ByteDot.halves(block, dOffset), d = dm[0], m = dm[1]
                let w = weights(block)
                l0.multiplyAdd(SIMD8(repeating: d * x.0.scales[b]), products(w, v0 + 32 * b))
                l1.multiplyAdd(SIMD8(repeating: d * x.1.scales[b]), products(w, v1 + 32 * b))
                l2.multiplyAdd(SIMD8(repeating: d * x.2.scales[b]), products(w, v2 + 32 * b))
                l3.multiplyAdd(SIMD8(repeating: d * x.3.scales[b]), products(w, v3 + 32 * b))
                o0 = o0.plusProduct(m, x.0.sums[b]); o1 = o1.plusProduct(m, x.1.sums[b])
                o2 = o2.plusProduct(m, x.2.sums[b]); o3 = o3.plusProduct(m, x.3.sums[b])
                block += bytesPerBlock
            }
            return SIMD4(l0.pairwiseSum() + o0, l1.pairwiseSum() + o1, l2.pairwiseSum() + o2, l3.pairwiseSum() + o3)
        }

        /// The block's 32 nibbles as bytes in weight order.
        @inline(__always)
        static func weights(_ block: UnsafeRawPointer) -> SIMD8<UInt32> {
            let qs = block.loadUnaligned(fromByteOffset: qsOffset, as: SIMD4<UInt32>.self)
            return SIMD8(lowHalf: qs, highHalf: qs &>> 4) & 0x0F0F_0F0F
        }

        /// Eight lanes of four products each, exactly, as floats.
        @inline(__always)
        static func products(_ weights: SIMD8<UInt32>, _ values: UnsafeRawPointer) -> SIMD8<Float> {
            IntegerLanes.exactFloats(ByteDot.dot(.zero, small: weights, values.loadUnaligned(as: SIMD8<UInt32>.self)))
        }
    }
}
#endif
