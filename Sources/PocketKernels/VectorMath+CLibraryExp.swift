// The C library's expf, sixteen lanes at a time, for the attention softmax.
//
// llama.cpp's attention calls the C library's `expf` once per score, and its outputs are
// Pocket's reference, so the softmax must round as that function does. On the AVX-512 build
// `cLibraryExp` computes glibc's single-precision exponential (glibc 2.27 and later, the
// variant its loader picks on CPUs with FMA) with the same operations in the same order, in
// double-precision lanes: x·32/ln 2 is split into an integer k and a remainder r, e^x is
// 2^(k/32) from a 32-entry table scaled by 2^⌊k/32⌋, times a cubic in r, rounded once to single
// precision. The same range checks give 0, ∞, the smallest subnormal and NaN where it does.
// Elsewhere the lanes are the C library's `expf`, one call each.

import Foundation

extension VectorMath {
    /// e^x for each lane, bit for bit the C library's `expf` (see the top of this file).
    @inline(__always)
    public static func cLibraryExp(_ x: SIMD16<Float>) -> SIMD16<Float> {
        #if POCKET_256BIT_VECTORS
        CLibraryExp.exp(x)
        #else
        var y = SIMD16<Float>()
        for i in 0..<16 { y[i] = expf(x[i]) }
        return y
        #endif
    }

    /// Replaces `count` floats at `x` with their exponentials (``cLibraryExp(_:)``); the
    /// buffer must hold `count` rounded up to a multiple of 16 (the extra lanes are
    /// overwritten too).
    @inline(__always)
    public static func cLibraryExp(inPlace x: UnsafeMutablePointer<Float>, count: Int) {
        let raw = UnsafeMutableRawPointer(x)
        var i = 0
        while i < count {
            raw.storeBytes(of: cLibraryExp(raw.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)),
                           toByteOffset: 4 * i, as: SIMD16<Float>.self)
            i += 16
        }
    }
}

#if POCKET_256BIT_VECTORS
import _Builtin_intrinsics.intel

/// glibc's `expf` algorithm in double lanes, 8 (AVX-512) or 4 (AVX2) at a time (its constants
/// are facts of that library).
enum CLibraryExp {
    /// 32/ln 2, the shifter that rounds to an integer in the low mantissa bits, and the
    /// cubic's coefficients (for 2^(r/32)).
    static let invLn2N = 0x1.71547652b82fep+5, shift = 0x1.8p+52
    static let c0 = 0x1.c6af84b912394p-20, c1 = 0x1.ebfce50fac4f3p-13, c2 = 0x1.62e42ff0c52d6p-6

    /// 2^(i/32) for i in 0..<32 (rounded to double), as bit patterns less i·2^47, so that
    /// adding k·2^47 (k ≡ i mod 32) also puts ⌊k/32⌋ into the exponent.
    typealias Table = (SIMD8<UInt64>, SIMD8<UInt64>, SIMD8<UInt64>, SIMD8<UInt64>)
    @inline(__always) static var table: Table {(
        SIMD8(0x3ff0000000000000, 0x3fefd9b0d3158574, 0x3fefb5586cf9890f, 0x3fef9301d0125b51,
              0x3fef72b83c7d517b, 0x3fef54873168b9aa, 0x3fef387a6e756238, 0x3fef1e9df51fdee1),
        SIMD8(0x3fef06fe0a31b715, 0x3feef1a7373aa9cb, 0x3feedea64c123422, 0x3feece086061892d,
              0x3feebfdad5362a27, 0x3feeb42b569d4f82, 0x3feeab07dd485429, 0x3feea47eb03a5585),
        SIMD8(0x3feea09e667f3bcd, 0x3fee9f75e8ec5f74, 0x3feea11473eb0187, 0x3feea589994cce13,
              0x3feeace5422aa0db, 0x3feeb737b0cdc5e5, 0x3feec49182a3f090, 0x3feed503b23e255d),
        SIMD8(0x3feee89f995ad3ad, 0x3feeff76f2fb5e47, 0x3fef199bdd85529c, 0x3fef3720dcef9069,
              0x3fef5818dcfba487, 0x3fef7c97337b9b5f, 0x3fefa4afa2a490da, 0x3fefd0765b6e4540)
    )}

    /// e^x for sixteen lanes.
    @inline(__always)
    static func exp(_ x: SIMD16<Float>) -> SIMD16<Float> {
        #if POCKET_512BIT_VECTORS
        let table = table
        var y = SIMD16(lowHalf: exp(x.lowHalf, table), highHalf: exp(x.highHalf, table))
        #else
        let entries = tableEntries
        var y = SIMD16(
            lowHalf: SIMD8(lowHalf: exp(x.lowHalf.lowHalf, entries), highHalf: exp(x.lowHalf.highHalf, entries)),
            highHalf: SIMD8(lowHalf: exp(x.highHalf.lowHalf, entries), highHalf: exp(x.highHalf.highHalf, entries)))
        #endif
        // |x| ≥ 88 and NaN: the library's special cases, in its order.
        y.replace(with: 0x1p-149, where: x .< -0x1.9d1d9ep6)
        y.replace(with: 0, where: x .< -0x1.9fe368p6)
        y.replace(with: .infinity, where: x .> 0x1.62e42ep6)
        y.replace(with: x + x, where: x .!= x)
        return y
    }

