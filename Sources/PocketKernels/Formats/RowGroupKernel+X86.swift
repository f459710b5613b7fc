// The loops shared by the x86 row-group kernels (``RowGroupKernel``).
//
// Per column of a group (block b of sixteen rows), the format unpacks eight vectors of
// unsigned weights: vector j holds weights 4j…4j+3 of row r in lane r. Each `vpdpbusd` (on
// AVX2, its ``ByteDot`` equivalent) then
// multiplies one of them with one broadcast word of activations (bytes 4j…4j+3 of the
// block): 64 multiply-adds, and the conversion, scale and accumulation happen once per block
// for all sixteen rows. The offset term is the first product's starting value, and the eight
// products run as two chains of four so that the adds do not wait on one another.

#if POCKET_X86_KERNELS
/// A column of a row group unpacked: `w[j]`, lane r, holds weights 4j…4j+3 of row r as
/// unsigned bytes. `Lanes` is `SIMD16<UInt32>` for all sixteen rows, or `SIMD8<UInt32>` for
/// half of them (the AVX2 kernels' passes, `RowGroupKernel+HalfWidth.swift`).
struct GroupWeights<Lanes: SIMD> where Lanes.Scalar == UInt32 {
    var w0, w1, w2, w3, w4, w5, w6, w7: Lanes

    /// The weights of the 4-bit formats' four words of nibbles (Q4_0, Q4_1).
    @inline(__always)
    static func fourBit(_ words: UnsafeRawPointer) -> GroupWeights {
        let n0 = nibbles(words.loadUnaligned(as: Lanes.self))
        let n1 = nibbles(words.loadUnaligned(fromByteOffset: 64, as: Lanes.self))
        let n2 = nibbles(words.loadUnaligned(fromByteOffset: 128, as: Lanes.self))
        let n3 = nibbles(words.loadUnaligned(fromByteOffset: 192, as: Lanes.self))
        return GroupWeights(w0: n0.low, w1: n1.low, w2: n2.low, w3: n3.low, w4: n0.high, w5: n1.high, w6: n2.high, w7: n3.high)
    }

    /// The eight word vectors at `words`, 64 bytes apart, as they are (Q8_0's columns, the
    /// expanded lattice rows).
    @inline(__always)
    static func loaded(_ words: UnsafeRawPointer) -> GroupWeights {
        GroupWeights(
            w0: words.loadUnaligned(as: Lanes.self),
            w1: words.loadUnaligned(fromByteOffset: 64, as: Lanes.self),
            w2: words.loadUnaligned(fromByteOffset: 128, as: Lanes.self),
            w3: words.loadUnaligned(fromByteOffset: 192, as: Lanes.self),
            w4: words.loadUnaligned(fromByteOffset: 256, as: Lanes.self),
            w5: words.loadUnaligned(fromByteOffset: 320, as: Lanes.self),
            w6: words.loadUnaligned(fromByteOffset: 384, as: Lanes.self),
            w7: words.loadUnaligned(fromByteOffset: 448, as: Lanes.self))
    }

    /// The low and high nibbles of a word vector: weights 4k…4k+3 and 16+4k…16+4k+3 of the
    /// 4-bit formats' word k.
    @inline(__always)
    static func nibbles(_ v: Lanes) -> (low: Lanes, high: Lanes) {
        (v & 0x0F0F_0F0F, v &>> 4 & 0x0F0F_0F0F)
    }
}

/// A row-group kernel whose columns start with the sixteen rows' fp16 scales `d` and unpack into
/// 32-weight blocks of unsigned weights (``GroupWeights``) that exceed the signed ones by a power
/// of two: the block product (`add`) is shared. The 32-weight formats' kernels
/// (``GroupColumnKernel``) and IQ4_XS's, whose sub-blocks are IQ4_NL blocks, are such kernels.
protocol GroupBlockKernel: RowGroupKernel {
    /// `log2` of what the unsigned weights exceed the signed ones by.
    static var offsetShift: Int32 { get }
}

