// The byte dot-product primitives on SSE2, the baseline of every x86-64 CPU: what a build
// without a target CPU (a package that depends on Pocket) compiles. The results of the other
// tiers bit for bit, from 128-bit instructions: a 256-bit value is two XMM registers, a 512-bit
// one four.
//
// SSE2 has no byte product (`pmaddubsw` is SSSE3) and no byte shuffle (`pshufb`, SSSE3). Its
// integer workhorse is `pmaddwd`: signed 16-bit pairs multiplied and added into 32-bit lanes,
// exact for any operands that fit 16 bits. So a byte product widens each operand's even and odd
// bytes into 16-bit lanes first (unsigned: `pand`, `psrlw`; signed: `psllw` + `psraw`, `psraw`)
// and takes two `pmaddwd`, whose sums are the four products per 32-bit lane of `vpdpbusd`, for
// every byte value. The activations are usually one word broadcast to every lane, so their
// widening is shared by all the lanes' registers and the weights pay two instructions each.
// Products summed in 16 bits before one widening (the `times` forms, whose multiplier applies
// per 16-bit half) take `pmullw` instead. fp16 numbers are converted with integer operations and
// one multiply (the exact conversion of ``IntegerLanes/half(_:_:)``).

#if POCKET_ISA_SSE2
import _Builtin_intrinsics.intel

extension ByteDot {
    // MARK: 128-bit building blocks

    @inline(__always)
    static func xmm(_ v: SIMD4<UInt32>) -> __m128i { unsafeBitCast(v, to: __m128i.self) }

    @inline(__always)
    static func xmm(_ v: SIMD4<Int32>) -> __m128i { unsafeBitCast(v, to: __m128i.self) }

    @inline(__always)
    static func lanes(_ v: __m128i) -> SIMD4<Int32> { unsafeBitCast(v, to: SIMD4<Int32>.self) }

    /// `f` on each 128-bit half of two 256-bit values.
    @inline(__always)
    static func halfwise(_ a: SIMD8<UInt32>, _ b: SIMD8<UInt32>, _ f: (__m128i, __m128i) -> __m128i) -> SIMD8<UInt32> {
        SIMD8(lowHalf: unsafeBitCast(f(xmm(a.lowHalf), xmm(b.lowHalf)), to: SIMD4<UInt32>.self),
              highHalf: unsafeBitCast(f(xmm(a.highHalf), xmm(b.highHalf)), to: SIMD4<UInt32>.self))
    }

    /// The even and odd unsigned bytes of each 16-bit lane, each widened to 16 bits.
    @inline(__always)
    static func unsignedBytes(_ u: __m128i) -> (even: __m128i, odd: __m128i) {
        (_mm_and_si128(u, _mm_set1_epi16(0x00FF)), _mm_srli_epi16(u, 8))
    }

    /// The even and odd signed bytes of each 16-bit lane, each sign-extended to 16 bits.
    @inline(__always)
    static func signedBytes(_ s: __m128i) -> (even: __m128i, odd: __m128i) {
        (_mm_srai_epi16(_mm_slli_epi16(s, 8), 8), _mm_srai_epi16(s, 8))
    }

    /// Per 32-bit lane, the four products of the unsigned bytes of `u` with the signed bytes of
    /// `s` (`vpdpbusd` from zero): two `pmaddwd` on the even and odd bytes, exact for every byte.
    @inline(__always)
    static func products(_ u: __m128i, _ s: __m128i) -> __m128i {
        let u = unsignedBytes(u), s = signedBytes(s)
        return _mm_add_epi32(_mm_madd_epi16(u.even, s.even), _mm_madd_epi16(u.odd, s.odd))
    }

