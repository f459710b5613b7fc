// The byte dot-product primitives on AVX2, for x86-64 CPUs without AVX-512 (Zen 1–3, Haswell
// to Alder Lake): the results of `AVX512/ByteDot+AVX512.swift` bit for bit, from 256-bit
// instructions. A 512-bit value is two 256-bit halves; lane layouts match AVX-512's, whose byte
// shuffles also work within 128-bit lanes.
//
// AVX2 has no `vpdpbusd`. `vpmaddubsw` multiplies unsigned by signed bytes and adds each pair
// into a *saturating* 16-bit lane; `vpmaddwd` by ones then adds 16-bit pairs into 32-bit lanes.
// The pair sum saturates only when an unsigned byte is 128 or more (255·128·2 > 32767), so:
// - ``dot(_:small:_:)-(SIMD8<Int32>,_,_)`` (unsigned bytes below 128: nibbles, 2–6 bit weights)
//   is the two instructions;
// - ``dot(_:_:_:)-(SIMD8<Int32>,_,_)`` (any bytes: Q8_0's flipped weights, Q4_K's masked high
//   nibbles) splits the unsigned operand into its even and odd bytes first, so each 16-bit lane
//   holds one product (|255·128| < 32768), at twice the cost.

#if POCKET_ISA_AVX2
import _Builtin_intrinsics.intel

extension ByteDot {
    @inline(__always)
    static func m256(_ v: SIMD8<UInt32>) -> __m256i { unsafeBitCast(v, to: __m256i.self) }

    @inline(__always)
    static func m256(_ v: SIMD8<Int32>) -> __m256i { unsafeBitCast(v, to: __m256i.self) }

    /// `vpmaddwd` by ones: each 32-bit lane the sum of its two signed 16-bit halves.
    @inline(__always)
    static func widenPairs(_ v: __m256i) -> SIMD8<Int32> {
        unsafeBitCast(_mm256_madd_epi16(v, _mm256_set1_epi16(1)), to: SIMD8<Int32>.self)
    }

    /// `accumulator` plus, per 32-bit lane, the four products of the unsigned bytes of
    /// `unsigned` with the signed bytes of `signed` in that lane (`vpdpbusd`'s result, exact for
    /// every byte value).
    @inline(__always)
    package static func dot(_ accumulator: SIMD8<Int32>, _ unsigned: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32> {
        let even = _mm256_maddubs_epi16(m256(unsigned & 0x00FF_00FF), m256(signed))
        let odd = _mm256_maddubs_epi16(m256(unsigned & 0xFF00_FF00), m256(signed))
        return accumulator &+ widenPairs(even) &+ widenPairs(odd)
    }

    /// ``dot(_:_:_:)-(SIMD8<Int32>,_,_)`` where every unsigned byte is below 128 (so no pair of
    /// products saturates 16 bits): `vpmaddubsw` and `vpmaddwd`.
    @inline(__always)
    package static func dot(_ accumulator: SIMD8<Int32>, small unsigned: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32> {
        accumulator &+ widenPairs(_mm256_maddubs_epi16(m256(unsigned), m256(signed)))
    }

    /// `accumulator` plus, per 32-bit lane, the four products of the bytes of `flipped`,
    /// read as signed after flipping their top bit (Q8_0's weights w, stored as w + 128), with
    /// the signed bytes of `signed`: |w| times x with w's sign (`vpsignb`), one `vpmaddubsw`.
    /// Exact when no byte of `signed` is −128 (activations are within ±127,
    /// ``Q8Activations``): a pair of products is then at most 2·128·127 = 32512.
    @inline(__always)
    package static func dot(_ accumulator: SIMD8<Int32>, flipped: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32> {
        let w = _mm256_xor_si256(m256(flipped), _mm256_set1_epi8(-128))
        let x = _mm256_sign_epi8(m256(signed), w)
        return accumulator &+ widenPairs(_mm256_maddubs_epi16(_mm256_sign_epi8(w, w), x))
    }

    /// ``dot(_:small:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    @inline(__always)
    package static func dot(_ accumulator: SIMD16<Int32>, small unsigned: SIMD16<UInt32>, _ signed: SIMD16<UInt32>) -> SIMD16<Int32> {
        SIMD16(lowHalf: dot(accumulator.lowHalf, small: unsigned.lowHalf, signed.lowHalf),
               highHalf: dot(accumulator.highHalf, small: unsigned.highHalf, signed.highHalf))
    }

    /// `accumulator` plus, per 32-bit lane, the two products of the signed 16-bit halves of
    /// `a` and `b` (`vpmaddwd`, then an addition: `vpdpwssd`'s result).
    @inline(__always)
    package static func dotHalves(_ accumulator: SIMD8<Int32>, _ a: SIMD8<UInt32>, _ b: SIMD8<UInt32>) -> SIMD8<Int32> {
        accumulator &+ unsafeBitCast(_mm256_madd_epi16(m256(a), m256(b)), to: SIMD8<Int32>.self)
    }

    /// The four `vpmaddubsw` products of four weight vectors (every weight below 32) with four
    /// activation vectors, added in 16 bits (each sum at most 8·31·128 = 31744).
    @inline(__always)
    static func sum16(
        below32 weights: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ signed: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>)
    ) -> __m256i {
        let a = _mm256_add_epi16(_mm256_maddubs_epi16(m256(weights.0), m256(signed.0)), _mm256_maddubs_epi16(m256(weights.1), m256(signed.1)))
        let b = _mm256_add_epi16(_mm256_maddubs_epi16(m256(weights.2), m256(signed.2)), _mm256_maddubs_epi16(m256(weights.3), m256(signed.3)))
        return _mm256_add_epi16(a, b)
    }

    /// ``dot(_:below32:_:)-(SIMD16<Int32>,_,_)`` on 256 bits.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD8<Int32>, below32 weights: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ signed: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>)
    ) -> SIMD8<Int32> {
        accumulator &+ widenPairs(sum16(below32: weights, signed))
    }

    /// `accumulator` plus, per 32-bit lane, the products of four weight vectors with four
    /// activation vectors (every weight below 32), summed in 16 bits as in
    /// ``dot(_:below32:_:)-(SIMD8<Int32>,_,_)``, each 16-bit sum then multiplied by the
    /// matching 16-bit half of `multipliers` in the one `vpmaddwd` that widens it: a
    /// sub-block's scale costs no instruction of its own.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD8<Int32>, below32 weights: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ signed: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>), times multipliers: SIMD8<UInt32>
    ) -> SIMD8<Int32> {
        accumulator &+ unsafeBitCast(_mm256_madd_epi16(sum16(below32: weights, signed), m256(multipliers)), to: SIMD8<Int32>.self)
    }

