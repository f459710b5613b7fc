// Row-group products of several vectors on SSE2, from columns widened once into 16-bit operands
// (`POCKET_WIDENED_COLUMNS`: Q4_0, Q5_0 and Q4_K; Q6_K's own four-vector kernel was faster, and Q4_1
// keeps llama.cpp's eight float lanes per row, whose conversions would outweigh the products).
//
// SSE2's only integer multiply-add is `pmaddwd` (16-bit pairs into 32-bit lanes), so a byte
// product first widens both operands to 16 bits. The byte-dot emulation (`ByteDot+SSE2.swift`)
// widens a column's weights again for every vector it multiplies, and with sixteen registers its
// sixteen rows spill. Here a few columns (blocks) of a group are unpacked and widened once into
// a buffer, the tile; each vector then runs over the tile with one `pmaddwd` per eight products,
// the widened weights read straight from memory, four row quads' sums in registers.
//
// A widened column: for weight vector j = 0…7 of the column (``GroupWeights``: weights 4j…4j+3,
// or 16+4(j−4)… for j ≥ 4, of row r in 32-bit lane r) and row quad q = 0…3 (rows 4q…4q+3), two
// registers: the even bytes as 16-bit values, and the odd bytes in place, 256 times their value
// (the weights are below 128, so that still fits a signed 16-bit lane). Each meets activation
// word j (bytes 4j…4j+3 of the block) broadcast, its even bytes moved up (`psllw 8`, 256 times
// their value) or its odd bytes sign-extended (`psraw 8`): every product is 256 times the byte
// product, exactly; the block's sum, started from 256 times its integer start, is shifted back
// once (`psrad 8`). With weights below 32 a block's products times 256 stay below 2^25.
//
// The integers are those of the byte-dot kernels and the float steps those of their references
// (`groupDotReference`), so the results are the same bit for bit.

#if POCKET_WIDENED_COLUMNS
import _Builtin_intrinsics.intel

/// Tiles of widened columns (see the top of this file).
enum WidenedColumns {
    /// Columns widened at a time: 8 × 68 registers, 8.5 KB, stays in the first-level cache.
    static let blocksPerTile = 8
    /// Weight registers of a widened column: 8 weight vectors × 4 row quads × 2.
    static let weightRegisters = 64
    /// Registers per widened 32-weight column: its weights, then its sixteen scales as floats.
    static let columnRegisters = weightRegisters + 4

    /// Writes a column's weights (every byte below 128) widened at `out`.
    @inline(__always)
    static func widen(_ w: GroupWeights<SIMD16<UInt32>>, into out: UnsafeMutablePointer<__m128i>) {
        @inline(__always) func vector(_ j: Int, _ v: SIMD16<UInt32>) {
            @inline(__always) func quad(_ q: Int, _ lanes: SIMD4<UInt32>) {
                let bits = unsafeBitCast(lanes, to: __m128i.self)
                out[8 * j + 2 * q] = _mm_and_si128(bits, _mm_set1_epi16(0x00FF))
                out[8 * j + 2 * q + 1] = _mm_and_si128(bits, _mm_set1_epi16(0x7F00))
            }
            quad(0, v.lowHalf.lowHalf); quad(1, v.lowHalf.highHalf); quad(2, v.highHalf.lowHalf); quad(3, v.highHalf.highHalf)
        }
        vector(0, w.w0); vector(1, w.w1); vector(2, w.w2); vector(3, w.w3)
        vector(4, w.w4); vector(5, w.w5); vector(6, w.w6); vector(7, w.w7)
    }

