// The interface of the byte dot-product primitives, declared once: every member of ``ByteDot``
// the `X86` kernels call. Each tier (`AVX512/`, `AVX2/`, `SSE2/`) implements it, and the
// conformances below make the compiler check whichever tier is compiled against it. The kernels
// call `ByteDot` directly (the protocol is never a type of a value), so it costs nothing.
//
// Unless stated otherwise, a byte product is exact for every byte value, and all tiers give the
// same bits: the tests hold each one to a scalar definition.

#if POCKET_X86_KERNELS
/// The primitives every x86 tier provides: the ones the kernels with whole 512-bit row groups,
/// and all single-row kernels, are written in.
package protocol ByteDotInstructions {
    /// The two fp16 numbers at `pointer + offset` (e.g. a block's scale and minimum) as
    /// floats, exactly (as ``IntegerLanes/half(_:_:)``).
    static func halves(_ pointer: UnsafeRawPointer, _ offset: Int) -> SIMD2<Float>

    /// The fp16 number at `pointer + offset` as a float, exactly.
    static func half(_ pointer: UnsafeRawPointer, _ offset: Int) -> Float

    /// The two fp16 numbers in `bits` (low half first) as floats, exactly.
    static func halves(_ bits: UInt32) -> SIMD2<Float>

    /// Sixteen fp16 numbers as floats, exactly.
    static func floats(halves: SIMD16<UInt16>) -> SIMD16<Float>

    /// The lanes as floats (exact below 2^24).
    static func floats(_ v: SIMD16<Int32>) -> SIMD16<Float>

    /// The sum of the lanes, halving the vector each step.
    static func sum(_ v: SIMD16<Float>) -> Float

    /// `accumulator` plus, per 32-bit lane, the four products of the unsigned bytes of
    /// `unsigned` with the signed bytes of `signed` in that lane (`vpdpbusd`'s result).
    static func dot(_ accumulator: SIMD8<Int32>, _ unsigned: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32>

    /// ``dot(_:_:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    static func dot(_ accumulator: SIMD16<Int32>, _ unsigned: SIMD16<UInt32>, _ signed: SIMD16<UInt32>) -> SIMD16<Int32>

    /// ``dot(_:_:_:)-(SIMD8<Int32>,_,_)`` where every unsigned byte is below 128 (cheaper on
    /// tiers whose byte product saturates 16-bit pairs).
    static func dot(_ accumulator: SIMD8<Int32>, small unsigned: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32>

    /// ``dot(_:small:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    static func dot(_ accumulator: SIMD16<Int32>, small unsigned: SIMD16<UInt32>, _ signed: SIMD16<UInt32>) -> SIMD16<Int32>

    /// ``dot(_:_:_:)-(SIMD16<Int32>,_,_)`` for weights stored as the signed ones plus
    /// `2^offsetShift` (a constant of the calling kernel): the small product below 128.
    static func dot(
        _ accumulator: SIMD16<Int32>, offsetWeights weights: SIMD16<UInt32>, offsetShift: Int32, _ signed: SIMD16<UInt32>
    ) -> SIMD16<Int32>

    /// ``dot(_:offsetWeights:offsetShift:_:)-(SIMD16<Int32>,_,_,_)`` on 256 bits.
    static func dot(
        _ accumulator: SIMD8<Int32>, offsetWeights weights: SIMD8<UInt32>, offsetShift: Int32, _ signed: SIMD8<UInt32>
    ) -> SIMD8<Int32>

    /// `accumulator` plus the products of two weight vectors (every weight below 64) with two
    /// activation vectors.
    static func dot(
        _ accumulator: SIMD16<Int32>, below64 weights: (SIMD16<UInt32>, SIMD16<UInt32>), _ signed: (SIMD16<UInt32>, SIMD16<UInt32>)
    ) -> SIMD16<Int32>

    /// `accumulator` plus the products of four weight vectors (every weight below 32) with four
    /// activation vectors.
    static func dot(
        _ accumulator: SIMD16<Int32>, below32 weights: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>),
        _ signed: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>)
    ) -> SIMD16<Int32>

    /// `accumulator` plus, per 32-bit lane, the two products of the signed 16-bit halves of
    /// `a` and `b` (`vpdpwssd`'s result).
    static func dotHalves(_ accumulator: SIMD16<Int32>, _ a: SIMD16<UInt32>, _ b: SIMD16<UInt32>) -> SIMD16<Int32>

    /// The low 16 bits of the products of the 16-bit halves of `a` and `b` (`vpmullw`).
    static func multiplyHalves(_ a: SIMD16<UInt32>, _ b: SIMD16<UInt32>) -> SIMD16<UInt32>

    /// Byte i of the result is byte `index[i] & 15` of `table`'s 16-byte lane that holds byte
    /// i, or zero where bit 7 of `index[i]` is set (`vpshufb`).
    static func shuffleBytes(_ table: SIMD16<UInt32>, _ index: SIMD16<UInt32>) -> SIMD16<UInt32>

    /// 32 bytes, byte `i` all ones where bit `i` of `bits` is set and zero elsewhere.
    static func byteMask(_ bits: UInt32) -> SIMD8<UInt32>

    /// 64 bytes, byte `i` all ones where bit `i` of `bits` is set and zero elsewhere.
    static func byteMask(_ bits: UInt64) -> SIMD16<UInt32>

    /// Lanes 0…7 `pair[0]`, lanes 8…15 `pair[1]`: one scale per 32-value block for a product
    /// that covers two blocks.
    static func spread(_ pair: SIMD2<Float>) -> SIMD16<Float>

    /// The two fp16 numbers in `bits` (low half first) as floats over lanes 0…7 and 8…15.
    static func spreadHalves(_ bits: UInt32) -> SIMD16<Float>

    /// The 16 × 16 32-bit words at `source` (row i: the 64 bytes from 64·i) transposed into
    /// `destination`: its row j is word j of every row. The two do not overlap.
    static func transposeWords(_ source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer)
}

