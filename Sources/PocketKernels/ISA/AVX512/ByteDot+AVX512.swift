// The byte dot-product primitives on AVX-512 VNNI, on Swift SIMD values.
//
// `vpdpbusd` multiplies 4 unsigned bytes of one operand with the 4 signed bytes at the same
// place in the other and adds the four products to a 32-bit lane: 64 multiply-adds per 512-bit
// instruction, where the portable kernels spend two 32-bit multiplies on 16 (see
// docs/kernels.md). The toolchain's Clang module `_Builtin_intrinsics.intel` exposes it; its
// vector types have the bits of Swift's SIMD types. Compiled only in the avx512 tier
// (`POCKET_ISA_AVX512_VNNI`); `AVX2/` and `SSE2/` implement the same interface
// (``ByteDotInstructions``) for CPUs with AVX2 only and for baseline x86-64.

#if POCKET_ISA_AVX512_VNNI
import _Builtin_intrinsics.intel

extension ByteDot {

    /// `accumulator` plus, per 32-bit lane, the four products of the unsigned bytes of
    /// `unsigned` with the signed bytes of `signed` in that lane (`vpdpbusd`, 256 bits).
    @inline(__always)
    package static func dot(_ accumulator: SIMD8<Int32>, _ unsigned: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32> {
        // The masked form with every lane selected: the unmasked 256-bit intrinsic is a C macro
        // Swift cannot import, and `_mm256_dpbusd_avx_epi32` is the VEX encoding of AVX-VNNI,
        // which AVX-512 CPUs such as Zen 4/5 do not all have.
        unsafeBitCast(
            _mm256_mask_dpbusd_epi32(
                unsafeBitCast(accumulator, to: __m256i.self), 0xFF, unsafeBitCast(unsigned, to: __m256i.self),
                unsafeBitCast(signed, to: __m256i.self)),
            to: SIMD8<Int32>.self)
    }

    /// `accumulator` plus, per 32-bit lane, the two products of the signed 16-bit halves of
    /// `a` and `b` (`vpdpwssd`).
    @inline(__always)
    package static func dotHalves(_ accumulator: SIMD16<Int32>, _ a: SIMD16<UInt32>, _ b: SIMD16<UInt32>) -> SIMD16<Int32> {
        unsafeBitCast(
            _mm512_dpwssd_epi32(
                unsafeBitCast(accumulator, to: __m512i.self), unsafeBitCast(a, to: __m512i.self),
                unsafeBitCast(b, to: __m512i.self)),
            to: SIMD16<Int32>.self)
    }

    /// ``dot(_:_:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    @inline(__always)
    package static func dot(_ accumulator: SIMD16<Int32>, _ unsigned: SIMD16<UInt32>, _ signed: SIMD16<UInt32>) -> SIMD16<Int32> {
        unsafeBitCast(
            _mm512_dpbusd_epi32(
                unsafeBitCast(accumulator, to: __m512i.self), unsafeBitCast(unsigned, to: __m512i.self),
                unsafeBitCast(signed, to: __m512i.self)),
            to: SIMD16<Int32>.self)
    }

    /// 64 bytes, byte `i` all ones where bit `i` of `bits` is set and zero elsewhere.
    @inline(__always)
    package static func byteMask(_ bits: UInt64) -> SIMD16<UInt32> {
        unsafeBitCast(_mm512_movm_epi8(bits), to: SIMD16<UInt32>.self)
    }

    /// Lanes 0…7 `pair[0]`, lanes 8…15 `pair[1]` (`vpermps`): one scale per 32-value block
    /// for a product that covers two blocks.
    @inline(__always)
    package static func spread(_ pair: SIMD2<Float>) -> SIMD16<Float> {
        let wide = SIMD4(lowHalf: pair, highHalf: pair)
        let index = SIMD16<Int32>(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)
        return _mm512_permutexvar_ps(unsafeBitCast(index, to: __m512i.self), _mm512_castps128_ps512(wide))
    }

    /// The two fp16 numbers in `bits` (low half first) as floats over lanes 0…7 and 8…15: the
    /// 16-bit values are spread (`vpermw`) before the conversion (`vcvtph2ps`), where
    /// ``spread(_:)`` permutes floats. Multiplied by a ``spread(_:)`` of other scales, the
    /// permutations cannot be merged into one per product.
    @inline(__always)
    package static func spreadHalves(_ bits: UInt32) -> SIMD16<Float> {
        let index = SIMD16<Int16>(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1)
        let halves = _mm256_permutexvar_epi16(unsafeBitCast(index, to: __m256i.self), _mm256_castsi128_si256(_mm_cvtsi32_si128(Int32(bitPattern: bits))))
        return _mm512_cvtph_ps(halves)
    }

    /// Sixteen fp16 numbers as floats (`vcvtph2ps`, exact).
    @inline(__always)
    package static func floats(halves: SIMD16<UInt16>) -> SIMD16<Float> {
        _mm512_cvtph_ps(unsafeBitCast(halves, to: __m256i.self))
    }

    /// The low 16 bits of the products of the 16-bit halves of `a` and `b` (`vpmullw`).
    @inline(__always)
    package static func multiplyHalves(_ a: SIMD16<UInt32>, _ b: SIMD16<UInt32>) -> SIMD16<UInt32> {
        unsafeBitCast(_mm512_mullo_epi16(unsafeBitCast(a, to: __m512i.self), unsafeBitCast(b, to: __m512i.self)), to: SIMD16<UInt32>.self)
    }

    /// Byte i of the result is byte `index[i] & 15` of `table`'s 16-byte lane that holds byte
    /// i, or zero where bit 7 of `index[i]` is set (`vpshufb`).
    @inline(__always)
    package static func shuffleBytes(_ table: SIMD16<UInt32>, _ index: SIMD16<UInt32>) -> SIMD16<UInt32> {
        unsafeBitCast(_mm512_shuffle_epi8(unsafeBitCast(table, to: __m512i.self), unsafeBitCast(index, to: __m512i.self)), to: SIMD16<UInt32>.self)
    }

    /// The lanes as floats (`vcvtdq2ps`; exact below 2^24).
    @inline(__always)
    package static func floats(_ v: SIMD16<Int32>) -> SIMD16<Float> {
        _mm512_cvtepi32_ps(unsafeBitCast(v, to: __m512i.self))
    }

    /// 32 bytes, byte `i` all ones where bit `i` of `bits` is set and zero elsewhere
    /// (`vpmovm2b`).
    @inline(__always)
    package static func byteMask(_ bits: UInt32) -> SIMD8<UInt32> {
        unsafeBitCast(_mm256_movm_epi8(bits), to: SIMD8<UInt32>.self)
    }


    /// ``dot(_:_:_:)-(SIMD8<Int32>,_,_)`` where every unsigned byte is below 128: the same
    /// instruction here; on AVX2 (`AVX2/ByteDot+AVX2.swift`) half the work of the general product.
    @inline(__always)
    package static func dot(_ accumulator: SIMD8<Int32>, small unsigned: SIMD8<UInt32>, _ signed: SIMD8<UInt32>) -> SIMD8<Int32> {
        dot(accumulator, unsigned, signed)
    }

    /// ``dot(_:small:_:)-(SIMD8<Int32>,_,_)`` on 512 bits.
    @inline(__always)
    package static func dot(_ accumulator: SIMD16<Int32>, small unsigned: SIMD16<UInt32>, _ signed: SIMD16<UInt32>) -> SIMD16<Int32> {
        dot(accumulator, unsigned, signed)
    }

    /// `accumulator` plus the products of two weight vectors (every weight below 64) with two
    /// activation vectors: two `vpdpbusd` here; on AVX2 one widening for both.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD16<Int32>, below64 weights: (SIMD16<UInt32>, SIMD16<UInt32>), _ signed: (SIMD16<UInt32>, SIMD16<UInt32>)
    ) -> SIMD16<Int32> {
        dot(dot(accumulator, weights.0, signed.0), weights.1, signed.1)
    }

    /// `accumulator` plus the products of four weight vectors (every weight below 32) with four
    /// activation vectors: four `vpdpbusd` here; on AVX2 one widening for all four.
    @inline(__always)
    package static func dot(
        _ accumulator: SIMD16<Int32>, below32 weights: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>),
        _ signed: (SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>, SIMD16<UInt32>)
    ) -> SIMD16<Int32> {
        dot(dot(dot(dot(accumulator, weights.0, signed.0), weights.1, signed.1), weights.2, signed.2), weights.3, signed.3)
    }
}
#endif
