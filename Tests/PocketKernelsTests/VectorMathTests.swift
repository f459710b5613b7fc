import Foundation
import PocketKernels
import Testing

@Suite struct VectorMathTests {
    @Test(arguments: [1, 15, 16, 33, 64, 100])
    func dotMatchesReference(count: Int) {
        var rng = TestRandom(seed: UInt64(count))
        let a = (0..<count).map { _ in Float.random(in: -1...1, using: &rng) }
        let b = (0..<count).map { _ in Float.random(in: -1...1, using: &rng) }
        let fast = VectorMath.dot(a, b, count: count)
        let reference = VectorMath.dotReference(a, b, count: count)
        #expect(abs(fast - reference) <= 1e-5 * Float(count))
    }

    @Test func rmsNormFollowsTheFormula() {
        let x: [Float] = [1, -2, 3, -4]
        let w: [Float] = [1, 0.5, 2, 1]
        var out = [Float](repeating: 0, count: 4)
        VectorMath.rmsNorm(x, weight: w, epsilon: 1e-5, into: &out, count: 4)
        let rms = ((1 + 4 + 9 + 16) / 4 + 1e-5 as Float).squareRoot()
        for i in 0..<4 { #expect(abs(out[i] - x[i] / rms * w[i]) < 1e-6) }
    }

    /// The lane-wise double sum gives the serial sum's single-precision mean, so the outputs
    /// are identical, on model-sized vectors with a spread of magnitudes.
    @Test(arguments: [1, 15, 16, 17, 576, 896, 3072, 4864])
    func rmsNormMatchesTheSerialReference(count: Int) {
        var rng = TestRandom(seed: UInt64(count) &* 31)
        for _ in 0..<50 {
            let x = (0..<count).map { _ in Float.random(in: -1...1, using: &rng) * pow(10, Float.random(in: -3...3, using: &rng)) }
            let w = (0..<count).map { _ in Float.random(in: 0...2, using: &rng) }
            var fast = [Float](repeating: 0, count: count), reference = fast
            VectorMath.rmsNorm(x, weight: w, epsilon: 1e-6, into: &fast, count: count)
            VectorMath.rmsNormReference(x, weight: w, epsilon: 1e-6, into: &reference, count: count)
            #expect(fast == reference)
        }
    }

    /// Both conversions round exactly as `Float16(_:)`, tails and special values included.
    @Test(arguments: [1, 16, 31, 128])
    func halfPrecisionConversionsMatchTheScalarOnes(count: Int) {
        var rng = TestRandom(seed: UInt64(count))
        var x = (0..<count).map { _ in Float.random(in: -70000...70000, using: &rng) / pow(2, Float(Int.random(in: 0...30, using: &rng))) }
        let specials: [Float] = [0, -0, .infinity, -.infinity, 65520, 65519.996, 1e-8, 2.9802322e-08]
        for (i, v) in specials.enumerated() where i < count { x[i] = v }
        var halves = [Float16](repeating: 0, count: count)
        VectorMath.convert(x, toHalf: &halves, count: count)
        #expect(halves.map(\.bitPattern) == x.map { Float16($0).bitPattern })
        var rounded = x
        VectorMath.roundToHalf(&rounded, count: count)
        #expect(rounded.map(\.bitPattern) == x.map { Float(Float16($0)).bitPattern })
    }

    @Test func softmaxSumsToOneAndIsStable() {
        var x: [Float] = [1000, 1001, 1002]
        VectorMath.softmax(&x, count: 3)
        #expect(abs(x.reduce(0, +) - 1) < 1e-6)
        let e1 = exp(Float(-1)), e2 = exp(Float(-2))
        #expect(abs(x[2] - 1 / (1 + e1 + e2)) < 1e-6)
    }

    @Test func swiGLUIsSiluTimesUp() {
        var gate: [Float] = [-2, 0, 3]
        let up: [Float] = [1, 5, 2]
        VectorMath.swiGLU(&gate, up: up, count: 3)
        #expect(abs(gate[0] - (-2 / (1 + exp(2)))) < 1e-6)
        #expect(gate[1] == 0)
        #expect(abs(gate[2] - 3 / (1 + exp(-3)) * 2) < 1e-5)
    }
}