    /// Sixteen rows' block products with one vector's block at `values` (32 signed bytes),
    /// plus `start`: exact integers, one per row.
    @inline(__always)
    static func products(_ column: UnsafePointer<__m128i>, _ values: UnsafeRawPointer, start: Int32) -> SIMD16<Int32> {
        let low = values.loadUnaligned(as: SIMD4<UInt32>.self), high = values.loadUnaligned(fromByteOffset: 16, as: SIMD4<UInt32>.self)
        let first = _mm_set1_epi32(start &<< 8)
        var a0 = first, a1 = first, a2 = first, a3 = first
        @inline(__always) func word(_ j: Int, _ word: UInt32) {
            let s = unsafeBitCast(SIMD4(repeating: word), to: __m128i.self)
            let even = _mm_slli_epi16(s, 8), odd = _mm_srai_epi16(s, 8)
            let w = column + 8 * j
            a0 = _mm_add_epi32(a0, _mm_add_epi32(_mm_madd_epi16(even, w[0]), _mm_madd_epi16(odd, w[1])))
            a1 = _mm_add_epi32(a1, _mm_add_epi32(_mm_madd_epi16(even, w[2]), _mm_madd_epi16(odd, w[3])))
            a2 = _mm_add_epi32(a2, _mm_add_epi32(_mm_madd_epi16(even, w[4]), _mm_madd_epi16(odd, w[5])))
            a3 = _mm_add_epi32(a3, _mm_add_epi32(_mm_madd_epi16(even, w[6]), _mm_madd_epi16(odd, w[7])))
        }
        word(0, low[0]); word(1, low[1]); word(2, low[2]); word(3, low[3])
        word(4, high[0]); word(5, high[1]); word(6, high[2]); word(7, high[3])
        @inline(__always) func lanes(_ v: __m128i) -> SIMD4<Int32> { unsafeBitCast(_mm_srai_epi32(v, 8), to: SIMD4<Int32>.self) }
        return SIMD16(lowHalf: SIMD8(lowHalf: lanes(a0), highHalf: lanes(a1)), highHalf: SIMD8(lowHalf: lanes(a2), highHalf: lanes(a3)))
    }

    /// The products of a group's sixteen rows with `count` (at most 8) vectors, tile by tile:
    /// `widen(b, column)` writes column `b` widened (and its floats after its weights), then
    /// for each vector k, `accumulate(k, first, tile, columns, &sum)` adds the products of the
    /// tile's `columns` columns (from block `first`) into vector k's sums, which wait in memory
    /// between tiles. Vector k's sixteen sums end at `output + k · stride`.
    @inline(__always)
    static func tiles(
        blocks: Int, count: Int, into output: UnsafeMutablePointer<Float>, stride: Int,
        blocksPerTile: Int = blocksPerTile, columnRegisters: Int = columnRegisters,
        widen: (_ block: Int, _ column: UnsafeMutablePointer<__m128i>) -> Void,
        accumulate: (_ vector: Int, _ first: Int, _ tile: UnsafePointer<__m128i>, _ columns: Int, _ sum: inout SIMD16<Float>) -> Void
    ) {
        withUnsafeTemporaryAllocation(of: SIMD16<Float>.self, capacity: 8) { sums in
            sums.initialize(repeating: .zero)
            withUnsafeTemporaryAllocation(of: __m128i.self, capacity: blocksPerTile * columnRegisters) { buffer in
                let tile = buffer.baseAddress!
                var first = 0
                while first < blocks {
                    let columns = min(blocksPerTile, blocks - first)
                    for i in 0..<columns { widen(first + i, tile + columnRegisters * i) }
                    for k in 0..<count { accumulate(k, first, UnsafePointer(tile), columns, &sums[k]) }
                    first += columns
                }
            }
            for k in 0..<count { UnsafeMutableRawPointer(output + k * stride).storeBytes(of: sums[k], as: SIMD16<Float>.self) }
        }
    }
}

extension WidenedColumns {
    /// `body(x, out)` with the four vectors `x` laid out one after the other and `out` for their
    /// sixteen sums each (`16k`): ``RowGroupKernel/groupDot4(_:_:blocks:)`` through the
    /// eight-vector loops.
    @inline(__always)
    static func fourVectors(
        _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), _ body: (UnsafePointer<Q8Vector>, UnsafeMutablePointer<Float>) -> Void
    ) -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        withUnsafeTemporaryAllocation(of: Q8Vector.self, capacity: 4) { vectors in
            let v = vectors.baseAddress!
            v.initialize(to: x.0); (v + 1).initialize(to: x.1); (v + 2).initialize(to: x.2); (v + 3).initialize(to: x.3)
            defer { v.deinitialize(count: 4) }
            return withUnsafeTemporaryAllocation(of: SIMD16<Float>.self, capacity: 4) { out in
                body(UnsafePointer(v), UnsafeMutableRawPointer(out.baseAddress!).assumingMemoryBound(to: Float.self))
                return (out[0], out[1], out[2], out[3])
            }
        }
    }
}

