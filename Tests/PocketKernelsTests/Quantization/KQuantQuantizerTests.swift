import Foundation
import PocketGGUF
import Testing
@testable import PocketKernels

/// What a k-quant's grid looks like, for the naive baseline and the error bound.
struct KQuantShape: Sendable, CustomTestStringConvertible {
    let format: any QuantizableFormat.Type
    let subBlock: Int
    /// Affine formats: levels 0…`highest`; symmetric: `lowest`…`highest`.
    let affine: Bool
    let lowest: Int, highest: Int
    /// Range of the quantized sub-block scales (and mins).
    let scaleLowest: Int, scaleHighest: Int
    var testDescription: String { format.type.name }

    static let all = [
        KQuantShape(format: Q2_K.self, subBlock: 16, affine: true, lowest: 0, highest: 3, scaleLowest: 0, scaleHighest: 15),
        KQuantShape(format: Q3_K.self, subBlock: 16, affine: false, lowest: -4, highest: 3, scaleLowest: -32, scaleHighest: 31),
        KQuantShape(format: Q4_K.self, subBlock: 32, affine: true, lowest: 0, highest: 15, scaleLowest: 0, scaleHighest: 63),
        KQuantShape(format: Q6_K.self, subBlock: 16, affine: false, lowest: -32, highest: 31, scaleLowest: -128, scaleHighest: 127),
    ]

    /// Number of steps across the grid.
    var steps: Float { Float(highest - lowest) }

    /// The obvious encoder, simulated in floats: each sub-block's grid stretched over its range
    /// (affine: min(0, lowest weight)…highest weight; symmetric: the extreme weight on the
    /// negative end), sub-block scales rounded against a super-block factor that maps the
    /// largest to the end of the scale range (fp16-rounded like the real format), then
    /// nearest levels. Returns the decoded weights.
    func naive(_ x: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: x.count)
        for start in stride(from: 0, to: x.count, by: 256) {
            let blocks = 256 / subBlock
            var scales = [Float](), offsets = [Float]()
            for s in 0..<blocks {
                let sub = x[(start + s * subBlock)..<(start + (s + 1) * subBlock)]
                if affine {
                    let low = min(0, sub.min()!), high = max(0, sub.max()!)
                    scales.append((high - low) / Float(highest)); offsets.append(-low)
                } else {
                    let extreme = sub.max { abs($0) < abs($1) }!
                    scales.append(extreme / Float(lowest)); offsets.append(0)
                }
            }
            let extremeScale = affine ? scales.max()! : scales.max { abs($0) < abs($1) }!
            let d = Float(Float16(extremeScale / Float(affine ? scaleHighest : scaleLowest)))
            let dmin = Float(Float16(offsets.max()! / Float(scaleHighest)))
            for s in 0..<blocks {
                let sc = d == 0 ? 0 : min(max((scales[s] / d).rounded(), Float(scaleLowest)), Float(scaleHighest))
                let mn = dmin == 0 ? 0 : min((offsets[s] / dmin).rounded(), Float(scaleHighest))
                let dl = d * sc, ml = dmin * mn
                for i in 0..<subBlock {
                    let j = start + s * subBlock + i
                    let q = dl == 0 ? 0 : min(max(((x[j] + ml) / dl).rounded(), Float(lowest)), Float(highest))
                    out[j] = dl * q - ml
                }
            }
        }
        return out
    }
}

extension TestRandom {
    /// Uniform in [0, 1).
    mutating func uniform() -> Float { Float(next() >> 40) / Float(1 << 24) }
    /// Standard normal (Box–Muller).
    mutating func gaussian() -> Float {
        let u = max(uniform(), 1e-7), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * .pi * v)
    }
}

func rmsError(_ a: [Float], _ b: [Float]) -> Float {
    (zip(a, b).reduce(Float(0)) { $0 + ($1.0 - $1.1) * ($1.0 - $1.1) } / Float(a.count)).squareRoot()
}

/// Pocket's own k-quant encoders: error bounds, a naive baseline, special inputs, determinism.
@Suite struct KQuantQuantizerTests {
    static func data(_ kind: String, blocks: Int = 16, seed: UInt64 = 7) -> [Float] {
        var random = TestRandom(seed: seed)
        return (0..<(256 * blocks)).map { _ in
            kind == "gaussian" ? 0.02 * random.gaussian() : 2 * random.uniform() - 1
        }
    }

