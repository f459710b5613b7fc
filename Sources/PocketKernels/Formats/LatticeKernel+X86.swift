// The loop shared by the x86 kernels of the lattice i-quants (IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS,
// IQ3_S): one 512-bit `vpdpbusd` per 64 weights (two sub-blocks of 32, two activation blocks),
// with a scale per lane (per 16 or 32 weights), as ``SignedScaleKernel``'s.
//
// Every grid magnitude g is below 64, so a signed weight ±g plus 64 is a byte in 1…127, the
// unsigned operand the instruction takes. It is formed in 32-bit lanes with no carries between
// bytes: with X = 0x3F in each byte whose sign is minus (0 elsewhere), (g ^ X) + (0x40 − X) is
// 64 + g for a plus and 63 − g + 1 = 64 − g for a minus. The 64 offset is taken off with the
// activations' per-4-byte group sums. A format says how to gather its 64 magnitudes and signs
// and its sub-block scales (odd integers 2·ls + 1) over their lanes; those times d and the
// format's power of two (1/8, 1/4, 1) are exact floats, so the integer scale costs no integer
// multiply per vector: each product is one float multiply of those scales by the activations'.
// Prefill takes tiles of four rows by four vectors (``LatticeX86Kernel/dot4x4(rows:rowBytes:_:blocks:)``).

#if POCKET_X86_KERNELS
#if POCKET_REQUIRES_BMI2 || POCKET_512BIT_VECTORS
import _Builtin_intrinsics.intel
#endif

/// An x86 kernel (``ByteDot``: AVX-512 VNNI, AVX2 or SSE2) of a lattice i-quant with 256-weight
/// super-blocks.
///
/// For the weights 64k…64k+63 of a super-block (activation blocks 8·sb + 2k and the next), lane
/// L of a product holds weights 4L…4L+3. Each lane's integer sum, corrected by the offset
/// (the product's starting value), is multiplied in floats by its integer scale times
/// d·factor (exact) times the activation block's scale.
protocol LatticeX86Kernel: SharedLoopKernel {
    /// A grid entry: a `UInt64` of 8 magnitudes or a `UInt32` of 4, one byte each.
    associatedtype Point
    /// The format's codebook (``IQGrids``).
    static var grid: [Point] { get }
    /// Bytes per super-block of the format.
    static var superBlockBytes: Int { get }
    /// Byte offset of the fp16 super-block scale d.
    static var scaleOffset: Int { get }
    /// The power of two that turns d times the integer scales into the format's scales.
    static var scaleFactor: Float { get }
    /// Weights 64k…64k+63 of the super-block as bytes 64 ± g in weight order (``LatticeX86Kernels/offsetWeights(_:signs:)``).
    static func weights(_ block: UnsafeRawPointer, _ k: Int, _ grid: UnsafePointer<Point>) -> SIMD16<UInt32>
    /// The integer scales 2·ls + 1 of weights 64k…64k+63, each over its lanes.
    static func scales(_ block: UnsafeRawPointer, _ k: Int) -> SIMD16<Int32>
    /// Weights per scale: 32 (one scale per sub-block, the default) or 16 (IQ2_XS, IQ2_S).
    static var weightsPerScale: Int { get }
    /// Where a format with 16 weights per scale keeps its sixteen 4-bit scales (8 bytes).
    static var nibbleScalesOffset: Int { get }
}

extension LatticeX86Kernel {
    @inline(__always) static var weightsPerScale: Int { 32 }
    @inline(__always) static var nibbleScalesOffset: Int { 0 }
}

/// Constants and weight helpers of ``LatticeX86Kernel``.
enum LatticeX86Kernels {
    /// The unsigned weights are the signed ones plus `2^offsetShift` = 64.
    static var offsetShift: Int32 { 6 }

