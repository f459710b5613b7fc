// The eight-vector product of the 32-weight row-group kernels (``GroupColumnKernel``: Q4_0,
// Q5_0, Q8_0, IQ4_NL) in 256-bit halves (the tiers without 512-bit vectors: AVX2, SSE2) over a tile of groups, one column (block) at a time: Q2_K's scheme
// (`Q2_K+RowGroups+HalfWidth+Columns.swift`). Per block and vector the four-vector loop broadcasts
// eight activation words, the offset's starting value and the scale, ten of about thirty vector
// instructions; here they are broadcast once per column into a 2.5 KB buffer for every group of
// the tile, which reads them as memory operands. Each group's float sums wait in memory between
// columns. The integers and float steps are the four-vector loop's (``add(_:_:_:start:scale:word:)``),
// so the sums are the same bit for bit.

#if POCKET_X86_KERNELS && !POCKET_512BIT_VECTORS
/// The loop of the half-width kernels that go through a tile column by column
/// (``RowGroupKernel/tileDot8(_:groupBytes:count:_:blocks:into:stride:)``): for each of `blocks`
/// columns, `broadcast(b, words)` fills a buffer of `broadcastBytes`, then
/// `halfColumn(column, b, half, words, sums)` adds rows `8·half`… of that column of each group
/// into the group's running sums (vector `k`'s eight at `sums + 32k`); at the end, vector `k`'s
/// sum of row `r` of group `g` is stored at `output + k · stride + 16g + r`. Tiles of fewer
/// than four groups (a job's last, shrinking pieces) go `groupByGroup` instead: for them
/// broadcasting would cost more than it saves.
@inline(__always)
func tileByColumns(
    _ first: UnsafeRawPointer, groupBytes: Int, columnBytes: Int, count: Int, blocks: Int, broadcastBytes: Int,
    into output: UnsafeMutablePointer<Float>, stride: Int, groupByGroup: (_ group: Int) -> Void,
    broadcast: (_ block: Int, _ words: UnsafeMutableRawPointer) -> Void,
    halfColumn: (_ column: UnsafeRawPointer, _ block: Int, _ half: Int, _ words: UnsafeRawPointer, _ sums: UnsafeMutableRawPointer) -> Void
) {
    guard count >= 4 else {
        for g in 0..<count { groupByGroup(g) }
        return
    }
    // Per group, half and vector, eight running float sums.
    let sumsBytes = count * 2 * 8 * 32
    withUnsafeTemporaryAllocation(byteCount: broadcastBytes + sumsBytes, alignment: 64) { buffer in
        let words = buffer.baseAddress!, sums = words + broadcastBytes
        sums.initializeMemory(as: UInt8.self, repeating: 0, count: sumsBytes)
        for b in 0..<blocks {
            broadcast(b, words)
            var column = first + b * columnBytes
            for g in 0..<count {
                halfColumn(column, b, 0, UnsafeRawPointer(words), sums + (2 * g) * 256)
                halfColumn(column, b, 1, UnsafeRawPointer(words), sums + (2 * g + 1) * 256)
                column += groupBytes
            }
        }
        for g in 0..<count {
            for half in 0..<2 {
                for k in 0..<8 {
                    let s = sums.load(fromByteOffset: (2 * g + half) * 256 + 32 * k, as: SIMD8<Float>.self)
                    UnsafeMutableRawPointer(output + k * stride + 16 * g + 8 * half).storeBytes(of: s, as: SIMD8<Float>.self)
                }
            }
        }
    }
}

extension GroupColumnKernel {
    /// See ``Q2_K/X86/tileGroupsAtLeast``: the broadcast words are written once per column
    /// and tile.
    public static var tileGroupsAtLeast: Int {
        #if POCKET_WIDENED_COLUMNS
        if widens { return 1 }  // group by group, each widened once (`WidenedColumns+SSE2.swift`)
        #endif
        return 16
    }

