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