    /// 2·ls + 1 of each 16 weights of 64k…64k+63 over its four lanes, from the 4-bit scales
    /// at `scales` (two bytes per 64 weights: IQ2_XS and IQ2_S lay them out alike).
    @inline(__always)
    static func nibbleScales(_ block: UnsafeRawPointer, at scales: Int, _ k: Int) -> SIMD16<Int32> {
        let nibbles = UInt32(block.loadUnaligned(fromByteOffset: scales + 2 * k, as: UInt16.self))
        // Lane L takes nibble L/4 (one scale per 16 weights). A literal here, not a stored
        // constant: a `static let` was initialized lazily, a `swift_once` call inside the
        // decode loop that spilled every vector register around it.
        let shifts = SIMD16<UInt32>(0, 0, 0, 0, 4, 4, 4, 4, 8, 8, 8, 8, 12, 12, 12, 12)
        let ls = (SIMD16(repeating: nibbles) &>> shifts) & 0xF
        return unsafeBitCast(ls &<< 1 | 1, to: SIMD16<Int32>.self)
    }

    #if POCKET_512BIT_VECTORS
    /// A super-block's sixteen scales (2·ls + 1)·d, lane i from nibble i of the 8 bytes at
    /// `scales`: ``nibbleScales(_:at:_:)`` times d for all four steps at once.
    @inline(__always)
    static func nibbleScaleVector(_ block: UnsafeRawPointer, at scales: Int, _ d: Float) -> SIMD16<Float> {
        let bytes = block.loadUnaligned(fromByteOffset: scales, as: UInt64.self)
        let words = SIMD16<UInt32>(lowHalf: SIMD8(repeating: UInt32(truncatingIfNeeded: bytes)),
                                   highHalf: SIMD8(repeating: UInt32(truncatingIfNeeded: bytes &>> 32)))
        let shifts = SIMD16<UInt32>(0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28)
        let ls = (words &>> shifts) & 0xF
        return ByteDot.floats(unsafeBitCast(ls &<< 1 | 1, to: SIMD16<Int32>.self)) * d
    }

    /// Scales 4k…4k+3 of `all`, each over four lanes (the lanes of weights 64k…64k+63).
    @inline(__always)
    static func quarter(_ all: SIMD16<Float>, _ k: Int) -> SIMD16<Float> {
        let index = SIMD16<Int32>(0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3) &+ Int32(truncatingIfNeeded: 4 &* k)
        return unsafeBitCast(_mm512_permutexvar_ps(unsafeBitCast(index, to: __m512i.self), unsafeBitCast(all, to: __m512.self)),
                             to: SIMD16<Float>.self)
    }
    #endif

    /// 64 magnitudes (each below 64, byte i for weight i) signed by bit i of `signs` and offset
    /// by 64: bytes 64 + g for a clear bit, 64 − g for a set one.
    @inline(__always)
    static func offsetWeights(_ magnitudes: SIMD16<UInt32>, signs: UInt64) -> SIMD16<UInt32> {
        #if POCKET_512BIT_VECTORS
        ByteDot.offsetBytes(magnitudes, minus: signs)
        #else
        let x = ByteDot.byteMask(signs) & 0x3F3F_3F3F
        return (magnitudes ^ x) &+ (0x4040_4040 &- x)
        #endif
    }

    /// Eight sign patterns from eight 7-bit indices, one per byte (bit 7 clear): ``IQGrids/signs``
    /// computed instead of looked up. Each pattern's eighth bit makes the number of minus signs
    /// even, so it is the parity of the other seven, folded down to bit 0 of each byte (the
    /// shifts stay within a byte for the bits that reach bit 0).
    @inline(__always)
    static func evenSigns(_ indices: UInt64) -> UInt64 {
        var parity = indices ^ indices &>> 4
        parity ^= parity &>> 2
        parity ^= parity &>> 1
        return indices | (parity & 0x0101_0101_0101_0101) &<< 7
    }

    /// The sign patterns of two sub-blocks' words (IQ2_XXS, IQ3_XXS: four 7-bit sign indices at
    /// bits 7l of each 32-bit half, the scale above them), one pattern per byte.
    @inline(__always)
    static func signs(ofWords words: UInt64) -> UInt64 {
        #if POCKET_REQUIRES_BMI2
        // The 28 index bits of each half gathered, then spread seven to a byte.
        let indices = _pdep_u64(_pext_u64(words, 0x0FFF_FFFF_0FFF_FFFF), 0x7F7F_7F7F_7F7F_7F7F)
        #else
        let indices = words & 0x0000_007F_0000_007F | words &<< 1 & 0x0000_7F00_0000_7F00
            | words &<< 2 & 0x007F_0000_007F_0000 | words &<< 3 & 0x7F00_0000_7F00_0000
        #endif
        return evenSigns(indices)
    }
}

