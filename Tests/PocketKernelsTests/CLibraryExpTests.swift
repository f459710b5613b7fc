import Foundation
import PocketKernels
import Testing

/// `VectorMath.cLibraryExp` (the C library's `expf`, sixteen lanes at a time) against the C
/// library itself.
@Suite struct CLibraryExpTests {
    /// Every lane equal to `expf` of the same input, bit for bit (NaN for NaN).
    static func mismatches(_ values: [Float]) -> [(Float, Float, Float)] {
        var found: [(Float, Float, Float)] = []
        var padded = values
        while padded.count % 16 != 0 { padded.append(0) }
        for start in stride(from: 0, to: padded.count, by: 16) {
            var lanes = SIMD16<Float>()
            for l in 0..<16 { lanes[l] = padded[start + l] }
            let fast = VectorMath.cLibraryExp(lanes)
            for l in 0..<16 {
                let expected = expf(lanes[l])
                if fast[l].bitPattern != expected.bitPattern && !(fast[l].isNaN && expected.isNaN) {
                    found.append((lanes[l], fast[l], expected))
                }
            }
        }
        return found
    }

    /// Two million random inputs over the range the softmax uses and beyond (every table
    /// entry, the subnormal results, overflow).
    @Test func randomInputsEqualExpfBitForBit() {
        var rng = TestRandom(seed: 0xC1)
        var values = (0..<1_000_000).map { _ in Float.random(in: -110...90, using: &rng) }
        values += (0..<1_000_000).map { _ in Float.random(in: -2...2, using: &rng) }
        let found = Self.mismatches(values)
        #expect(found.isEmpty, "\(found.count) mismatches, first: \(found.prefix(3))")
    }

    /// Each special-case threshold, its neighbours, and the special values.
    @Test func edgesAndSpecialValuesEqualExpf() {
        var values: [Float] = [0, -0, 1, -1, .infinity, -.infinity, .nan, .leastNonzeroMagnitude,
                               -.leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude]
        for edge: Float in [88, -88, 0x1.62e42ep6, -0x1.9fe368p6, -0x1.9d1d9ep6, -87.33, -104, -103.28] {
            var x = edge
            for _ in 0..<64 { x = x.nextDown }
            for _ in 0..<128 { values.append(x); x = x.nextUp }
        }
        let found = Self.mismatches(values)
        #expect(found.isEmpty, "\(found.count) mismatches, first: \(found.prefix(3))")
    }

    /// The in-place form covers a count that is not a multiple of 16.
    @Test func inPlaceEqualsTheLanes() {
        var rng = TestRandom(seed: 0xC2)
        let values = (0..<37).map { _ in Float.random(in: -30...0, using: &rng) }
        var buffer = values + [Float](repeating: 0, count: 11)
        buffer.withUnsafeMutableBufferPointer { VectorMath.cLibraryExp(inPlace: $0.baseAddress!, count: 37) }
        #expect(buffer.prefix(37).map(\.bitPattern) == values.map { expf($0).bitPattern })
    }
}
