import PocketKernels
import Testing

/// `HalfConversion` against the standard library's `Float(Float16)` and `Float16(Float)` (the
/// hardware conversion on F16C builds, compiler-rt's elsewhere), and its vector forms against
/// its scalar references. The integer-operation vector code (`widenedBits`, `narrowedBits`) is
/// compiled in every build, so it is checked on every target, not only where kernels use it.
@Suite struct HalfConversionTests {
    /// Every fp16 bit pattern.
    static let allHalves: [UInt16] = (0...UInt16.max).map { $0 }

    /// Same value, or both NaN (NaN payloads are not compared with the standard library's).
    static func agree(_ a: Float, _ b: Float) -> Bool {
        a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern
    }

    /// Same half, or both NaN.
    static func agree(_ a: UInt16, _ b: UInt16) -> Bool {
        let (aNaN, bNaN) = (a & 0x7FFF > 0x7C00, b & 0x7FFF > 0x7C00)
        return aNaN || bNaN ? aNaN && bNaN : a == b
    }

    /// Floats that exercise narrowing's rounding: the special values and boundaries, and for
    /// every finite half the midpoint to the next one (a tie) and its two float neighbours.
    static let edgeFloats: [Float] = {
        var values: [Float] = [
            0, .infinity, .nan, .signalingNaN, Float(bitPattern: 0x7FC0_1234), Float(bitPattern: 0x7F80_0001),
            .greatestFiniteMagnitude, .leastNonzeroMagnitude, .leastNormalMagnitude,
            65504, 65519.996, 65520, 65536, 0x1p-14, 0x1p-24, 0x1p-25, Float(0x1p-25).nextUp, Float(0x1p-25).nextDown,
            3 * 0x1p-25, 0x1p-14 - 0x1p-25, 0x1p-14 - Float(0x1p-25).nextDown, 1 + 0x1p-11, 1 + 3 * 0x1p-11, Float(1 + 0x1p-11).nextUp,
        ]
        for bits in UInt16(0)..<0x7C00 {
            let low = Float(Float16(bitPattern: bits)), high = Float(Float16(bitPattern: bits + 1))
            let tie = (low + high) / 2  // exact: floats have 13 more mantissa bits
            values += [low, tie, tie.nextUp, tie.nextDown]
        }
        return values + values.map { -$0 }
    }()

    /// A few million floats: random bit patterns spread evenly over the exponents around half
    /// precision's range (2^-30…2^20), and fully random patterns (NaNs, huge and tiny values).
    static func randomFloats(_ count: Int, seed: UInt64) -> [Float] {
        var rng = TestRandom(seed: seed)
        return (0..<count).map { i in
            let bits = UInt32(truncatingIfNeeded: rng.next())
            if i % 4 == 3 { return Float(bitPattern: bits) }
            let exponent = UInt32.random(in: 97...147, using: &rng)
            return Float(bitPattern: bits & 0x807F_FFFF | exponent << 23)
        }
    }

    @Test func scalarWideningMatchesStandardLibraryForEveryHalf() {
        var mismatches: [UInt16] = []
        for bits in Self.allHalves {
            let expected = Float(Float16(bitPattern: bits))
            if !Self.agree(HalfConversion.widenedReference(bits), expected) { mismatches.append(bits) }
            if !Self.agree(HalfConversion.widened(bits), expected) { mismatches.append(bits) }
            if !Self.agree(HalfConversion.widened(Float16(bitPattern: bits)), expected) { mismatches.append(bits) }
        }
        #expect(mismatches.count == 0, "first mismatches: \(mismatches.prefix(8).map { String($0, radix: 16) })")
    }

    /// The vector widenings equal the scalar reference for every half, bit for bit (NaN
    /// payloads included for the integer-operation form, which quiets as the reference does).
    @Test func vectorWideningMatchesScalarForEveryHalf() {
        var mismatches: [UInt16] = []
        Self.allHalves.withUnsafeBytes { raw in
            for start in stride(from: 0, to: Self.allHalves.count, by: 16) {
                let bits16 = raw.loadUnaligned(fromByteOffset: 2 * start, as: SIMD16<UInt16>.self)
                let software = HalfConversion.widenedBits(bits16.lowHalf), softwareHigh = HalfConversion.widenedBits(bits16.highHalf)
                let wide16 = HalfConversion.widened(unsafeBitCast(bits16, to: SIMD16<Float16>.self))
                let wide8 = HalfConversion.widened(unsafeBitCast(bits16.highHalf, to: SIMD8<Float16>.self))
                for i in 0..<16 {
                    let bits = bits16[i]
                    let reference = HalfConversion.widenedReference(bits)
                    let s = i < 8 ? software[i] : softwareHigh[i - 8]
                    if s.bitPattern != reference.bitPattern { mismatches.append(bits) }
                    if !Self.agree(wide16[i], reference) { mismatches.append(bits) }
                    if i >= 8 && !Self.agree(wide8[i - 8], reference) { mismatches.append(bits) }
                }
            }
        }
        #expect(mismatches.count == 0, "first mismatches: \(mismatches.prefix(8).map { String($0, radix: 16) })")
    }

    /// Narrowing against the standard library (and the vector forms against the scalar one;
    /// rounding in float lanes against narrowing then widening, NaN payloads included):
    /// every tie between neighbouring halves and its neighbours, the subnormal and overflow
    /// boundaries, ±0, ±∞, NaNs, then a few million random floats.
    @Test(arguments: [0, 1, 2])
    func narrowingMatchesStandardLibrary(part: Int) {
        let values = part == 0 ? Self.edgeFloats : Self.randomFloats(1 << 21, seed: UInt64(part))
        var mismatches: [Float] = []
        values.withUnsafeBytes { raw in
            var start = 0
            while start + 16 <= values.count {
                let v = raw.loadUnaligned(fromByteOffset: 4 * start, as: SIMD16<Float>.self)
                let software = HalfConversion.narrowedBits(v.lowHalf), softwareHigh = HalfConversion.narrowedBits(v.highHalf)
                let narrow16 = unsafeBitCast(HalfConversion.narrowed(v), to: SIMD16<UInt16>.self)
                let narrow8 = unsafeBitCast(HalfConversion.narrowed(v.lowHalf), to: SIMD8<UInt16>.self)
                let round16 = HalfConversion.rounded(v)
                let roundedLow = HalfConversion.roundedBits(v.lowHalf), roundedHigh = HalfConversion.roundedBits(v.highHalf)
                for i in 0..<16 {
                    let x = v[i]
                    let expected = Float16(x).bitPattern, reference = HalfConversion.narrowedReference(x)
                    let s = i < 8 ? software[i] : softwareHigh[i - 8]
                    if !Self.agree(reference, expected) || s != reference || !Self.agree(narrow16[i], expected)
                        || i < 8 && !Self.agree(narrow8[i], expected)
                        || !Self.agree(HalfConversion.narrowed(x).bitPattern, expected)
                        || !Self.agree(HalfConversion.rounded(x), Float(Float16(x)))
                        || !Self.agree(round16[i], Float(Float16(x)))
                        || (i < 8 ? roundedLow[i] : roundedHigh[i - 8]).bitPattern
                            != HalfConversion.widenedReference(reference).bitPattern {
                        mismatches.append(x)
                    }
                }
                start += 16
            }
            for x in values[start...] where !Self.agree(HalfConversion.narrowedReference(x), Float16(x).bitPattern) {
                mismatches.append(x)
            }
        }
        #expect(mismatches.count == 0, "first: \(mismatches.prefix(8).map { String($0.bitPattern, radix: 16) })")
    }
}
