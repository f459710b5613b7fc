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

    /// 64 bytes `64 + m` where bit `i` of `minus` is clear and `64 − m` where it is set, `m`
    /// byte `i` of `magnitudes` (each below 64): one byte addition and one byte subtraction
    /// under the mask (``LatticeX86Kernels/offsetWeights(_:signs:)``).
    @inline(__always)
    package static func offsetBytes(_ magnitudes: SIMD16<UInt32>, minus: UInt64) -> SIMD16<UInt32> {
        let m = unsafeBitCast(magnitudes, to: __m512i.self), offset = _mm512_set1_epi8(64)
        return unsafeBitCast(_mm512_mask_sub_epi8(_mm512_add_epi8(offset, m), minus, offset, m), to: SIMD16<UInt32>.self)
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

    /// The 16 × 16 words at `source` transposed into `destination` in 64 shuffles: pairs of
    /// rows interleaved by words (`vpunpck*dq`), then by pairs of words (`vpunpck*qdq`), which
    /// leaves word 4l + c of rows 4i…4i+3 in 128-bit lane l of vector 4i + c; two rounds of
    /// `vpermt2d` then gather each word's four lanes.
    @inline(__always)
    package static func transposeWords(_ source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer) {
        @inline(__always) func row(_ i: Int) -> __m512i { source.loadUnaligned(fromByteOffset: 64 &* i, as: __m512i.self) }
        withUnsafeTemporaryAllocation(of: __m512i.self, capacity: 16) { t in
            for i in 0..<4 {
                let r0 = row(4 &* i), r1 = row(4 &* i &+ 1), r2 = row(4 &* i &+ 2), r3 = row(4 &* i &+ 3)
                let a0 = _mm512_unpacklo_epi32(r0, r1), a1 = _mm512_unpackhi_epi32(r0, r1)
                let a2 = _mm512_unpacklo_epi32(r2, r3), a3 = _mm512_unpackhi_epi32(r2, r3)
                t[4 &* i] = _mm512_unpacklo_epi64(a0, a2)
                t[4 &* i &+ 1] = _mm512_unpackhi_epi64(a0, a2)
                t[4 &* i &+ 2] = _mm512_unpacklo_epi64(a1, a3)
                t[4 &* i &+ 3] = _mm512_unpackhi_epi64(a1, a3)
            }
            // Lanes 0, 1 of x then of y; lanes 2, 3 of x then of y.
            let lowLanes = unsafeBitCast(SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23), to: __m512i.self)
            let highLanes = unsafeBitCast(SIMD16<Int32>(8, 9, 10, 11, 12, 13, 14, 15, 24, 25, 26, 27, 28, 29, 30, 31), to: __m512i.self)
            // Lanes 0, 2 of x then of y; lanes 1, 3 of x then of y.
            let evenLanes = unsafeBitCast(SIMD16<Int32>(0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27), to: __m512i.self)
            let oddLanes = unsafeBitCast(SIMD16<Int32>(4, 5, 6, 7, 12, 13, 14, 15, 20, 21, 22, 23, 28, 29, 30, 31), to: __m512i.self)
            for c in 0..<4 {
                let b0 = t[c], b1 = t[4 &+ c], b2 = t[8 &+ c], b3 = t[12 &+ c]
                let e0 = _mm512_permutex2var_epi32(b0, lowLanes, b1), e1 = _mm512_permutex2var_epi32(b0, highLanes, b1)
                let e2 = _mm512_permutex2var_epi32(b2, lowLanes, b3), e3 = _mm512_permutex2var_epi32(b2, highLanes, b3)
                @inline(__always) func store(_ v: __m512i, word j: Int) {
                    destination.storeBytes(of: v, toByteOffset: 64 &* j, as: __m512i.self)
                }
                store(_mm512_permutex2var_epi32(e0, evenLanes, e2), word: c)
                store(_mm512_permutex2var_epi32(e0, oddLanes, e2), word: 4 &+ c)
                store(_mm512_permutex2var_epi32(e1, evenLanes, e3), word: 8 &+ c)
                store(_mm512_permutex2var_epi32(e1, oddLanes, e3), word: 12 &+ c)
            }
        }
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
