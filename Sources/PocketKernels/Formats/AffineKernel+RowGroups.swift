// The loops shared by the x86 row-group kernels of the formats with a minimum (Q4_1, Q5_1).
//
// They keep llama.cpp's float order (``AffineGroupFormat``) as eight float vectors whose lane r
// is row r's lane i, plus a vector of the minimums' terms, so their results equal the row
// kernel's (``AffineKernel``) bit for bit. A format only says how its column unpacks.

#if POCKET_X86_KERNELS
/// A row-group kernel of a format with a minimum: the loops are shared, the format's
/// ``columnWeights(_:)`` unpacks a column.
protocol AffineGroupKernel: AffineKernel, RowGroupKernel {
    /// The weights of a column of sixteen rows, from its first word (past the fields `d` and
    /// `m`).
    static func columnWeights(_ words: UnsafeRawPointer) -> GroupWeights<SIMD16<UInt32>>
}

extension AffineGroupKernel {
    public static func groupDot(_ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float> {
        var sums = AffineLaneSums()
        var column = group
        // A loop of its own, not a closure over the columns: the closure, generic here, was
        // left a call per column (one vector's products ran at half speed, measured on Q4_1).
        for b in 0..<blocks {
            ColumnPrefetch.request(after: column, bytes: Format.groupColumnBytes)
            let (w, d, m) = unpack(column)
            sums.add(w, d, m, x, b, Format.minimumFactor(x, b))
            column += Format.groupColumnBytes
        }
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
        var s0 = AffineLaneSums(), s1 = AffineLaneSums()
        var column = group
        for b in 0..<blocks {
            let (w, d, m) = unpack(column)
            s0.add(w, d, m, x0, b, Format.minimumFactor(x0, b))
            s1.add(w, d, m, x1, b, Format.minimumFactor(x1, b))
            column += Format.groupColumnBytes
        }
        return (s0.total, s1.total)
    }

    /// A column's weights, scales `d` and minimums `m`.
    @inline(__always)
    static func unpack(_ column: UnsafeRawPointer) -> (GroupWeights<SIMD16<UInt32>>, SIMD16<Float>, SIMD16<Float>) {
        (columnWeights(column + 64),  // the words follow sixteen fp16 d and sixteen m
         ByteDot.floats(halves: column.loadUnaligned(as: SIMD16<UInt16>.self)),
         ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt16>.self)))
    }
}

/// The eight float lanes of sixteen rows (vector i, lane r: row r's lane i) and the minimums'
/// term, of one activation vector.
struct AffineLaneSums {
    var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
    var l4 = SIMD16<Float>(), l5 = SIMD16<Float>(), l6 = SIMD16<Float>(), l7 = SIMD16<Float>()
    var offsets = SIMD16<Float>()

    /// Adds block `b` of sixteen rows (weights `w`, scales `d`, minimums `m`) times `x`, whose
    /// minimum factor is `minimumFactor`.
    @inline(__always)
    mutating func add(
        _ w: GroupWeights<SIMD16<UInt32>>, _ d: SIMD16<Float>, _ m: SIMD16<Float>, _ x: Q8Vector, _ b: Int, _ minimumFactor: Float
    ) {
        let a = UnsafeRawPointer(x.bytes + 32 * b)
        @inline(__always) func products(_ w: SIMD16<UInt32>, _ k: Int) -> SIMD16<Float> {
            ByteDot.floats(ByteDot.dot(.zero, small: w, SIMD16(repeating: a.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self))))
        }
        let scale = d * SIMD16(repeating: x.scales[b])
        l0.multiplyAdd(scale, products(w.w0, 0)); l1.multiplyAdd(scale, products(w.w1, 1))
        l2.multiplyAdd(scale, products(w.w2, 2)); l3.multiplyAdd(scale, products(w.w3, 3))
        l4.multiplyAdd(scale, products(w.w4, 4)); l5.multiplyAdd(scale, products(w.w5, 5))
        l6.multiplyAdd(scale, products(w.w6, 6)); l7.multiplyAdd(scale, products(w.w7, 7))
        offsets.multiplyAdd(m, SIMD16(repeating: minimumFactor))
    }

    /// Each row's lanes summed pairwise, as ``AffineKernel/dot(row:_:blocks:)`` does, plus its
    /// minimums' term.
    var total: SIMD16<Float> {
        @inline(__always) get { ((l0 + l4) + (l2 + l6)) + ((l1 + l5) + (l3 + l7)) + offsets }
    }
}
#endif