    @Test(arguments: KQuantShape.all)
    func errorStaysWithinOneStepOfTheSuperBlockRange(_ shape: KQuantShape) {
        for kind in ["gaussian", "uniform"] {
            let x = Self.data(kind)
            let y = decode(shape.format, encode(shape.format, x))
            for start in stride(from: 0, to: x.count, by: 256) {
                let block = x[start..<start + 256]
                // One step of a grid stretched over the whole super-block (zero included for
                // the affine formats, whose grid always reaches 0): the sub-block grids are at
                // least that fine, so every weight lies within one such step of its level.
                let range = shape.affine ? max(0, block.max()!) - min(0, block.min()!) : 2 * block.map(abs).max()!
                let worst = (start..<start + 256).map { abs(x[$0] - y[$0]) }.max()!
                #expect(worst <= range / shape.steps, "\(kind) block \(start / 256): \(worst) > \(range / shape.steps)")
            }
        }
    }

    @Test(arguments: KQuantShape.all)
    func beatsTheNaiveEncoder(_ shape: KQuantShape) {
        for kind in ["gaussian", "uniform"] {
            let x = Self.data(kind, blocks: 32, seed: 11)
            let ours = rmsError(x, decode(shape.format, encode(shape.format, x)))
            let naive = rmsError(x, shape.naive(x))
            #expect(ours < naive, "\(shape.format.type) \(kind): ours \(ours), naive \(naive)")
        }
    }

    @Test(arguments: KQuantShape.all)
    func specialInputs(_ shape: KQuantShape) {
        let format = shape.format
        // All zeros decode to zeros.
        #expect(decode(format, encode(format, [Float](repeating: 0, count: 256))).allSatisfy { $0 == 0 })
        // Constants of either sign, and a huge and a tiny scale of random data.
        for c: Float in [0.3, -7] {
            let y = decode(format, encode(format, [Float](repeating: c, count: 256)))
            #expect(y.allSatisfy { abs($0 - c) <= abs(c) / shape.steps }, "\(format.type) constant \(c)")
        }
        for magnitude: Float in [1000, 1e-4] {
            let x = Self.data("uniform", blocks: 2).map { $0 * magnitude }
            let y = decode(format, encode(format, x))
            #expect(y.allSatisfy { $0.isFinite })
            #expect(rmsError(x, y) <= 2 * magnitude / shape.steps, "\(format.type) magnitude \(magnitude)")
        }
        // Beyond what an fp16 super-block factor can hold: documented to decode non-finite.
        let huge = decode(format, encode(format, Self.data("uniform", blocks: 1).map { $0 * 1e12 }))
        #expect(huge.contains { !$0.isFinite })
    }

    @Test(arguments: KQuantShape.all)
    func encodingIsDeterministicAndBlockLocal(_ shape: KQuantShape) {
        let x = Self.data("gaussian", blocks: 4, seed: 3)
        let whole = encode(shape.format, x)
        #expect(encode(shape.format, x) == whole)
        let oneByOne = (0..<4).flatMap { encode(shape.format, Array(x[(256 * $0)..<(256 * $0 + 256)])) }
        #expect(oneByOne == whole)
    }

    @Test func subBlockFitsAreNeverWorseThanTheRangeGrid() {
        var random = TestRandom(seed: 99)
        for _ in 0..<200 {
            var x = (0..<32).map { _ in random.gaussian() }
            if random.next() % 4 == 0 { x[Int(random.next() % 32)] *= 8 }  // an outlier
            x.withUnsafeBufferPointer { p in
                let fit = SubBlockFit.affine(p.baseAddress!, count: 32, levels: 15)
                let low = min(0, x.min()!), high = max(0, x.max()!)
                let rangeError = SubBlockFit.affineError(p.baseAddress!, 32, 15, (high - low) / 15, -low)
                #expect(SubBlockFit.affineError(p.baseAddress!, 32, 15, fit.scale, fit.offset) <= rangeError)
                let s = SubBlockFit.symmetric(p.baseAddress!, count: 32, lowest: -4, highest: 3)
                let extreme = x.max { abs($0) < abs($1) }!
                #expect(SubBlockFit.symmetricError(p.baseAddress!, 32, -4, 3, s)
                        <= SubBlockFit.symmetricError(p.baseAddress!, 32, -4, 3, extreme / -4))
            }
        }
    }
}