extension LatticeX86Kernel {
    /// The loop behind ``DotKernel/dot(row:_:blocks:)`` (see ``SharedLoopKernel``).
    @inline(__always)
    static func loopDot(row: UnsafeRawPointer, _ x: Q8Vector, blocks: Int) -> Float {
        grid.withUnsafeBufferPointer { grid in
            let grid = grid.baseAddress!
            var lanes = SIMD16<Float>()
            var block = row
            for sb in 0..<(blocks / 8) {
                let d = superBlockScale(block)
                #if POCKET_512BIT_VECTORS
                if weightsPerScale == 16 {
                    // The super-block's sixteen scales converted once, a quarter spread per step.
                    let all = LatticeX86Kernels.nibbleScaleVector(block, at: nibbleScalesOffset, d)
                    for k in 0..<4 {
                        let b = 8 &* sb &+ 2 &* k
                        let w = weights(block, k, grid), s = LatticeX86Kernels.quarter(all, k)
                        lanes.multiplyAdd(products(w, start(x, b), x, b), s * spreadScales(x, b))
                    }
                    block += superBlockBytes
                    continue
                }
                #endif
                for k in 0..<4 {
                    let b = 8 * sb + 2 * k
                    let w = weights(block, k, grid), s = floatScales(block, k, d)
                    lanes.multiplyAdd(products(w, start(x, b), x, b), s * spreadScales(x, b))
                }
                block += superBlockBytes
            }
            return ByteDot.sum(lanes)
        }
    }

    /// ``DotKernel/dot4(row:_:blocks:)`` for this kernel: each 64 weights and their scales are
    /// unpacked once; every vector gets exactly the operations of ``loopDot(row:_:blocks:)``.
    @inline(__always)
    static func loopDot4(row: UnsafeRawPointer, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int) -> SIMD4<Float> {
        grid.withUnsafeBufferPointer { grid in
            let grid = grid.baseAddress!
            var l0 = SIMD16<Float>(), l1 = SIMD16<Float>(), l2 = SIMD16<Float>(), l3 = SIMD16<Float>()
            var block = row
            for sb in 0..<(blocks / 8) {
                let d = superBlockScale(block)
                for k in 0..<4 {
                    let b = 8 * sb + 2 * k
                    let w = weights(block, k, grid), s = floatScales(block, k, d)
                    l0.multiplyAdd(products(w, start(x.0, b), x.0, b), s * spreadScales(x.0, b))
                    l1.multiplyAdd(products(w, start(x.1, b), x.1, b), s * spreadScales(x.1, b))
                    l2.multiplyAdd(products(w, start(x.2, b), x.2, b), s * spreadScales(x.2, b))
                    l3.multiplyAdd(products(w, start(x.3, b), x.3, b), s * spreadScales(x.3, b))
                }
                block += superBlockBytes
            }
            return SIMD4(ByteDot.sum(l0), ByteDot.sum(l1), ByteDot.sum(l2), ByteDot.sum(l3))
        }
    }