extension GroupColumnKernel {
    /// Whether the format's columns can be widened: unsigned weights below 128 (Q4_0, Q5_0;
    /// not Q8_0, whose w + 128 take all eight bits).
    @inline(__always) static var widens: Bool { offsetShift < 7 }

    /// ``groupDot8(_:_:blocks:into:stride:)`` from widened columns, for `count` (4 or 8)
    /// vectors: vector k's sums at `output + k · stride`.
    @inline(__always)
    static func widenedDot(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, count: Int, blocks: Int,
                           into output: UnsafeMutablePointer<Float>, stride: Int) {
        WidenedColumns.tiles(
            blocks: blocks, count: count, into: output, stride: stride,
            widen: { b, out in
                let column = group + b * Format.groupColumnBytes
                WidenedColumns.widen(columnWeights(column + 32, as: SIMD16<UInt32>.self), into: out)
                UnsafeMutableRawPointer(out + WidenedColumns.weightRegisters).storeBytes(of: scales(column), as: SIMD16<Float>.self)
            },
            accumulate: { k, first, tile, columns, sum in
                let v = x[k]
                for i in 0..<columns {
                    let b = first + i, column = tile + WidenedColumns.columnRegisters * i
                    let p = WidenedColumns.products(column, UnsafeRawPointer(v.bytes + 32 * b),
                                                    start: 0 &- v.blockIntegerSums[b] &<< offsetShift)
                    let d = UnsafeRawPointer(column + WidenedColumns.weightRegisters).loadUnaligned(as: SIMD16<Float>.self)
                    sum.multiplyAdd(ByteDot.floats(p), d * SIMD16(repeating: v.scales[b]))
                }
            })
    }

    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        guard widens else { return inTwoPasses { halfGroupDot4(group, half: $0, x, blocks: blocks) } }
        return WidenedColumns.fourVectors(x) { widenedDot(group, $0, count: 4, blocks: blocks, into: $1, stride: 16) }
    }

    @inline(never)
    public static func groupDot8(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, blocks: Int,
                                 into output: UnsafeMutablePointer<Float>, stride: Int) {
        guard widens else { return groupDot8InFours(group, x, blocks: blocks, into: output, stride: stride) }
        widenedDot(group, x, count: 8, blocks: blocks, into: output, stride: stride)
    }
}

extension Q4_K.X86 {
    /// Registers of a widened Q4_K column (one super-block of sixteen rows): its eight
    /// sub-blocks' weights (``WidenedColumns/weightRegisters`` each), then per sub-block its
    /// scales as integers and its mins as floats (four registers each), then `d` and `dmin`.
    static let widenedColumnRegisters = 8 * WidenedColumns.weightRegisters + 8 * 8 + 8

