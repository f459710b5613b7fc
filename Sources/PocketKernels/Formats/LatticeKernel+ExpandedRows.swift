// Prompts on the lattice i-quants (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S) on x86: a batch's
// product expands sixteen rows at a time into bytes once, lanes being rows, and runs every
// vector of the batch over them.
//
// The row kernels (``LatticeX86Kernel``) gather eight grid points and their signs per 64
// weights again for every four vectors; over a prompt that gathering, not the products, is the
// cost (`perf` on the IQ2_XXS file: its `dot4x4` took 3.7 times the IQ4_NL row groups' time per
// weight). Here each row's 64 weights are gathered once per tile, exactly as the row kernel
// gathers them (bytes 64 ± g, ``LatticeX86Kernel/weights(_:_:_:)``), and written as the columns
// of a row group: word j of the sixteen rows side by side, so that one `vpdpbusd` multiplies a
// broadcast word of activations with sixteen rows and the float work happens once per 32
// weights for sixteen rows, as in the 32-weight formats' row groups (`RowGroupKernel+X86.swift`).
// The exact float scales (2·ls + 1 times d times the format's power of two) go with them, one
// per row and 32 weights, or per 16 for IQ2_XS and IQ2_S, whose halves then take their 64
// offsets off separately (the activations' group sums).
//
// Expanded rows come in pairs of columns, 64 weights (two activation blocks) of sixteen rows,
// which is what the row kernel gathers at a time:
//
//     scales of rows 0…15 for weights 0…31, then for 32…63 (per-16 formats: for 0…15, 16…31,
//     32…47, 48…63) | word 0 (weights 0…3) of rows 0…15 | word 1 of rows 0…15 | … | word 15
//
// Sixteen rows' gathered weights are a 16 × 16 matrix of words, row by row; the pair is its
// transpose (``ByteDot/transposeWords(_:into:)``: 64 shuffles on AVX-512).
//
// The copy lives only while its tile is multiplied (a thread's scratch, about 1.1 bytes per
// weight): the matrix in memory keeps its 2–3.4 bits per weight, and one-vector products (a
// decode step) keep the row kernels.

#if POCKET_X86_KERNELS
/// Sixteen rows of a lattice-format matrix expanded for a batch of vectors (see the comment
/// above): the layout, the expansion and the kernels.
enum ExpandedLatticeRows {
    /// Rows expanded together: one per 32-bit lane of a 512-bit vector.
    static let rows = RowGroups.rowsPerGroup

    /// The fewest vectors worth an expansion: below it the row kernels run (expanding costs
    /// about what four vectors' row products cost).
    static let minimumTokens = 16

    /// Bytes of expanded rows per tile: a thread expands this much, then multiplies it with
    /// every vector four at a time while the four stay in the first-level cache.
    static let tileBytes = 256 * 1024

    /// Scale vectors per column: 2 when the format has a scale per 16 weights, else 1.
    @inline(__always)
    static func scaleVectors<K: LatticeX86Kernel>(_ kernel: K.Type) -> Int { K.weightsPerScale == 16 ? 2 : 1 }

    /// Where a pair's words start: after its two columns' scales.
    @inline(__always)
    static func wordsOffset<K: LatticeX86Kernel>(_ kernel: K.Type) -> Int { 128 &* scaleVectors(kernel) }

    /// Bytes of one expanded pair of columns (64 weights of sixteen rows).
    @inline(__always)
    static func pairBytes<K: LatticeX86Kernel>(_ kernel: K.Type) -> Int { wordsOffset(kernel) &+ 1024 }

    /// Bytes of sixteen rows of `blocks` 32-weight blocks, expanded.
    @inline(__always)
    static func groupBytes<K: LatticeX86Kernel>(_ kernel: K.Type, blocks: Int) -> Int { blocks / 2 &* pairBytes(kernel) }