/// A row-group kernel of a 32-weight format with an offset and one scale (Q4_0, Q5_0, Q8_0,
/// IQ4_NL)
/// that says how its format's column unpacks; the loops are shared. (Q4_1 and Q5_1 keep llama.cpp's
/// lanes and have their own loops, `AffineKernel+RowGroups.swift`.)
protocol GroupColumnKernel: GroupBlockKernel where Format: WordGroupFormat {
    /// The weights of a column, from its first word (past the fp16 fields): of all sixteen
    /// rows (`SIMD16`), or of eight (`SIMD8`, from `words + 32·half`: each 64-byte word
    /// vector holds a row per 32-bit lane).
    static func columnWeights<Lanes>(_ words: UnsafeRawPointer, as lanes: Lanes.Type) -> GroupWeights<Lanes>
}

extension GroupColumnKernel {
    /// `log2` of the format's offset (its unsigned weights exceed the signed by a power of two).
    @inline(__always) static var offsetShift: Int32 { Int32(Format.weightOffset.trailingZeroBitCount) }
}

extension GroupBlockKernel {
    /// The sixteen scales `d` of a column as floats (`vcvtph2ps`).
    @inline(__always)
    static func scales(_ column: UnsafeRawPointer) -> SIMD16<Float> {
        ByteDot.floats(halves: column.loadUnaligned(as: SIMD16<UInt16>.self))
    }
}