    /// ``DotKernel/dot4x4(rows:rowBytes:_:blocks:)`` for this kernel (not inlined, like
    /// ``SharedLoopKernel/dot(row:_:blocks:)``): per 64 weights, each row is unpacked once and
    /// each vector's offset term and scales are loaded once, and the sixteen sums stay in
    /// registers. Every row and vector gets the operations of ``loopDot(row:_:blocks:)``, so the
    /// results are bit-identical to ``loopDot4(row:_:blocks:)``.
    @inline(never)
    public static func dot4x4(
        rows: UnsafeRawPointer, rowBytes: Int, _ x: (Q8Vector, Q8Vector, Q8Vector, Q8Vector), blocks: Int
    ) -> (SIMD4<Float>, SIMD4<Float>, SIMD4<Float>, SIMD4<Float>) {
        grid.withUnsafeBufferPointer { grid in
            let grid = grid.baseAddress!
            var c0 = TileColumn(), c1 = TileColumn(), c2 = TileColumn(), c3 = TileColumn()
            let row0 = rows, row1 = rows + rowBytes, row2 = rows + 2 * rowBytes, row3 = rows + 3 * rowBytes
            var offset = 0
            for sb in 0..<(blocks / 8) {
                let d0 = superBlockScale(row0 + offset), d1 = superBlockScale(row1 + offset)
                let d2 = superBlockScale(row2 + offset), d3 = superBlockScale(row3 + offset)
                for k in 0..<4 {
                    let b = 8 * sb + 2 * k
                    let w = (weights(row0 + offset, k, grid), weights(row1 + offset, k, grid),
                             weights(row2 + offset, k, grid), weights(row3 + offset, k, grid))
                    let s = (floatScales(row0 + offset, k, d0), floatScales(row1 + offset, k, d1),
                             floatScales(row2 + offset, k, d2), floatScales(row3 + offset, k, d3))
                    addQuarter(&c0, w, s, x.0, b)
                    addQuarter(&c1, w, s, x.1, b)
                    addQuarter(&c2, w, s, x.2, b)
                    addQuarter(&c3, w, s, x.3, b)
                }
                offset += superBlockBytes
            }
            return TileColumn.sums(c0, c1, c2, c3)
        }
    }

    /// Adds 64 weights of four rows (unpacked weights `w`, float scales `s`) times activation
    /// blocks b and b + 1 of one vector into that vector's sums.
    @inline(__always)
    static func addQuarter(
        _ c: inout TileColumn, _ w: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>),
        _ s: (SIMD16<Float>, SIMD16<Float>, SIMD16<Float>, SIMD16<Float>), _ x: Q8Vector, _ b: Int
    ) {
        let start = start(x, b), a = spreadScales(x, b)
        c.r0.multiplyAdd(products(w.0, start, x, b), s.0 * a)
        c.r1.multiplyAdd(products(w.1, start, x, b), s.1 * a)
        c.r2.multiplyAdd(products(w.2, start, x, b), s.2 * a)
        c.r3.multiplyAdd(products(w.3, start, x, b), s.3 * a)
    }

    /// d times the format's power of two: the float factor of every integer scale.
    @inline(__always)
    static func superBlockScale(_ block: UnsafeRawPointer) -> Float {
        ByteDot.half(block, scaleOffset) * scaleFactor
    }

    /// The integer scales of weights 64k…64k+63 times `d` (``superBlockScale(_:)``) over their
    /// lanes: exact (5 and 11 significant bits).
    @inline(__always)
    static func floatScales(_ block: UnsafeRawPointer, _ k: Int, _ d: Float) -> SIMD16<Float> {
        ByteDot.floats(scales(block, k)) * d
    }

    /// The activation scales of blocks b and b + 1 over their lanes.
    @inline(__always)
    static func spreadScales(_ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
        ByteDot.spread(UnsafeRawPointer(x.scales + b).loadUnaligned(as: SIMD2<Float>.self))
    }

    /// The offset term of activation blocks b and b + 1: −64 times each lane's group sum, the
    /// products' starting value.
    @inline(__always)
    static func start(_ x: Q8Vector, _ b: Int) -> SIMD16<Int32> {
        let sums = UnsafeRawPointer(x.groupSums + 8 * b).loadUnaligned(as: SIMD16<Int32>.self)
        return SIMD16<Int32>.zero &- sums &<< LatticeX86Kernels.offsetShift
    }

    /// Sixteen lanes of Σ(w − 64)·x over four products each, exactly (below 4·62·127 in
    /// magnitude), as floats.
    @inline(__always)
    static func products(_ weights: SIMD16<UInt32>, _ start: SIMD16<Int32>, _ x: Q8Vector, _ b: Int) -> SIMD16<Float> {
        let values = UnsafeRawPointer(x.bytes + 32 * b).loadUnaligned(as: SIMD16<UInt32>.self)
        return ByteDot.floats(ByteDot.dot(start, offsetWeights: weights, offsetShift: LatticeX86Kernels.offsetShift, values))
    }
}
#endif