    #if POCKET_512BIT_VECTORS
    /// The general path for eight lanes, in double precision.
    @inline(__always)
    static func exp(_ x: SIMD8<Float>, _ table: Table) -> SIMD8<Float> {
        @inline(__always) func splat(_ v: Double) -> __m512d { _mm512_set1_pd(v) }
        let xd = _mm512_cvtps_pd(unsafeBitCast(x, to: __m256.self))
        // kd = round(x·32/ln 2) through the shifter; its bits hold k in the low mantissa.
        var kd = _mm512_fmadd_pd(splat(invLn2N), xd, splat(shift))
        let ki = unsafeBitCast(kd, to: SIMD8<UInt64>.self)
        kd = _mm512_sub_pd(kd, splat(shift))
        let r = _mm512_fmsub_pd(splat(invLn2N), xd, kd)
        // 2^(k/32): the table entry of k mod 32 (two 16-entry permutes and a blend on bit 4),
        // plus k·2^47.
        let index = unsafeBitCast(ki, to: __m512i.self)
        let lower = _mm512_permutex2var_epi64(unsafeBitCast(table.0, to: __m512i.self), index, unsafeBitCast(table.1, to: __m512i.self))
        let upper = _mm512_permutex2var_epi64(unsafeBitCast(table.2, to: __m512i.self), index, unsafeBitCast(table.3, to: __m512i.self))
        let entry = _mm512_mask_blend_epi64(_mm512_test_epi64_mask(index, _mm512_set1_epi64(16)), lower, upper)
        let s = unsafeBitCast(unsafeBitCast(entry, to: SIMD8<UInt64>.self) &+ (ki &<< 47), to: __m512d.self)
        // The cubic: (c0·r + c1)·r² + (c2·r + 1), then the scale, then one rounding to float.
        let z = _mm512_fmadd_pd(splat(c0), r, splat(c1))
        let r2 = _mm512_mul_pd(r, r)
        var p = _mm512_fmadd_pd(r, splat(c2), splat(1))
        p = _mm512_fmadd_pd(z, r2, p)
        return unsafeBitCast(_mm512_cvtpd_ps(_mm512_mul_pd(p, s)), to: SIMD8<Float>.self)
    }
    #else
    /// ``table`` in memory, for lookups one lane at a time (written once, then only read).
    nonisolated(unsafe) static let tableEntries: UnsafePointer<UInt64> = {
        let entries = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 64)
        let table = CLibraryExp.table
        entries.storeBytes(of: table.0, as: SIMD8<UInt64>.self)
        entries.storeBytes(of: table.1, toByteOffset: 64, as: SIMD8<UInt64>.self)
        entries.storeBytes(of: table.2, toByteOffset: 128, as: SIMD8<UInt64>.self)
        entries.storeBytes(of: table.3, toByteOffset: 192, as: SIMD8<UInt64>.self)
        return UnsafePointer(entries.assumingMemoryBound(to: UInt64.self))
    }()

    /// The general path for four lanes, in double precision: the eight-lane path's steps.
    @inline(__always)
    static func exp(_ x: SIMD4<Float>, _ entries: UnsafePointer<UInt64>) -> SIMD4<Float> {
        @inline(__always) func splat(_ v: Double) -> __m256d { _mm256_set1_pd(v) }
        let xd = _mm256_cvtps_pd(unsafeBitCast(x, to: __m128.self))
        var kd = _mm256_fmadd_pd(splat(invLn2N), xd, splat(shift))
        let ki = unsafeBitCast(kd, to: SIMD4<UInt64>.self)
        kd = _mm256_sub_pd(kd, splat(shift))
        let r = _mm256_fmsub_pd(splat(invLn2N), xd, kd)
        @inline(__always) func entry(_ lane: Int) -> UInt64 { entries[Int(truncatingIfNeeded: ki[lane] & 31)] }
        let s = unsafeBitCast(SIMD4(entry(0), entry(1), entry(2), entry(3)) &+ (ki &<< 47), to: __m256d.self)
        let z = _mm256_fmadd_pd(splat(c0), r, splat(c1))
        let r2 = _mm256_mul_pd(r, r)
        var p = _mm256_fmadd_pd(r, splat(c2), splat(1))
        p = _mm256_fmadd_pd(z, r2, p)
        return unsafeBitCast(_mm256_cvtpd_ps(_mm256_mul_pd(p, s)), to: SIMD4<Float>.self)
    }
    #endif
}
#endif