/// The extra primitives of the kernels that take a row group in two 256-bit halves (the tiers
/// without 512-bit vectors: `Formats/*+HalfWidth*.swift`, and the signed product of the
/// sixteen-row Q8_0 loop).
package protocol HalfWidthByteDotInstructions: ByteDotInstructions {
    /// Eight fp16 numbers as floats, exactly.
    static func floats(halves: SIMD8<UInt16>) -> SIMD8<Float>

    /// The lanes as floats (exact below 2^24).
    static func floats(_ v: SIMD8<Int32>) -> SIMD8<Float>

    /// `accumulator` plus, per 32-bit lane, the four products of the bytes of `flipped`, read
    /// as signed after flipping their top bit (Q8_0's weights w, stored as w + 128), with the
    /// signed bytes of `signed`. Exact when no byte of `signed` is −128 (activations are within
    /// ±127, ``Q8Activations``).
    static func dot(_ accumulator: SIMD8<Int32>, flipped: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32>

    /// ``dot(_:flipped:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    static func dot(_ accumulator: SIMD16<Int32>, flipped: SIMD16<UInt32>, _ signed: SIMD16<UInt32>) -> SIMD16<Int32>

    /// ``ByteDotInstructions/dotHalves(_:_:_:)-(SIMD16<Int32>,_,_)`` on 256 bits.
    static func dotHalves(_ accumulator: SIMD8<Int32>, _ a: SIMD8<UInt32>, _ b: SIMD8<UInt32>) -> SIMD8<Int32>

    /// ``ByteDotInstructions/dot(_:below32:_:)-(SIMD16<Int32>,_,_)`` on 256 bits.
    static func dot(
        _ accumulator: SIMD8<Int32>, below32 weights: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ signed: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>)
    ) -> SIMD8<Int32>

    /// `accumulator` plus, per 32-bit lane, the products of four weight vectors with four
    /// activation vectors (every weight below 32), summed per 16-bit half of the lane (bytes
    /// 0–1 and 2–3 of each product), each half's sum multiplied by the matching 16-bit half of
    /// `multipliers`: a sub-block's scale at no multiply of its own on AVX2.
    static func dot(
        _ accumulator: SIMD8<Int32>, below32 weights: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ signed: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>), times multipliers: SIMD8<UInt32>
    ) -> SIMD8<Int32>

    /// The products of eight weight vectors (every weight below 16) with eight activation
    /// vectors (`first`, then `second`), summed per 16-bit half of each lane, each half's sum
    /// multiplied by the matching 16-bit half of `multipliers`.
    static func dot(
        below16 first: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ firstSigned: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ second: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ secondSigned: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>), times multipliers: SIMD8<UInt32>
    ) -> SIMD8<Int32>

    /// ``ByteDotInstructions/shuffleBytes(_:_:)-(SIMD16<UInt32>,_)`` on 256 bits.
    static func shuffleBytes(_ table: SIMD8<UInt32>, _ index: SIMD8<UInt32>) -> SIMD8<UInt32>
}

#if POCKET_512BIT_VECTORS
extension ByteDot: ByteDotInstructions {}
#else
extension ByteDot: HalfWidthByteDotInstructions {}
#endif
#endif