    /// Writes sixteen rows (`first`, the others `rowBytes` apart; `blocks` 32-weight blocks
    /// each) as `blocks / 2` expanded pairs at `destination`.
    static func expand<K: LatticeX86Kernel>(
        _ kernel: K.Type, rows first: UnsafeRawPointer, rowBytes: Int, blocks: Int, into destination: UnsafeMutableRawPointer
    ) {
        let pairBytes = pairBytes(kernel), words = wordsOffset(kernel), halves = scaleVectors(kernel) == 2
        K.grid.withUnsafeBufferPointer { grid in
            let grid = grid.baseAddress!
            withUnsafeTemporaryAllocation(of: SIMD16<UInt32>.self, capacity: rows) { gathered in
                var pair = destination
                var offset = 0
                for _ in 0..<(blocks / 8) {
                    for k in 0..<4 {
                        for r in 0..<rows {
                            let block = first + (r &* rowBytes &+ offset)
                            gathered[r] = K.weights(block, k, grid)
                            let s = K.floatScales(block, k, K.superBlockScale(block))
                            if halves {
                                pair.storeBytes(of: s[0], toByteOffset: 4 &* r, as: Float.self)
                                pair.storeBytes(of: s[4], toByteOffset: 64 &+ 4 &* r, as: Float.self)
                                pair.storeBytes(of: s[8], toByteOffset: 128 &+ 4 &* r, as: Float.self)
                                pair.storeBytes(of: s[12], toByteOffset: 192 &+ 4 &* r, as: Float.self)
                            } else {
                                pair.storeBytes(of: s[0], toByteOffset: 4 &* r, as: Float.self)
                                pair.storeBytes(of: s[8], toByteOffset: 64 &+ 4 &* r, as: Float.self)
                            }
                        }
                        ByteDot.transposeWords(UnsafeRawPointer(gathered.baseAddress!), into: pair + words)
                        pair += pairBytes
                    }
                    offset &+= K.superBlockBytes
                }
            }
        }
    }

    /// The sixteen expanded rows at `group` times one vector (lane r: row r).
    static func dot<K: LatticeX86Kernel>(_ kernel: K.Type, _ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float> {
        var sum = SIMD16<Float>()
        var pair = group
        for p in 0..<(blocks / 2) {
            let words = pair + wordsOffset(kernel)
            add(kernel, &sum, GroupWeights.loaded(words), pair, x, 2 &* p)
            add(kernel, &sum, GroupWeights.loaded(words + 512), pair + 64 &* scaleVectors(kernel), x, 2 &* p &+ 1)
            pair += pairBytes(kernel)
        }
        return sum
    }

    /// The sixteen expanded rows at `group` times four vectors: each column's words are loaded
    /// once for the four, which get exactly the operations of ``dot(_:_:_:blocks:)``.
    @inline(never)
    static func dot4<K: LatticeX86Kernel>(
        _ kernel: K.Type, _ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int
    ) -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        var s0 = SIMD16<Float>(), s1 = SIMD16<Float>(), s2 = SIMD16<Float>(), s3 = SIMD16<Float>()
        var pair = group
        for p in 0..<(blocks / 2) {
            let words = pair + wordsOffset(kernel)
            for c in 0..<2 {
                let w = GroupWeights<SIMD16<UInt32>>.loaded(words + 512 &* c), scales = pair + 64 &* scaleVectors(kernel) &* c
                let b = 2 &* p &+ c
                add(kernel, &s0, w, scales, x.0, b)
                add(kernel, &s1, w, scales, x.1, b)
                add(kernel, &s2, w, scales, x.2, b)
                add(kernel, &s3, w, scales, x.3, b)
            }
            pair += pairBytes(kernel)
        }
        return (s0, s1, s2, s3)
    }