    /// 256 times ``products(_:_:)`` where every unsigned byte is below 128, with one
    /// instruction less on the unsigned side: its odd bytes stay in place (a 16-bit lane's high
    /// byte is 256 times its value, still positive), and the even signed bytes are moved up
    /// instead of sign-extended. A chain of them is shifted back once (`psrad`), exactly.
    @inline(__always)
    static func productsTimes256(small u: __m128i, _ s: __m128i) -> __m128i {
        let even = _mm_madd_epi16(_mm_and_si128(u, _mm_set1_epi16(0x00FF)), _mm_slli_epi16(s, 8))
        let odd = _mm_madd_epi16(_mm_and_si128(u, _mm_set1_epi16(0x7F00)), _mm_srai_epi16(s, 8))
        return _mm_add_epi32(even, odd)
    }

    /// ``productsTimes256(small:_:)`` on each 128-bit half of 256 bits.
    @inline(__always)
    static func productsTimes256(small u: SIMD8<UInt32>, _ s: SIMD8<UInt32>) -> (__m128i, __m128i) {
        (productsTimes256(small: xmm(u.lowHalf), xmm(s.lowHalf)), productsTimes256(small: xmm(u.highHalf), xmm(s.highHalf)))
    }

    /// `accumulator` plus the sum of two chains of ``productsTimes256(small:_:)`` (kept apart
    /// so that their adds do not wait on one another), shifted back.
    @inline(__always)
    static func addShiftedBack(_ accumulator: SIMD8<Int32>, _ a: (__m128i, __m128i), _ b: (__m128i, __m128i)) -> SIMD8<Int32> {
        accumulator &+ SIMD8(lowHalf: lanes(_mm_srai_epi32(_mm_add_epi32(a.0, b.0), 8)),
                             highHalf: lanes(_mm_srai_epi32(_mm_add_epi32(a.1, b.1), 8)))
    }

    /// Two pairs of 128-bit halves added lane by lane (`paddd`).
    @inline(__always)
    static func add(_ a: (__m128i, __m128i), _ b: (__m128i, __m128i)) -> (__m128i, __m128i) {
        (_mm_add_epi32(a.0, b.0), _mm_add_epi32(a.1, b.1))
    }

    /// Per 16-bit lane, the two products of its unsigned bytes in `u` with its signed bytes in
    /// `s` (`pmaddubsw`), exact when their sum fits 16 bits (every unsigned byte below 128).
    @inline(__always)
    static func pairProducts(_ u: __m128i, _ s: __m128i) -> __m128i {
        let u = unsignedBytes(u), s = signedBytes(s)
        return _mm_add_epi16(_mm_mullo_epi16(u.even, s.even), _mm_mullo_epi16(u.odd, s.odd))
    }

    /// Four fp16 numbers, one in the low half of each 32-bit lane (high half zero), as floats:
    /// sign and magnitude moved to a float's places and scaled by 2^112 (exact for normal and
    /// subnormal numbers alike); infinities and NaNs get the all-ones exponent.
    @inline(__always)
    static func floats(halvesInLanes h: __m128i) -> SIMD4<Float> {
        let magnitude = _mm_and_si128(h, _mm_set1_epi32(0x7FFF))
        let sign = _mm_slli_epi32(_mm_and_si128(h, _mm_set1_epi32(0x8000)), 16)
        let bits = _mm_or_si128(sign, _mm_slli_epi32(magnitude, 13))
        let scaled = _mm_mul_ps(_mm_castsi128_ps(bits), _mm_set1_ps(0x1p112))
        let special = _mm_and_si128(_mm_cmpgt_epi32(magnitude, _mm_set1_epi32(0x7BFF)), _mm_set1_epi32(0x7F80_0000))
        return _mm_or_ps(scaled, _mm_castsi128_ps(special))
    }

    /// Eight fp16 numbers as floats.
    @inline(__always)
    static func floats(halves h: __m128i) -> SIMD8<Float> {
        let zero = _mm_setzero_si128()
        return SIMD8(lowHalf: floats(halvesInLanes: _mm_unpacklo_epi16(h, zero)), highHalf: floats(halvesInLanes: _mm_unpackhi_epi16(h, zero)))
    }