extension GroupColumnKernel {
    public static func groupDot(_ group: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> SIMD16<Float> {
        var sum = SIMD16<Float>()
        var column = group
        for b in 0..<blocks {
            ColumnPrefetch.request(after: column, bytes: Format.groupColumnBytes)
            let w = columnWeights(column + 32, as: SIMD16<UInt32>.self), d = scales(column)  // words follow the 16 fp16 scales
            add(&sum, w, d, x, b)
            column += Format.groupColumnBytes
        }
        return sum
    }

    #if POCKET_512BIT_VECTORS  // 256-bit tiers have their own, in halves (`RowGroupKernel+HalfWidth.swift`)
    @inline(never)
    public static func groupDot4(_ group: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int)
        -> (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>) {
        var s0 = SIMD16<Float>(), s1 = SIMD16<Float>(), s2 = SIMD16<Float>(), s3 = SIMD16<Float>()
        var column = group
        for b in 0..<blocks {
            let w = columnWeights(column + 32, as: SIMD16<UInt32>.self), d = scales(column)  // words follow the 16 fp16 scales
            add(&s0, w, d, x.0, b)
            add(&s1, w, d, x.1, b)
            add(&s2, w, d, x.2, b)
            add(&s3, w, d, x.3, b)
            column += Format.groupColumnBytes
        }
        return (s0, s1, s2, s3)
    }

    /// Eight vectors per column: the column is unpacked once for the eight (the lookups of
    /// IQ4_NL, the nibbles of Q4_0), each gets exactly ``groupDot4(_:_:blocks:)``'s operations.
    @inline(never)
    public static func groupDot8(
        _ group: UnsafeRawPointer, _ x: UnsafePointer<Q8Vector>, blocks: Int, into output: UnsafeMutablePointer<Float>, stride: Int
    ) {
        var s0 = SIMD16<Float>(), s1 = SIMD16<Float>(), s2 = SIMD16<Float>(), s3 = SIMD16<Float>()
        var s4 = SIMD16<Float>(), s5 = SIMD16<Float>(), s6 = SIMD16<Float>(), s7 = SIMD16<Float>()
        var column = group
        for b in 0..<blocks {
            let w = columnWeights(column + 32, as: SIMD16<UInt32>.self), d = scales(column)  // words follow the 16 fp16 scales
            add(&s0, w, d, x[0], b)
            add(&s1, w, d, x[1], b)
            add(&s2, w, d, x[2], b)
            add(&s3, w, d, x[3], b)
            add(&s4, w, d, x[4], b)
            add(&s5, w, d, x[5], b)
            add(&s6, w, d, x[6], b)
            add(&s7, w, d, x[7], b)
            column += Format.groupColumnBytes
        }
        let out = UnsafeMutableRawPointer(output), step = 4 * stride
        out.storeBytes(of: s0, as: SIMD16<Float>.self)
        out.storeBytes(of: s1, toByteOffset: step, as: SIMD16<Float>.self)
        out.storeBytes(of: s2, toByteOffset: 2 * step, as: SIMD16<Float>.self)
        out.storeBytes(of: s3, toByteOffset: 3 * step, as: SIMD16<Float>.self)
        out.storeBytes(of: s4, toByteOffset: 4 * step, as: SIMD16<Float>.self)
        out.storeBytes(of: s5, toByteOffset: 5 * step, as: SIMD16<Float>.self)
        out.storeBytes(of: s6, toByteOffset: 6 * step, as: SIMD16<Float>.self)
        out.storeBytes(of: s7, toByteOffset: 7 * step, as: SIMD16<Float>.self)
    }
    #endif
}

extension GroupBlockKernel {
    /// Adds block `b` of sixteen rows (weights `w`, scales `d`) times `x` into `sum`, in the
    /// order of ``RowGroupFormat/groupDotReference(_:row:_:blocks:)``.
    @inline(__always)
    static func add(_ sum: inout SIMD16<Float>, _ w: GroupWeights<SIMD16<UInt32>>, _ d: SIMD16<Float>, _ x: Q8Vector, _ b: Int) {
        let a = UnsafeRawPointer(x.bytes + 32 * b)
        @inline(__always) func word(_ k: Int) -> SIMD16<UInt32> {
            SIMD16(repeating: a.loadUnaligned(fromByteOffset: 4 * k, as: UInt32.self))
        }
        let p: SIMD16<Int32>, q: SIMD16<Int32>
        if offsetShift < 5 {
            // Weights below 32 (Q4_0, Q5_0): each chain of four products in one call.
            let start = SIMD16(repeating: 0 &- x.blockIntegerSums[b] &<< offsetShift)
            p = ByteDot.dot(start, below32: (w.w0, w.w1, w.w2, w.w3), (word(0), word(1), word(2), word(3)))
            q = ByteDot.dot(.zero, below32: (w.w4, w.w5, w.w6, w.w7), (word(4), word(5), word(6), word(7)))
        } else {
            #if !POCKET_512BIT_VECTORS && !POCKET_WIDENED_COLUMNS
            // Q8_0 and IQ4_NL on AVX2: signed products (``ByteDot/dot(_:flipped:_:)-(SIMD16<Int32>,_,_)``),
            // no offset to take away. (SSE2, whose products all go through 16 bits, widens the
            // unsigned w + 128 with fewer instructions than it sign-extends w, and takes the
            // offset away as the 512-bit tier does.)
            let start = SIMD16<Int32>.zero
            @inline(__always) func product(_ partial: SIMD16<Int32>, _ weights: SIMD16<UInt32>, _ k: Int) -> SIMD16<Int32> {
                ByteDot.dot(partial, flipped: weights, word(k))
            }
            #else
            let start = SIMD16(repeating: 0 &- x.blockIntegerSums[b] &<< offsetShift)
            @inline(__always) func product(_ partial: SIMD16<Int32>, _ weights: SIMD16<UInt32>, _ k: Int) -> SIMD16<Int32> {
                ByteDot.dot(partial, offsetWeights: weights, offsetShift: offsetShift, word(k))
            }
            #endif
            p = product(product(product(product(start, w.w0, 0), w.w1, 1), w.w2, 2), w.w3, 3)
            q = product(product(product(product(.zero, w.w4, 4), w.w5, 5), w.w6, 6), w.w7, 7)
        }
        sum.multiplyAdd(ByteDot.floats(p &+ q), d * SIMD16(repeating: x.scales[b]))
    }
}
#endif
