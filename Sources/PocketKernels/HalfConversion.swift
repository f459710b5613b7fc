// Half precision (IEEE fp16) to single precision and back, without a runtime call.
//
// Where the target has conversion instructions (`POCKET_F16C` on x86-64, every arm64 CPU),
// `Float(Float16)` and `Float16(Float)` are one instruction and a lane-by-lane loop over a
// vector compiles to one `vcvtph2ps`/`vcvtps2ph`: those are used, so such builds are unchanged.
// Elsewhere (x86-64's baseline, which a build of Pocket as a versioned dependency gets) each
// conversion is a call into compiler-rt per lane (`__extendhfsf2`, `__truncsfhf2`): here the
// conversions are integer and float bit operations on 32-bit lanes instead, which compile to
// plain SSE2 vector code (checked with objdump: `punpcklwd`, `pslld`, `pand`, `pcmpgtd`, `mulps`,
// `addps`, `packssdw`). They agree with the hardware conversion on every non-NaN input
// (rounding to nearest, ties to even, subnormals, ±0, ±∞); NaNs stay NaNs, quieted, payload
// kept in the bits both formats have.

/// fp16 ↔ fp32 conversions: the conversion instructions where the target has them, integer and
/// float bit operations that vectorize on any x86-64 CPU elsewhere.
package enum HalfConversion {
    // MARK: Scalar

    /// The half-precision number with bit pattern `bits`, as a float (exact).
    @inline(__always)
    package static func widened(_ bits: UInt16) -> Float {
        #if POCKET_F16C || arch(arm64)
        Float(Float16(bitPattern: bits))
        #else
        widenedReference(bits)
        #endif
    }

    /// `h` as a float (exact).
    @inline(__always)
    package static func widened(_ h: Float16) -> Float { widened(h.bitPattern) }

    /// `x` rounded to half precision (to nearest, ties to even).
    @inline(__always)
    package static func narrowed(_ x: Float) -> Float16 {
        #if POCKET_F16C || arch(arm64)
        Float16(x)
        #else
        Float16(bitPattern: narrowedReference(x))
        #endif
    }

    /// `Float(Float16(x))`: `x` rounded to the nearest half-precision number, kept as a float.
    @inline(__always)
    package static func rounded(_ x: Float) -> Float { widened(narrowed(x)) }

    /// Scalar reference for widening, with integer operations only: the half's fields moved
    /// into a float's (exponent rebiased by 127 − 15 = 112), subnormals as `m · 2^-24`.
    @inline(__always)
    package static func widenedReference(_ bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = UInt32(bits >> 10) & 0x1F, mantissa = UInt32(bits) & 0x3FF
        if exponent == 0x1F {
            // ±∞, or a NaN quieted (bit 22) as the hardware does.
            let quiet: UInt32 = mantissa != 0 ? 0x0040_0000 : 0
            return Float(bitPattern: sign | 0x7F80_0000 | quiet | mantissa << 13)
        }
        if exponent == 0 {
            // ±0 and subnormals: both conversions and the product by a power of two are exact.
            let magnitude = Float(mantissa) * 0x1p-24
            return Float(bitPattern: sign | magnitude.bitPattern)
        }
        return Float(bitPattern: sign | (exponent + 112) << 23 | mantissa << 13)
    }

    /// Scalar reference for narrowing: the bit pattern of `x` rounded to half precision (to
    /// nearest, ties to even), with integer operations only.
    @inline(__always)
    package static func narrowedReference(_ x: Float) -> UInt16 {
        let bits = x.bitPattern
        let sign = UInt16(truncatingIfNeeded: bits >> 16) & 0x8000
        let magnitude = bits & 0x7FFF_FFFF
        if magnitude > 0x7F80_0000 {
            // NaN: quiet, with the payload's top ten bits.
            return sign | 0x7E00 | UInt16(truncatingIfNeeded: magnitude >> 13) & 0x3FF
        }
        // 65520 = 65504 + half an ulp and above (∞ too) round to ∞.
        if magnitude >= 0x477F_F000 { return sign | 0x7C00 }
        if magnitude < 0x3880_0000 {
            // Below 2^-14, the smallest normal half: subnormal units of 2^-24. The value is
            // `significand · 2^(e − 150)`, i.e. `significand >> (126 − e)` units.
            let exponent = magnitude >> 23
            let shift = 126 - exponent
            if shift > 24 { return sign }  // below 2^-25: rounds to ±0
            let significand = magnitude & 0x7F_FFFF | 0x80_0000
            return sign | UInt16(roundedShift(significand, by: shift))
        }
        // Normal: rebias the exponent, round the 13 dropped mantissa bits (a carry into the
        // exponent is the right result, up to 65504 → ∞ handled above).
        return sign | UInt16(roundedShift(magnitude - 112 << 23, by: 13))
    }

    /// `value >> shift` rounded to nearest, ties to even (`shift` in 1…31).
    @inline(__always)
    static func roundedShift(_ value: UInt32, by shift: UInt32) -> UInt32 {
        let truncated = value >> shift
        let remainder = value & (1 << shift - 1), half: UInt32 = 1 << (shift - 1)
        return remainder > half || remainder == half && truncated & 1 == 1 ? truncated + 1 : truncated
    }

    // MARK: Vectors

    /// Sixteen halves widened to floats (exact).
    @inline(__always)
    package static func widened(_ v: SIMD16<Float16>) -> SIMD16<Float> {
        #if POCKET_F16C || arch(arm64)
        // Lane by lane: the generic vector conversion is a library call; this is one vcvtph2ps.
        var result = SIMD16<Float>()
        for i in 0..<16 { result[i] = Float(v[i]) }
        return result
        #else
        let bits = unsafeBitCast(v, to: SIMD16<UInt16>.self)
        return SIMD16(lowHalf: widenedBits(bits.lowHalf), highHalf: widenedBits(bits.highHalf))
        #endif
    }

    /// Sixteen floats rounded to the nearest half-precision numbers, kept as floats:
    /// `widened(narrowed(v))`, without the round trip through 16-bit lanes where there is no
    /// conversion instruction (``roundedBits(_:)``, about half the operations).
    @inline(__always)
    package static func rounded(_ v: SIMD16<Float>) -> SIMD16<Float> {
        #if POCKET_F16C || arch(arm64)
        widened(narrowed(v))
        #else
        SIMD16(lowHalf: roundedBits(v.lowHalf), highHalf: roundedBits(v.highHalf))
        #endif
    }

    /// Eight halves widened to floats (exact).
    @inline(__always)
    package static func widened(_ v: SIMD8<Float16>) -> SIMD8<Float> {
        #if POCKET_F16C || arch(arm64)
        var result = SIMD8<Float>()
        for i in 0..<8 { result[i] = Float(v[i]) }
        return result
        #else
        return widenedBits(unsafeBitCast(v, to: SIMD8<UInt16>.self))
        #endif
    }

    /// Sixteen floats rounded to half precision (to nearest, ties to even).
    @inline(__always)
    package static func narrowed(_ v: SIMD16<Float>) -> SIMD16<Float16> {
        #if POCKET_F16C || arch(arm64)
        var result = SIMD16<Float16>()
        for i in 0..<16 { result[i] = Float16(v[i]) }
        return result
        #else
        let bits = SIMD16(lowHalf: narrowedBits(v.lowHalf), highHalf: narrowedBits(v.highHalf))
        return unsafeBitCast(bits, to: SIMD16<Float16>.self)
        #endif
    }

    /// Eight floats rounded to half precision (to nearest, ties to even).
    @inline(__always)
    package static func narrowed(_ v: SIMD8<Float>) -> SIMD8<Float16> {
        #if POCKET_F16C || arch(arm64)
        var result = SIMD8<Float16>()
        for i in 0..<8 { result[i] = Float16(v[i]) }
        return result
        #else
        return unsafeBitCast(narrowedBits(v), to: SIMD8<Float16>.self)
        #endif
    }

    /// The integer-operation widening of eight halves' bit patterns (every build compiles it;
    /// the tests check it on every target). Branch-free: the half's exponent and mantissa are
    /// moved where a float has them and the float multiplied by 2^112 (the exponent bias
    /// difference), exact for normal and subnormal halves alike; masks fix up ∞ and NaN.
    @inline(__always)
    package static func widenedBits(_ bits: SIMD8<UInt16>) -> SIMD8<Float> {
        let h = zeroExtended(bits)
        let fields = (h & 0x7FFF) &<< 13          // exponent and mantissa where a float has them
        let scaled = unsafeBitCast(unsafeBitCast(fields, to: SIMD8<Float>.self) * 0x1p112, to: SIMD8<UInt32>.self)
        // ∞ and NaN (exponent all ones, scaled to 2^16 and up): the float's all-ones exponent;
        // a NaN (nonzero mantissa) quieted.
        var result = scaled | below(0x0F7F_FFFF, fields) & 0x7F80_0000
        result |= below(0x0F80_0000, fields) & 0x0040_0000
        return unsafeBitCast(result | (h & 0x8000) &<< 16, to: SIMD8<Float>.self)
    }

    /// `widenedBits(narrowedBits(v))` with float lanes throughout: each float rounded to 11
    /// significant bits (ties to even) in place, below 2^-14 to a multiple of 2^-24, from
    /// 65520 up to ∞, NaNs quieted with the payload bits a half keeps.
    @inline(__always)
    package static func roundedBits(_ v: SIMD8<Float>) -> SIMD8<Float> {
        let bits = unsafeBitCast(v, to: SIMD8<UInt32>.self)
        let magnitude = bits & 0x7FFF_FFFF
        // Normal halves: add just under half an ulp plus the lowest kept bit, clear the 13
        // dropped bits (a carry into the exponent is the right result).
        let odd = (magnitude &>> 13) & 1
        let normal = (magnitude &+ 0xFFF &+ odd) & 0xFFFF_E000
        // Below 2^-14: adding 0.5 rounds to a multiple of 2^-24 (0.5's ulp, ties to even);
        // subtracting it again is exact.
        let half = SIMD8<Float>(repeating: 0.5)
        let subnormal = unsafeBitCast((unsafeBitCast(magnitude, to: SIMD8<Float>.self) + half) - half, to: SIMD8<UInt32>.self)
        let nan = below(0x7F80_0000, magnitude)
        let special = 0x7F80_0000 | nan & (magnitude & 0x003F_E000 | 0x0040_0000)
        let tiny = below(magnitude, 0x3880_0000), large = ~below(magnitude, 0x477F_F000)
        let result = tiny & subnormal | large & special | ~(tiny | large) & normal
        return unsafeBitCast(result | bits & 0x8000_0000, to: SIMD8<Float>.self)
    }

    /// The integer-operation narrowing of eight floats to halves' bit patterns (ties to even);
    /// see ``widenedBits(_:)``.
    @inline(__always)
    package static func narrowedBits(_ v: SIMD8<Float>) -> SIMD8<UInt16> {
        let bits = unsafeBitCast(v, to: SIMD8<UInt32>.self)
        let magnitude = bits & 0x7FFF_FFFF
        // Normal halves: rebias the exponent, then add just under half an ulp of the result
        // plus its lowest kept bit (ties go to even), and drop the 13 extra mantissa bits.
        // From 65520 up, the carry makes 0x7C00 (∞).
        let odd = (magnitude &>> 13) & 1
        let normal = (magnitude &- 112 << 23 &+ 0xFFF &+ odd) &>> 13
        // Below 2^-14: adding 0.5 leaves the value rounded to a multiple of 2^-24 (0.5's ulp)
        // in the low mantissa bits, exactly the subnormal half's bits.
        let sum = unsafeBitCast(magnitude, to: SIMD8<Float>.self) + 0.5
        let subnormal = unsafeBitCast(sum, to: SIMD8<UInt32>.self) &- 0x3F00_0000
        // 2^16 and above: ∞, or a quiet NaN with the payload's top bits.
        let nan = below(0x7F80_0000, magnitude)
        let special = 0x7C00 | nan & (0x0200 | (magnitude &>> 13) & 0x3FF)
        let tiny = below(magnitude, 0x3880_0000), large = ~below(magnitude, 0x4780_0000)
        let result = tiny & subnormal | large & special | ~(tiny | large) & normal
        return truncated(result | (bits &>> 16) & 0x8000)
    }

    /// All ones in the lanes where `a < b`, zero elsewhere (both below 2^31): the sign of
    /// `a − b`, which the compiler turns into one compare.
    @inline(__always)
    static func below(_ a: SIMD8<UInt32>, _ b: UInt32) -> SIMD8<UInt32> {
        unsafeBitCast((unsafeBitCast(a, to: SIMD8<Int32>.self) &- Int32(bitPattern: b)) &>> 31, to: SIMD8<UInt32>.self)
    }

    /// All ones in the lanes where `a < b`, zero elsewhere (both below 2^31).
    @inline(__always)
    static func below(_ a: UInt32, _ b: SIMD8<UInt32>) -> SIMD8<UInt32> {
        unsafeBitCast((Int32(bitPattern: a) &- unsafeBitCast(b, to: SIMD8<Int32>.self)) &>> 31, to: SIMD8<UInt32>.self)
    }

    /// 16-bit lanes zero-extended to 32 bits, lane by lane: the generic conversion is a library
    /// call, this is two unpack instructions.
    @inline(__always)
    static func zeroExtended(_ v: SIMD8<UInt16>) -> SIMD8<UInt32> {
        var result = SIMD8<UInt32>()
        for i in 0..<8 { result[i] = UInt32(v[i]) }
        return result
    }

    /// The low 16 bits of each lane, lane by lane (shifts and one pack).
    @inline(__always)
    static func truncated(_ v: SIMD8<UInt32>) -> SIMD8<UInt16> {
        var result = SIMD8<UInt16>()
        for i in 0..<8 { result[i] = UInt16(truncatingIfNeeded: v[i]) }
        return result
    }
}