    /// Byte `i` of the result is byte `index[i] & 15` of `table`, or zero where bit 7 of
    /// `index[i]` is set (`pshufb`): byte by byte through memory, SSE2 has no byte shuffle (and
    /// no byte insert or extract: as `SIMD16<UInt8>` lanes the bytes went through word shuffles,
    /// several times slower).
    @inline(__always)
    static func shuffle(_ table: __m128i, _ index: __m128i) -> __m128i {
        var result = _mm_setzero_si128()
        withUnsafeBytes(of: table) { t in
            withUnsafeBytes(of: index) { i in
                withUnsafeMutableBytes(of: &result) { r in
                    for k in 0..<16 {
                        let x = i[k]
                        r[k] = t[Int(x & 15)] & (x & 0x80 == 0 ? 0xFF : 0)
                    }
                }
            }
        }
        return result
    }

    // MARK: fp16 and integer conversions

    /// The two fp16 numbers at `pointer + offset` as floats (integer conversion, exact).
    @inline(__always)
    package static func halves(_ pointer: UnsafeRawPointer, _ offset: Int) -> SIMD2<Float> {
        halves(pointer.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// The fp16 number at `pointer + offset` as a float (integer conversion, exact).
    @inline(__always)
    package static func half(_ pointer: UnsafeRawPointer, _ offset: Int) -> Float {
        let bits = Int32(pointer.loadUnaligned(fromByteOffset: offset, as: UInt16.self))
        return floats(halvesInLanes: _mm_cvtsi32_si128(bits))[0]
    }

    /// The two fp16 numbers in `bits` (low half first) as floats (integer conversion, exact).
    @inline(__always)
    package static func halves(_ bits: UInt32) -> SIMD2<Float> {
        floats(halvesInLanes: _mm_unpacklo_epi16(_mm_cvtsi32_si128(Int32(bitPattern: bits)), _mm_setzero_si128())).lowHalf
    }

    /// Eight fp16 numbers as floats (integer conversion, exact).
    @inline(__always)
    package static func floats(halves: SIMD8<UInt16>) -> SIMD8<Float> {
        floats(halves: unsafeBitCast(halves, to: __m128i.self))
    }

    /// Sixteen fp16 numbers as floats (integer conversion, exact).
    @inline(__always)
    package static func floats(halves: SIMD16<UInt16>) -> SIMD16<Float> {
        SIMD16(lowHalf: floats(halves: halves.lowHalf), highHalf: floats(halves: halves.highHalf))
    }

    /// The lanes as floats (`cvtdq2ps`; exact below 2^24).
    @inline(__always)
    package static func floats(_ v: SIMD8<Int32>) -> SIMD8<Float> {
        SIMD8(lowHalf: _mm_cvtepi32_ps(xmm(v.lowHalf)), highHalf: _mm_cvtepi32_ps(xmm(v.highHalf)))
    }

    // MARK: Byte products

    /// `accumulator` plus, per 32-bit lane, the four products of the unsigned bytes of
    /// `unsigned` with the signed bytes of `signed` (two `pmaddwd` per 128 bits).
    @inline(__always)
    package static func dot(_ accumulator: SIMD8<Int32>, _ unsigned: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32> {
        accumulator &+ unsafeBitCast(halfwise(unsigned, signed, products), to: SIMD8<Int32>.self)
    }

    /// ``dot(_:_:_:)-(SIMD8<Int32>,_,_)`` where every unsigned byte is below 128: the same
    /// instructions here (`pmaddwd` does not saturate).
    @inline(__always)
    package static func dot(_ accumulator: SIMD8<Int32>, small unsigned: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32> {
        dot(accumulator, unsigned, signed)
    }

    /// ``dot(_:small:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    @inline(__always)
    package static func dot(_ accumulator: SIMD16<Int32>, small unsigned: SIMD16<UInt32>, _ signed: SIMD16<UInt32>) -> SIMD16<Int32> {
        dot(accumulator, unsigned, signed)
    }

    /// `accumulator` plus, per 32-bit lane, the four products of the bytes of `flipped` read as
    /// signed after flipping their top bit (Q8_0's w + 128) with the signed bytes of `signed`:
    /// both sides sign-extended, two `pmaddwd`. Exact for every byte (the other tiers' bound,
    /// no −128 in `signed`, is not needed here).
    @inline(__always)
    package static func dot(_ accumulator: SIMD8<Int32>, flipped: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32> {
        accumulator &+ unsafeBitCast(halfwise(flipped, signed) { f, s in
            let w = signedBytes(_mm_xor_si128(f, _mm_set1_epi8(-128))), x = signedBytes(s)
            return _mm_add_epi32(_mm_madd_epi16(w.even, x.even), _mm_madd_epi16(w.odd, x.odd))
        }, to: SIMD8<Int32>.self)
    }

    /// `accumulator` plus, per 32-bit lane, the two products of the signed 16-bit halves of
    /// `a` and `b` (`pmaddwd`, then an addition).
    @inline(__always)
    package static func dotHalves(_ accumulator: SIMD8<Int32>, _ a: SIMD8<UInt32>, _ b: SIMD8<UInt32>) -> SIMD8<Int32> {
        accumulator &+ unsafeBitCast(halfwise(a, b, _mm_madd_epi16), to: SIMD8<Int32>.self)
    }

    /// `accumulator` plus the products of two weight vectors (every weight below 64) with two
    /// activation vectors (``productsTimes256(small:_:)-(__m128i,_)``, shifted back once; no 16-bit sums: they would take as many
    /// multiplies).
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD16<Int32>, below64 weights: (SIMD16<UInt32>, SIMD16<UInt32>), _ signed: (SIMD16<UInt32>, SIMD16<UInt32>)
    ) -> SIMD16<Int32> {
        SIMD16(lowHalf: addShiftedBack(accumulator.lowHalf, productsTimes256(small: weights.0.lowHalf, signed.0.lowHalf),
                                       productsTimes256(small: weights.1.lowHalf, signed.1.lowHalf)),
               highHalf: addShiftedBack(accumulator.highHalf, productsTimes256(small: weights.0.highHalf, signed.0.highHalf),
                                        productsTimes256(small: weights.1.highHalf, signed.1.highHalf)))
    }

    /// `accumulator` plus the products of four weight vectors (every weight below 32) with four
    /// activation vectors.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD16<Int32>, below32 weights: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>),
        _ signed: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>)
    ) -> SIMD16<Int32> {
        SIMD16(lowHalf: dot(accumulator.lowHalf, below32: (weights.0.lowHalf, weights.1.lowHalf, weights.2.lowHalf, weights.3.lowHalf),
                            (signed.0.lowHalf, signed.1.lowHalf, signed.2.lowHalf, signed.3.lowHalf)),
               highHalf: dot(accumulator.highHalf, below32: (weights.0.highHalf, weights.1.highHalf, weights.2.highHalf, weights.3.highHalf),
                             (signed.0.highHalf, signed.1.highHalf, signed.2.highHalf, signed.3.highHalf)))
    }

    /// ``dot(_:below32:_:)-(SIMD16<Int32>,_,_)`` on 256 bits (``productsTimes256(small:_:)-(__m128i,_)``, shifted back once).
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD8<Int32>, below32 weights: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ signed: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>)
    ) -> SIMD8<Int32> {
        addShiftedBack(accumulator, add(productsTimes256(small: weights.0, signed.0), productsTimes256(small: weights.2, signed.2)),
                       add(productsTimes256(small: weights.1, signed.1), productsTimes256(small: weights.3, signed.3)))
    }

