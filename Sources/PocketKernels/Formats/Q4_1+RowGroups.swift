// Q4_1 in row groups (``RowGroups``): the scales `d`, then the minimums `m`, then the four
// words of nibbles `qs` as they are (see Q4_0's row groups).
//
// Unlike the other formats, the Q4_1 kernels keep llama.cpp's float order (docs/kernels.md):
// eight float lanes per row, lane i accumulating d·d_x times the four products of weights
// 4i…4i+3 block after block, summed pairwise at the end, plus the minimums' term. The
// row-group kernel keeps them too, as eight float vectors whose lane r is row r's lane i, so
// its results equal ``Q4_1/dot(row:_:blocks:)`` bit for bit.

extension Q4_1: WordGroupFormat {
    public static var halfCount: Int { 2 }
    public static var weightOffset: Int32 { 0 }

    public static func unsignedWeights(_ block: UnsafeRawPointer) -> [UInt8] { nibbles(block, at: qsOffset) }

    /// llama.cpp's order, one weight at a time (see the top of this file).
    public static func groupDotReference(_ group: UnsafeRawPointer, row: Int, _ x: Q8Vector, blocks: Int) -> Float {
        let block = UnsafeMutableRawPointer.allocate(byteCount: bytesPerBlock, alignment: 4)
        defer { block.deallocate() }
        var lanes = [Float](repeating: 0, count: 8)
        var offsets: Float = 0
        for b in 0..<blocks {
            deinterleave(column: group + b * groupColumnBytes, row: row, into: block)
            let q = unsignedWeights(block)
            let scale = UnsafeRawPointer(block).loadHalf(at: dOffset) * x.scales[b]
            for i in 0..<8 {
                var product: Int32 = 0
                for k in 4 * i..<4 * i + 4 { product += Int32(q[k]) * Int32(x.bytes[32 * b + k]) }
                lanes[i] = lanes[i].plusProduct(scale, Float(product))
            }
            offsets = offsets.plusProduct(UnsafeRawPointer(block).loadHalf(at: mOffset), x.sums[b])
        }
        return ((lanes[0] + lanes[4]) + (lanes[2] + lanes[6])) + ((lanes[1] + lanes[5]) + (lanes[3] + lanes[7])) + offsets
    }
}

#if POCKET_X86_KERNELS
extension Q4_1.X86: RowGroupKernel {
    public typealias Format = Q4_1

    public static func groupDot(_ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float> {
        var sums = LaneSums()
        forEachColumn(group, blocks: blocks, prefetching: true) { w, d, m, b in sums.add(w, d, m, x, b) }
        return sums.total
    }

    /// Two vectors at a time (eighteen accumulators each would not fit the registers four at a
    /// time); each column is unpacked once per pair.
    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        let first = groupDot2(group, x.0, x.1, blocks: blocks), second = groupDot2(group, x.2, x.3, blocks: blocks)
        return (first.0, first.1, second.0, second.1)
    }

    @inline(__always)
    static func groupDot2(_ group: UnsafeRawPointer, _ x0: Q8Vector, _ x1: Q8Vector, blocks: Int) -> (SIMD16<Float>, SIMD16<Float>) {
        var s0 = LaneSums(), s1 = LaneSums()
        forEachColumn(group, blocks: blocks, prefetching: false) { w, d, m, b in
            s0.add(w, d, m, x0, b)
            s1.add(w, d, m, x1, b)
        }
        return (s0.total, s1.total)
    }

    /// Calls `body` with each column's weights, scales `d` and minimums `m`, and its index.
    @inline(__always)
    static func forEachColumn(
        _ group: UnsafeRawPointer, blocks: Int, prefetching: Bool,
        _ body: (GroupWeights<SIMD16<UInt32>>, SIMD16<Float>, SIMD16<Float>, Int) -> Void
    ) {
        var column = group
        for b in 0..<blocks {
            if prefetching { ColumnPrefetch.request(after: column, bytes: Q4_1.groupColumnBytes) }
            body(GroupWeights<SIMD16<UInt32>>.fourBit(column + 64),
                 ByteDot.floats(halves: column.loadUnaligned(as: SIMD16<UInt16>.self)),
                 ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt16>.self)), b)
            column += Q4_1.groupColumnBytes
        }
    }

    /// The eight float lanes of sixteen rows (vector i, lane r: row r's lane i) and the
    /// minimums' term.
    struct LaneSums {
        var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
        var l4 = SIMD16<Float>(), l5 = SIMD16<Float>(), l6 = SIMD16<Float>(), l7 = SIMD16<Float>()
        var offsets = SIMD16<Float>()

        @inline(__always)
        mutating func add(_ w: GroupWeights<SIMD16<UInt32>>, _ d: SIMD16<Float>, _ m: SIMD16<Float>, _ x: Q8Vector, _ b: Int) {
            let a = UnsafeRawPointer(x.bytes + 32 * b)
            @inline(__always) func products(_ w: SIMD16<UInt32>, _ k: Int) -> SIMD16<Float> {
                ByteDot.floats(ByteDot.dot(.zero, small: w, SIMD16(repeating: a.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self))))
            }
            let scale = d * SIMD16(repeating: x.scales[b])
            l0.multiplyAdd(scale, products(w.w0, 0)); l1.multiplyAdd(scale, products(w.w1, 1))
            l2.multiplyAdd(scale, products(w.w2, 2)); l3.multiplyAdd(scale, products(w.w3, 3))
            l4.multiplyAdd(scale, products(w.w4, 4)); l5.multiplyAdd(scale, products(w.w5, 5))
            l6.multiplyAdd(scale, products(w.w6, 6)); l7.multiplyAdd(scale, products(w.w7, 7))
            offsets.multiplyAdd(m, SIMD16(repeating: x.sums[b]))
        }

        /// Each row's lanes summed pairwise, as ``Q4_1/dot(row:_:blocks:)`` does, plus its
        /// minimums' term.
        var total: SIMD16<Float> {
            @inline(__always) get { ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)) + offsets }
        }
    }
}
#endif