    /// The products of eight weight vectors (every weight below 16) with eight activation
    /// vectors (`first`, then `second`), summed in 16 bits (each sum at most 16·15·128 = 30720),
    /// each 16-bit sum then multiplied by the matching 16-bit half of `multipliers` in the one
    /// `vpmaddwd` that widens it.
    @inline(__always)
    package static func dot(
        below16 first: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ firstSigned: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ second: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ secondSigned: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>), times multipliers: SIMD8<UInt32>
    ) -> SIMD8<Int32> {
        let sum = _mm256_add_epi16(sum16(below32: first, firstSigned), sum16(below32: second, secondSigned))
        return unsafeBitCast(_mm256_madd_epi16(sum, m256(multipliers)), to: SIMD8<Int32>.self)
    }

    /// ``shuffleBytes(_:_:)-(SIMD16<UInt32>,_)`` on 256 bits.
    @inline(__always)
    package static func shuffleBytes(_ table: SIMD8<UInt32>, _ index: SIMD8<UInt32>) -> SIMD8<UInt32> {
        unsafeBitCast(_mm256_shuffle_epi8(m256(table), m256(index)), to: SIMD8<UInt32>.self)
    }

    /// Eight fp16 numbers as floats (`vcvtph2ps`, exact).
    @inline(__always)
    package static func floats(halves: SIMD8<UInt16>) -> SIMD8<Float> {
        _mm256_cvtph_ps(unsafeBitCast(halves, to: __m128i.self))
    }

    /// The lanes as floats (`vcvtdq2ps`; exact below 2^24).
    @inline(__always)
    package static func floats(_ v: SIMD8<Int32>) -> SIMD8<Float> {
        _mm256_cvtepi32_ps(m256(v))
    }

    /// 32 bytes, byte `i` all ones where bit `i` of `bits` is set and zero elsewhere: byte
    /// `i / 8` of `bits` copied to byte `i` (`vpshufb`), then its bit `i % 8` tested.
    @inline(__always)
    package static func byteMask(_ bits: UInt32) -> SIMD8<UInt32> {
        // Within each 128-bit lane vpshufb reads that lane only: lane 0 picks bytes 0 and 1 of
        // the broadcast word, lane 1 bytes 2 and 3.
        let picks = SIMD8<UInt32>(0x0000_0000, 0x0000_0000, 0x0101_0101, 0x0101_0101,
                                  0x0202_0202, 0x0202_0202, 0x0303_0303, 0x0303_0303)
        let bit = SIMD8<UInt32>(0x0804_0201, 0x8040_2010, 0x0804_0201, 0x8040_2010,
                                0x0804_0201, 0x8040_2010, 0x0804_0201, 0x8040_2010)
        let spread = _mm256_shuffle_epi8(_mm256_set1_epi32(Int32(bitPattern: bits)), m256(picks))
        return unsafeBitCast(_mm256_cmpeq_epi8(_mm256_and_si256(spread, m256(bit)), m256(bit)), to: SIMD8<UInt32>.self)
    }

    /// 64 bytes, byte `i` all ones where bit `i` of `bits` is set and zero elsewhere.
    @inline(__always)
    package static func byteMask(_ bits: UInt64) -> SIMD16<UInt32> {
        SIMD16(lowHalf: byteMask(UInt32(truncatingIfNeeded: bits)), highHalf: byteMask(UInt32(truncatingIfNeeded: bits &>> 32)))
    }

    /// Sixteen fp16 numbers as floats (`vcvtph2ps` per half, exact).
    @inline(__always)
    package static func floats(halves: SIMD16<UInt16>) -> SIMD16<Float> {
        SIMD16(lowHalf: _mm256_cvtph_ps(unsafeBitCast(halves.lowHalf, to: __m128i.self)),
               highHalf: _mm256_cvtph_ps(unsafeBitCast(halves.highHalf, to: __m128i.self)))
    }

    /// The low 16 bits of the products of the 16-bit halves of `a` and `b` (`vpmullw`).
    @inline(__always)
    package static func multiplyHalves(_ a: SIMD16<UInt32>, _ b: SIMD16<UInt32>) -> SIMD16<UInt32> {
        @inline(__always) func half(_ a: SIMD8<UInt32>, _ b: SIMD8<UInt32>) -> SIMD8<UInt32> {
            unsafeBitCast(_mm256_mullo_epi16(m256(a), m256(b)), to: SIMD8<UInt32>.self)
        }
        return SIMD16(lowHalf: half(a.lowHalf, b.lowHalf), highHalf: half(a.highHalf, b.highHalf))
    }

    /// `accumulator` plus the products of two weight vectors with two activation vectors,
    /// where every weight is below 64: the two `vpmaddubsw` results are added in 16 bits (each
    /// sum at most 4·63·128 = 32256) before one `vpmaddwd`.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD16<Int32>, below64 weights: (SIMD16<UInt32>, SIMD16<UInt32>), _ signed: (SIMD16<UInt32>, SIMD16<UInt32>)
    ) -> SIMD16<Int32> {
        @inline(__always) func half(_ w0: SIMD8<UInt32>, _ s0: SIMD8<UInt32>, _ w1: SIMD8<UInt32>, _ s1: SIMD8<UInt32>) -> SIMD8<Int32> {
            widenPairs(_mm256_add_epi16(_mm256_maddubs_epi16(m256(w0), m256(s0)), _mm256_maddubs_epi16(m256(w1), m256(s1))))
        }
        return accumulator &+ SIMD16(
            lowHalf: half(weights.0.lowHalf, signed.0.lowHalf, weights.1.lowHalf, signed.1.lowHalf),
            highHalf: half(weights.0.highHalf, signed.0.highHalf, weights.1.highHalf, signed.1.highHalf))
    }

    /// `accumulator` plus the products of four weight vectors with four activation vectors,
    /// where every weight is below 32: the four `vpmaddubsw` results are added in 16 bits (each
    /// sum at most 8·31·128 = 31744) before one `vpmaddwd`.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD16<Int32>, below32 weights: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>),
        _ signed: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>)
    ) -> SIMD16<Int32> {
        accumulator &+ SIMD16(
            lowHalf: widenPairs(sum16(below32: (weights.0.lowHalf, weights.1.lowHalf, weights.2.lowHalf, weights.3.lowHalf),
                                      (signed.0.lowHalf, signed.1.lowHalf, signed.2.lowHalf, signed.3.lowHalf))),
            highHalf: widenPairs(sum16(below32: (weights.0.highHalf, weights.1.highHalf, weights.2.highHalf, weights.3.highHalf),
                                       (signed.0.highHalf, signed.1.highHalf, signed.2.highHalf, signed.3.highHalf))))
    }
}
extension ByteDot {
    /// The 16 × 16 words transposed one word at a time (see ``ByteDotInstructions/transposeWords(_:into:)``).
    @inline(__always)
    package static func transposeWords(_ source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer) {
        transposeWordsOneByOne(source, into: destination)
    }
}
#endif