    /// Bytes of a column's broadcast activations: eight words, the starting value and the
    /// scale, for eight vectors, 32 bytes each.
    static var columnBroadcastBytes: Int { 10 * 8 * 32 }

    public static func tileDot8(
        _ first: UnsafeRawPointer, groupBytes: Int, count: Int, _ x: UnsafePointer<Q8Vector>, blocks: Int,
        into output: UnsafeMutablePointer<Float>, stride: Int
    ) {
        #if POCKET_WIDENED_COLUMNS
        if widens {
            for g in 0..<count {
                groupDot8(first + g * groupBytes, x, blocks: blocks, into: output + g * RowGroups.rowsPerGroup, stride: stride)
            }
            return
        }
        #endif
        tileByColumns(
            first, groupBytes: groupBytes, columnBytes: Format.groupColumnBytes, count: count, blocks: blocks,
            broadcastBytes: columnBroadcastBytes, into: output, stride: stride,
            groupByGroup: { groupDot8(first + $0 * groupBytes, x, blocks: blocks, into: output + 16 * $0, stride: stride) },
            broadcast: { b, words in broadcastColumn(x, block: b, into: words) },
            halfColumn: { column, _, half, words, sums in halfColumnDot8(column, half: half, words, sums) })
    }

    /// Block `b` of the eight vectors `x[0..<8]`, each value in all eight lanes: word `j`
    /// (bytes `4j…4j + 3`) of vector `k` at `32 · (8j + k)`, its starting value
    /// `−Σx · offset` at `32 · (64 + k)` (not for Q8_0, IQ4_NL) and its scale at `32 · (72 + k)`.
    @inline(__always)
    static func broadcastColumn(_ x: UnsafePointer<Q8Vector>, block b: Int, into words: UnsafeMutableRawPointer) {
        for k in 0..<8 {
            let a = UnsafeRawPointer(x[k].bytes + 32 * b)
            for j in 0..<8 {
                words.storeBytes(of: SIMD8(repeating: a.loadUnaligned(fromByteOffset: 4 * j, as: UInt32.self)),
                                 toByteOffset: 32 * (8 * j + k), as: SIMD8<UInt32>.self)
            }
            if offsetShift != 7 {  // Q8_0's and IQ4_NL's signed products start from zero
                words.storeBytes(of: SIMD8(repeating: 0 &- x[k].blockIntegerSums[b] &<< offsetShift), toByteOffset: 32 * (64 + k), as: SIMD8<Int32>.self)
            }
            words.storeBytes(of: SIMD8(repeating: x[k].scales[b]), toByteOffset: 32 * (72 + k), as: SIMD8<Float>.self)
        }
    }

    /// Rows `8·half`…`8·half + 7` of one column times the eight vectors, added into their
    /// running sums at `sums` (vector `k` at `32k`).
    @inline(__always)
    static func halfColumnDot8(_ column: UnsafeRawPointer, half: Int, _ words: UnsafeRawPointer, _ sums: UnsafeMutableRawPointer) {
        let w = columnWeights(column + 32 + 32 * half, as: SIMD8<UInt32>.self), d = scales(column, half: half)
        @inline(__always) func vector(_ k: Int) {
            var s = sums.load(fromByteOffset: 32 * k, as: SIMD8<Float>.self)
            add(&s, w, d, start: { words.load(fromByteOffset: 32 * (64 + k), as: SIMD8<Int32>.self) },
                scale: { words.load(fromByteOffset: 32 * (72 + k), as: SIMD8<Float>.self) },
                word: { words.load(fromByteOffset: 32 * (8 * $0 + k), as: SIMD8<UInt32>.self) })
            sums.storeBytes(of: s, toByteOffset: 32 * k, as: SIMD8<Float>.self)
        }
        vector(0); vector(1); vector(2); vector(3); vector(4); vector(5); vector(6); vector(7)
    }
}
#endif