    /// Adds column `b` (weights `w`, its scale vectors at `column`) times activation block `b`
    /// of `x` into `sum`, in the order of ``dotReference(_:_:row:_:blocks:)``.
    @inline(__always)
    static func add<K: LatticeX86Kernel>(
        _ kernel: K.Type, _ sum: inout SIMD16<Float>, _ w: GroupWeights<SIMD16<UInt32>>, _ column: UnsafeRawPointer,
        _ x: Q8Vector, _ b: Int
    ) {
        let a = UnsafeRawPointer(x.bytes + 32 * b)
        @inline(__always) func product(_ partial: SIMD16<Int32>, _ weights: SIMD16<UInt32>, _ k: Int) -> SIMD16<Int32> {
            ByteDot.dot(partial, small: weights, SIMD16(repeating: a.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self)))
        }
        @inline(__always) func start(_ sum: Int32) -> SIMD16<Int32> {
            SIMD16(repeating: 0 &- sum &<< LatticeX86Kernels.offsetShift)
        }
        let dx = SIMD16<Float>(repeating: x.scales[b])
        let scales = column.loadUnaligned(as: SIMD16<Float>.self)
        if scaleVectors(kernel) == 2 {
            let groups = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD4<Int32>.self)
            let low = (groups[0] &+ groups[1]) &+ (groups[2] &+ groups[3])
            let p = product(product(product(product(start(low), w.w0, 0), w.w1, 1), w.w2, 2), w.w3, 3)
            let q = product(product(product(product(start(x.blockIntegerSums[b] &- low), w.w4, 4), w.w5, 5), w.w6, 6), w.w7, 7)
            sum.multiplyAdd(ByteDot.floats(p), scales * dx)
            sum.multiplyAdd(ByteDot.floats(q), column.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self) * dx)
        } else {
            let p = product(product(product(product(start(x.blockIntegerSums[b]), w.w0, 0), w.w1, 1), w.w2, 2), w.w3, 3)
            let q = product(product(product(product(.zero, w.w4, 4), w.w5, 5), w.w6, 6), w.w7, 7)
            sum.multiplyAdd(ByteDot.floats(p &+ q), scales * dx)
        }
    }

    /// Weight `i` (of 32) of row `r` in column `b` of the expanded rows at `group`, as the
    /// signed integer the kernels multiply, and the float scale it is multiplied by: the weight
    /// is their product.
    static func weight<K: LatticeX86Kernel>(
        _ kernel: K.Type, _ group: UnsafeRawPointer, column b: Int, row r: Int, _ i: Int
    ) -> (value: Int32, scale: Float) {
        let pair = group + b / 2 * pairBytes(kernel), c = b % 2
        let byte = pair.load(fromByteOffset: wordsOffset(kernel) + 512 * c + 64 * (i / 4) + 4 * r + i % 4, as: UInt8.self)
        let scale = pair.load(fromByteOffset: 64 * scaleVectors(kernel) * c + (scaleVectors(kernel) == 2 && i >= 16 ? 64 : 0) + 4 * r,
                              as: Float.self)
        return (Int32(byte) - 64, scale)
    }

    /// Row `r` of the expanded rows at `group` times `x`, one weight at a time: the kernels'
    /// scalar reference, which they equal bit for bit.
    static func dotReference<K: LatticeX86Kernel>(_ kernel: K.Type, _ group: UnsafeRawPointer, row r: Int, _ x: Q8Vector, blocks: Int) -> Float {
        var sum: Float = 0
        for b in 0..<blocks {
            func half(_ h: Int) -> (integer: Int32, scale: Float) {
                var integer: Int32 = 0
                for i in (16 * h)..<(16 * h + 16) {
                    integer += weight(kernel, group, column: b, row: r, i).value * Int32(x.bytes[32 * b + i])
                }
                return (integer, weight(kernel, group, column: b, row: r, 16 * h).scale)
            }
            let dx = x.scales[b], low = half(0), high = half(1)
            if scaleVectors(kernel) == 2 {
                sum = sum.plusProduct(Float(low.integer), low.scale * dx)
                sum = sum.plusProduct(Float(high.integer), high.scale * dx)
            } else {
                sum = sum.plusProduct(Float(low.integer + high.integer), low.scale * dx)
            }
        }
        return sum
    }
}
#endif