    /// Per 16-bit lane, the products of four weight vectors (every weight below 32, so each sum
    /// is at most 8·31·128 = 31744) with four activation vectors, added in 16 bits.
    @inline(__always)
    static func sum16(
        below32 weights: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ signed: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>)
    ) -> SIMD8<UInt32> {
        @inline(__always) func add16(_ a: SIMD8<UInt32>, _ b: SIMD8<UInt32>) -> SIMD8<UInt32> { halfwise(a, b, _mm_add_epi16) }
        return add16(add16(halfwise(weights.0, signed.0, pairProducts), halfwise(weights.1, signed.1, pairProducts)),
                     add16(halfwise(weights.2, signed.2, pairProducts), halfwise(weights.3, signed.3, pairProducts)))
    }

    /// `accumulator` plus, per 32-bit lane, the products of four weight vectors with four
    /// activation vectors (every weight below 32) summed per 16-bit half, each half's sum
    /// multiplied by the matching 16-bit half of `multipliers` in the `pmaddwd` that widens it.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD8<Int32>, below32 weights: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ signed: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>), times multipliers: SIMD8<UInt32>
    ) -> SIMD8<Int32> {
        dotHalves(accumulator, sum16(below32: weights, signed), multipliers)
    }

    /// The products of eight weight vectors (every weight below 16, each 16-bit sum at most
    /// 16·15·128 = 30720) with eight activation vectors, summed per 16-bit half of each lane,
    /// each half's sum multiplied by the matching 16-bit half of `multipliers`.
    @inline(__always)
    package static func dot(
        below16 first: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ firstSigned: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ second: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>),
        _ secondSigned: (SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>, SIMD8<UInt32>), times multipliers: SIMD8<UInt32>
    ) -> SIMD8<Int32> {
        let sum = halfwise(sum16(below32: first, firstSigned), sum16(below32: second, secondSigned), _mm_add_epi16)
        return dotHalves(.zero, sum, multipliers)
    }

    /// The low 16 bits of the products of the 16-bit halves of `a` and `b` (`pmullw`).
    @inline(__always)
    package static func multiplyHalves(_ a: SIMD16<UInt32>, _ b: SIMD16<UInt32>) -> SIMD16<UInt32> {
        SIMD16(lowHalf: halfwise(a.lowHalf, b.lowHalf, _mm_mullo_epi16), highHalf: halfwise(a.highHalf, b.highHalf, _mm_mullo_epi16))
    }

    // MARK: Byte shuffles and masks

    /// Byte i of the result is byte `index[i] & 15` of `table`'s 16-byte lane that holds byte
    /// i, or zero where bit 7 of `index[i]` is set (`vpshufb`'s result, byte by byte).
    @inline(__always)
    package static func shuffleBytes(_ table: SIMD8<UInt32>, _ index: SIMD8<UInt32>) -> SIMD8<UInt32> {
        halfwise(table, index, shuffle)
    }

    /// 32 bytes, byte `i` all ones where bit `i` of `bits` is set and zero elsewhere: byte
    /// `i / 8` of `bits` copied to bytes `i` by unpacking it with itself three times, then its
    /// bit `i % 8` tested.
    @inline(__always)
    package static func byteMask(_ bits: UInt32) -> SIMD8<UInt32> {
        let x = _mm_cvtsi32_si128(Int32(bitPattern: bits))
        let pairs = _mm_unpacklo_epi8(x, x)  // b0 b0 b1 b1 b2 b2 b3 b3
        let fours = _mm_unpacklo_epi16(pairs, pairs)  // b0 ×4, b1 ×4, b2 ×4, b3 ×4
        let bit = _mm_set1_epi64x(Int64(bitPattern: 0x8040_2010_0804_0201))
        @inline(__always) func test(_ v: __m128i) -> SIMD4<UInt32> {
            unsafeBitCast(_mm_cmpeq_epi8(_mm_and_si128(v, bit), bit), to: SIMD4<UInt32>.self)
        }
        return SIMD8(lowHalf: test(_mm_unpacklo_epi32(fours, fours)), highHalf: test(_mm_unpackhi_epi32(fours, fours)))
    }

    /// 64 bytes, byte `i` all ones where bit `i` of `bits` is set and zero elsewhere.
    @inline(__always)
    package static func byteMask(_ bits: UInt64) -> SIMD16<UInt32> {
        SIMD16(lowHalf: byteMask(UInt32(truncatingIfNeeded: bits)), highHalf: byteMask(UInt32(truncatingIfNeeded: bits &>> 32)))
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
