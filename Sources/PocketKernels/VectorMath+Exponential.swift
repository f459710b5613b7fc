// The vectorized e^x of SwiGLU.
//
// llama.cpp does not call the C library's expf inside SiLU: on AVX-512 CPUs it evaluates a
// fixed polynomial (after Arm's optimized-routines expf) sixteen lanes at a time. Its results
// differ from a correctly rounded expf in the last bit for a share of inputs, and the 8-bit
// rounding of the next matrix product turns some of those bits into visible differences a
// few dozen tokens later. Computing the same polynomial with the same fused operations keeps
// Pocket's greedy output on llama.cpp's reference path (issue 2's golden completions).
//
// The method: n = round(x·log2 e) through the 1.5·2^23 shifter, b = x − n·ln 2 in two parts
// (hi + lo), e^b ≈ 1 + c1·b + c2·b² + … + c5·b⁵ evaluated as (c5·b + c4)·u² + … with u = b²,
// then scaled by 2^n exactly. Accurate to about 1.5 ulp; |n| > 192 saturates to 0 or ∞.

extension VectorMath {
    /// Coefficients of the degree-5 polynomial for e^b on |b| ≤ ln 2 / 2, and the split ln 2.
    @usableFromInline enum ExpConstants {
        @usableFromInline static let shifter: Float = 0x1.8p23
        @usableFromInline static let log2e: Float = 0x1.715476p+0
        @usableFromInline static let ln2High: Float = 0x1.62e4p-1
        @usableFromInline static let ln2Low: Float = 0x1.7f7d1cp-20
        @usableFromInline static let c1: Float = 0x1.ffffecp-1
        @usableFromInline static let c2: Float = 0x1.fffdb6p-2
        @usableFromInline static let c3: Float = 0x1.555e66p-3
        @usableFromInline static let c4: Float = 0x1.573e2ep-5
        @usableFromInline static let c5: Float = 0x1.0e4020p-7
    }

    /// e^x in sixteen lanes with llama.cpp's AVX-512 polynomial, bit for bit (see the top of
    /// this file). NaN stays NaN; large arguments give +∞ or 0.
    @inlinable @inline(__always)
    public static func exp(_ x: SIMD16<Float>) -> SIMD16<Float> {
        typealias C = ExpConstants
        @inline(__always) func fma(_ a: SIMD16<Float>, _ b: SIMD16<Float>, _ c: SIMD16<Float>) -> SIMD16<Float> {
            var r = c
            r.multiplyAdd(a, b)
            return r
        }
        @inline(__always) func splat(_ v: Float) -> SIMD16<Float> { SIMD16(repeating: v) }
        let z = fma(x, splat(C.log2e), splat(C.shifter))
        let n = z - splat(C.shifter)
        let b = fma(-n, splat(C.ln2Low), fma(-n, splat(C.ln2High), x))
        let u = b * b
        let j = fma(fma(fma(splat(C.c5), b, splat(C.c4)), u, fma(splat(C.c3), b, splat(C.c2))),
                    u, fma(splat(C.c1), b, splat(1)))
        // j · 2^n, rounded once: n is the integer in z's low mantissa bits. Two exact powers
        // of two of at most ±96 each keep the first product exact, so only the second rounds
        // (into the subnormal range or to ∞ where 2^n takes it).
        let shifterBits = SIMD16<Int32>(repeating: Int32(bitPattern: C.shifter.bitPattern))
        let integer = (unsafeBitCast(z, to: SIMD16<Int32>.self) &- shifterBits)
            .clamped(lowerBound: SIMD16(repeating: -192), upperBound: SIMD16(repeating: 192))
        let half = integer &>> 1
        let scaled = j * power(ofTwo: half) * power(ofTwo: integer &- half)
        // |n| > 192 (and only then: NaN compares false) saturates, as the reference does.
        let saturated = (n .> splat(192)) .| (n .< splat(-192))
        let limit = splat(0).replacing(with: .infinity, where: n .> 0)
        return scaled.replacing(with: limit, where: saturated)
    }

    /// 2^e for integer lanes in -126…127, built from the exponent bits.
    @inlinable @inline(__always)
    static func power(ofTwo e: SIMD16<Int32>) -> SIMD16<Float> {
        unsafeBitCast((e &+ 127) &<< 23, to: SIMD16<Float>.self)
    }

    /// Scalar reference for ``exp(_:)-(SIMD16<Float>)``: the same steps on one value.
    public static func expReference(_ x: Float) -> Float {
        typealias C = ExpConstants
        let n = C.shifter.plusProduct(x, C.log2e) - C.shifter
        guard !n.isNaN else { return .nan }
        if abs(n) > 192 { return n > 0 ? .infinity : 0 }
        let b = x.plusProduct(-n, C.ln2High).plusProduct(-n, C.ln2Low)
        let u = b * b
        let upper = C.c4.plusProduct(C.c5, b)        // c4 + c5·b
        let middle = C.c2.plusProduct(C.c3, b)       // c2 + c3·b
        let lower = Float(1).plusProduct(C.c1, b)    // 1 + c1·b
        let j = lower.plusProduct(middle.plusProduct(upper, u), u)
        return Float(Double(j) * Double(sign: .plus, exponent: Int(n), significand: 1))
    }
}
