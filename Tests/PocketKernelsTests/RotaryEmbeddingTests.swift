import Foundation
import Testing
@testable import PocketKernels

@Suite struct RotaryEmbeddingTests {
    @Test(arguments: [RoPEStyle.adjacentPairs, .halves])
    func tableAgreesWithDirectAngles(style: RoPEStyle) {
        let dims = 64, base: Float = 100_000
        let rope = RotaryEmbedding(dimensions: dims, base: base, style: style, positions: 600)
        var random = SplitMix64(seed: 42)
        for position in [0, 1, 2, 17, 255, 599] {
            var x = (0..<dims).map { _ in Float(Int(truncatingIfNeeded: random.next() % 2001) - 1000) / 1000 }
            var y = x
            rope.apply(to: &x, position: position)
            RotaryEmbedding.applyReference(to: &y, position: position, dimensions: dims, base: base, style: style)
            for i in 0..<dims {
                // Angles up to ~600 rad lose ~600·2^-24 ≈ 4e-5 to float rounding of θ.
                #expect(abs(x[i] - y[i]) < 2e-4, "position \(position) dim \(i): \(x[i]) vs \(y[i])")
            }
        }
    }

    @Test func frequencyFactorsDivideEachPairsAngle() {
        // d = 4, base = 100, factors (1, 8): pair 0 turns by p, pair 1 by p / 10 / 8.
        let factors: [Float] = [1, 8]
        let rope = factors.withUnsafeBufferPointer {
            RotaryEmbedding(dimensions: 4, base: 100, style: .halves, positions: 4, frequencyFactors: $0.baseAddress)
        }
        var x: [Float] = [1, 1, 0, 0]
        rope.apply(to: &x, position: 3)
        #expect(abs(x[0] - cos(3)) < 1e-6 && abs(x[2] - sin(3)) < 1e-6)
        #expect(abs(x[1] - cos(0.0375)) < 1e-6 && abs(x[3] - sin(0.0375)) < 1e-6)
    }

    @Test func adjacentPairsRotateByPositionTimesFrequency() {
        // d = 4, base = 100: pair 0 turns by p, pair 1 by p / 10.
        let rope = RotaryEmbedding(dimensions: 4, base: 100, style: .adjacentPairs, positions: 3)
        var x: [Float] = [1, 0, 0, 1]
        rope.apply(to: &x, position: 2)
        #expect(abs(x[0] - cos(2)) < 1e-6 && abs(x[1] - sin(2)) < 1e-6)
        #expect(abs(x[2] - -sin(0.2)) < 1e-6 && abs(x[3] - cos(0.2)) < 1e-6)
        var y: [Float] = [0.3, -0.7, 2, 5]
        rope.apply(to: &y, position: 0)
        #expect(y == [0.3, -0.7, 2, 5])
    }

    @Test func halvesPairFirstAndSecondHalf() {
        let rope = RotaryEmbedding(dimensions: 4, base: 100, style: .halves, positions: 2)
        var x: [Float] = [1, 0, 0, 0]
        rope.apply(to: &x, position: 1)
        // Dimension 0 is paired with dimension 2.
        #expect(abs(x[0] - cos(1)) < 1e-6 && abs(x[2] - sin(1)) < 1e-6 && x[1] == 0 && x[3] == 0)
    }

    @Test func onlyTheLeadingDimensionsRotate() {
        let rope = RotaryEmbedding(dimensions: 2, base: 10_000, style: .adjacentPairs, positions: 8)
        var x: [Float] = [1, 2, 3, 4]
        rope.apply(to: &x, position: 5)
        #expect(x[2] == 3 && x[3] == 4)
    }
}
