import Foundation
import PocketKernels
import Testing

/// The half-precision routines of the KV cache against plain loops.
@Suite struct HalfPrecisionVectorMathTests {
    func randomHalves(_ count: Int, _ rng: inout TestRandom) -> [Float16] {
        (0..<count).map { _ in Float16(Float.random(in: -2...2, using: &rng)) }
    }

    @Test(arguments: [1, 16, 63, 64, 128, 130])
    func dotWithHalvesMatchesReference(count: Int) {
        var rng = TestRandom(seed: UInt64(count) + 100)
        let a = (0..<count).map { _ in Float(Float16(Float.random(in: -2...2, using: &rng))) }
        let b = randomHalves(count, &rng)
        let fast = VectorMath.dot(a, b, count: count)
        let reference = VectorMath.dotReference(a, b, count: count)
        // Products of half-precision values are exact in single precision; only the
        // summation order differs.
        #expect(abs(fast - reference) <= 1e-6 * Float(count) * 4)
    }

    /// Eight scores at once (attention's first pass) are the eight single dot products, bit for
    /// bit: the transposed reduction adds the same pairs in the same order. Values spread over
    /// many magnitudes, so that another order of additions would round differently.
    @Test(arguments: [64, 128, 256])
    func eightDotsEqualEightSingleDotsBitForBit(count: Int) {
        var rng = TestRandom(seed: UInt64(count) + 400)
        @inline(__always) func spread() -> Float { Float.random(in: -2...2, using: &rng) * Float(1 << Int.random(in: 0...12, using: &rng)) }
        let query = (0..<count).map { _ in Float(Float16(spread())) }
        let stride = count + 8
        let keys = (0..<(8 * stride)).map { _ in Float16(spread() / 64) }
        keys.withUnsafeBufferPointer { rows in
            for offset in 0..<8 {
                let fast = VectorMath.eightDots(query, rows.baseAddress! + offset, stride: stride, count: count)
                for j in 0..<8 {
                    let single = VectorMath.dot(query, rows.baseAddress! + offset + j * stride, count: count)
                    #expect(fast[j].bitPattern == single.bitPattern, "score \(j): \(fast[j]) against \(single)")
                }
            }
        }
    }

    @Test(arguments: [16, 64, 70])
    func fusedAccumulationIntoSinglesMatchesAPlainLoop(count: Int) {
        var rng = TestRandom(seed: UInt64(count) + 200)
        let x = randomHalves(count, &rng)
        var y = (0..<count).map { _ in Float.random(in: -1...1, using: &rng) }
        let expected = zip(y, x).map { $0.0.plusProduct(Float($0.1), 0.37) }
        VectorMath.addScaled(x, scale: 0.37, to: &y, count: count)
        #expect(y == expected)
    }

    @Test(arguments: [16, 64, 70])
    func halfAccumulatorRoundsEachStepToHalfPrecision(count: Int) {
        var rng = TestRandom(seed: UInt64(count) + 300)
        let x = randomHalves(count, &rng)
        var y = randomHalves(count, &rng)
        let expected = zip(y, x).map { Float16(Float($0.0).plusProduct(Float($0.1), 0.61)) }
        VectorMath.addScaled(x, scale: 0.61, to: &y, count: count)
        #expect(y == expected)
        var z = y
        VectorMath.scale(&z, by: 0.25, count: count)
        #expect(z == y.map { Float16(Float($0) * 0.25) })
        var singles = y.map(Float.init)
        VectorMath.scale(&singles, by: 3, count: count)
        #expect(singles == y.map { Float($0) * 3 })
    }
}