    /// ``groupDot8(_:_:blocks:into:stride:)`` from widened columns, for `count` (4 or 8)
    /// vectors, in the order of ``Q4_K/groupDotReference(_:row:_:blocks:)``.
    @inline(__always)
    static func widenedDot(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, count: Int, blocks: Int,
                           into output: UnsafeMutablePointer<Float>, stride: Int) {
        let floatsAt = 8 * WidenedColumns.weightRegisters  // register of the scales, mins, d and dmin
        WidenedColumns.tiles(
            blocks: blocks, count: count, into: output, stride: stride, blocksPerTile: 1, columnRegisters: widenedColumnRegisters,
            widen: { sb, out in
                let column = group + sb * Q4_K.groupColumnBytes
                let extras = UnsafeMutableRawPointer(out + floatsAt)
                for c in 0..<4 {
                    @inline(__always) func word(_ j: Int) -> SIMD16<UInt32> {
                        column.loadUnaligned(fromByteOffset: Q4_K.groupWeightsOffset + 64 * (8 * c + j), as: SIMD16<UInt32>.self)
                    }
                    let w = (word(0), word(1), word(2), word(3), word(4), word(5), word(6), word(7))
                    @inline(__always) func nibbles(_ shift: UInt32) -> GroupWeights<SIMD16<UInt32>> {
                        GroupWeights(w0: w.0 &>> shift & 0x0F0F_0F0F, w1: w.1 &>> shift & 0x0F0F_0F0F,
                                     w2: w.2 &>> shift & 0x0F0F_0F0F, w3: w.3 &>> shift & 0x0F0F_0F0F,
                                     w4: w.4 &>> shift & 0x0F0F_0F0F, w5: w.5 &>> shift & 0x0F0F_0F0F,
                                     w6: w.6 &>> shift & 0x0F0F_0F0F, w7: w.7 &>> shift & 0x0F0F_0F0F)
                    }
                    WidenedColumns.widen(nibbles(0), into: out + WidenedColumns.weightRegisters * (2 * c))
                    WidenedColumns.widen(nibbles(4), into: out + WidenedColumns.weightRegisters * (2 * c + 1))
                    let scales = PairScales(column, c)
                    extras.storeBytes(of: scales.scale0, toByteOffset: 128 * (2 * c), as: SIMD16<Int32>.self)
                    extras.storeBytes(of: scales.min0, toByteOffset: 128 * (2 * c) + 64, as: SIMD16<Float>.self)
                    extras.storeBytes(of: scales.scale1, toByteOffset: 128 * (2 * c + 1), as: SIMD16<Int32>.self)
                    extras.storeBytes(of: scales.min1, toByteOffset: 128 * (2 * c + 1) + 64, as: SIMD16<Float>.self)
                }
                extras.storeBytes(of: ByteDot.floats(halves: column.loadUnaligned(as: SIMD16<UInt16>.self)),
                                  toByteOffset: 1024, as: SIMD16<Float>.self)
                extras.storeBytes(of: ByteDot.floats(halves: column.loadUnaligned(fromByteOffset: 32, as: SIMD16<UInt16>.self)),
                                  toByteOffset: 1088, as: SIMD16<Float>.self)
            },
            accumulate: { k, sb, tile, _, sum in
                let v = x[k]
                var u = SIMD16<Float>(), m = SIMD16<Float>()
                let extras = UnsafeRawPointer(tile + floatsAt)
                for s in 0..<8 {
                    let b = 8 * sb + s
                    let p = WidenedColumns.products(tile + WidenedColumns.weightRegisters * s, UnsafeRawPointer(v.bytes + 32 * b), start: 0)
                    let scale = extras.loadUnaligned(fromByteOffset: 128 * s, as: SIMD16<Int32>.self)
                    let min = extras.loadUnaligned(fromByteOffset: 128 * s + 64, as: SIMD16<Float>.self)
                    u.multiplyAdd(ByteDot.floats(p &* scale), SIMD16(repeating: v.scales[b]))
                    m.multiplyAdd(min, SIMD16(repeating: v.blockSums[b]))
                }
                sum.multiplyAdd(extras.loadUnaligned(fromByteOffset: 1024, as: SIMD16<Float>.self), u)
                sum.multiplyAdd(-extras.loadUnaligned(fromByteOffset: 1088, as: SIMD16<Float>.self), m)
            })
    }

    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        WidenedColumns.fourVectors(x) { widenedDot(group, $0, count: 4, blocks: blocks, into: $1, stride: 16) }
    }

    @inline(never)
    public static func groupDot8(_ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, blocks: Int,
                                 into output: UnsafeMutablePointer<Float>, stride: Int) {
        widenedDot(group, x, count: 8, blocks: blocks, into: output, stride: stride)
    }
}
#endif
