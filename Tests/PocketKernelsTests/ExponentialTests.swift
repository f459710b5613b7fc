import Foundation
import PocketKernels
import Testing

/// `VectorMath.exp` (llama.cpp's AVX-512 polynomial) and the SwiGLU built on it.
@Suite struct ExponentialTests {
    /// Inputs over the whole useful range, the saturation edges and the special values.
    static func inputs() -> [Float] {
        var rng = TestRandom(seed: 0xE8)
        var values = (0..<20_000).map { _ in Float.random(in: -110...95, using: &rng) }
        values += (0..<2_000).map { _ in Float.random(in: -1...1, using: &rng) }
        values += [0, -0, 1, -1, 88.72, 88.73, 89, -87.3, -103.9, -104, -120, -133.1, -140,
                   100, -100, 133, 134, -134, 200, -200, 1e30, -1e30,
                   .infinity, -.infinity, .nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude]
        return values
    }

    @Test func vectorLanesEqualTheScalarReferenceBitForBit() {
        let values = Self.inputs()
        var mismatches = 0
        for start in stride(from: 0, to: values.count - 15, by: 16) {
            var lanes = SIMD16<Float>()
            for l in 0..<16 { lanes[l] = values[start + l] }
            let fast = VectorMath.exp(lanes)
            for l in 0..<16 {
                let expected = VectorMath.expReference(lanes[l])
                if fast[l].bitPattern != expected.bitPattern && !(fast[l].isNaN && expected.isNaN) {
                    mismatches += 1
                }
            }
        }
        #expect(mismatches == 0)
    }

    /// Independent of the implementation: within 2.5 ulp of the double-precision exponential
    /// wherever the result is a normal float (a scan of every seventh float in -87…88.7 finds
    /// 2.23 at worst), and the documented saturation outside.
    @Test func agreesWithTheExactExponential() {
        var worst: Double = 0
        for x in Self.inputs() where x.isFinite && x > -87 && x < 88.7 {
            let exact = Foundation.exp(Double(x))
            let ulp = Double(Float(exact).ulp)
            worst = max(worst, abs(Double(VectorMath.expReference(x)) - exact) / ulp)
        }
        #expect(worst <= 2.5, "worst error \(worst) ulp")
        #expect(worst > 0.5, "a correctly rounded exp would not need this polynomial: \(worst) ulp")
        #expect(VectorMath.expReference(0) == 1)
        #expect(VectorMath.expReference(200) == .infinity)
        #expect(VectorMath.expReference(89) == .infinity)
        #expect(VectorMath.expReference(-200) == 0)
        #expect(VectorMath.expReference(-.infinity) == 0)
        #expect(VectorMath.expReference(.infinity) == .infinity)
        #expect(VectorMath.expReference(.nan).isNaN)
        // Subnormal results are rounded once, not flushed.
        let tiny = VectorMath.expReference(-100)
        #expect(tiny > 0 && !tiny.isNormal)
        #expect(abs(Double(tiny) - Foundation.exp(-100.0)) <= Double(Float.leastNonzeroMagnitude) * 2)
    }

    @Test(arguments: [1, 16, 37, 576, 1536])
    func swiGLUMatchesItsReferenceBitForBit(count: Int) {
        var rng = TestRandom(seed: UInt64(count))
        let gate = (0..<count).map { _ in Float.random(in: -12...12, using: &rng) }
        let up = (0..<count).map { _ in Float.random(in: -3...3, using: &rng) }
        var fast = gate, reference = gate
        VectorMath.swiGLU(&fast, up: up, count: count)
        VectorMath.swiGLUReference(&reference, up: up, count: count)
        #expect(fast.map(\.bitPattern) == reference.map(\.bitPattern))
        for i in 0..<count {
            let g = Double(gate[i]), exact = g / (1 + Foundation.exp(-g)) * Double(up[i])
            #expect(abs(Double(fast[i]) - exact) <= 1e-6 * max(1, abs(exact)))
        }
    }
}
