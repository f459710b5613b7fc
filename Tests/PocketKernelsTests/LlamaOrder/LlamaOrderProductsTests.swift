import Foundation
import PocketGGUF
import Testing
@testable import PocketKernels

/// ``LlamaOrderProducts`` computes what the formats' decoders and a float product give, to
/// within the activations' 8-bit rounding, for every batch size's kernel (one token; the
/// four-token groups of Q4_K and their remainder; Q6_K's tiled kernel from eight tokens).
/// Its bit-for-bit agreement with llama.cpp is what `GemmaGoldenTests` checks end to end.
@Suite struct LlamaOrderProductsTests {
    @Test(arguments: [GGMLType.q4_K, .q6_K, .q5_0, .q8_0])
    func productsAgreeWithTheDecodedWeights(type: GGMLType) throws {
        let rows = 24, columns = 512
        let format = try #require(BlockFormats.encoder(for: type))
        var random = TestRandom(seed: 7)
        func value() -> Float { Float(Int(truncatingIfNeeded: random.next() % 2001) - 1000) / 1000 }
        let weights = (0..<(rows * columns)).map { _ in value() }
        let blocks = rows * columns / format.weightsPerBlock
        var bytes = [UInt8](repeating: 0, count: blocks * format.bytesPerBlock)
        weights.withUnsafeBufferPointer { w in
            bytes.withUnsafeMutableBytes { format.quantize(w.baseAddress!, blocks: blocks, into: $0.baseAddress!) }
        }
        let products = LlamaOrderProducts(), pool = ThreadPool(threads: 2)
        try bytes.withUnsafeBytes { raw in
            let matrix = try WeightMatrix(type: type, rows: rows, columns: columns, data: raw.baseAddress!, byteCount: raw.count)
            var decoded = [Float](repeating: 0, count: rows * columns)
            for r in 0..<rows { decoded.withUnsafeMutableBufferPointer { matrix.dequantizeRow(r, into: $0.baseAddress! + r * columns) } }
            for tokens in [1, 3, 6, 9] {
                let x = (0..<(tokens * columns)).map { _ in value() }
                var y = [Float](repeating: .nan, count: tokens * rows)
                x.withUnsafeBufferPointer { xs in
                    y.withUnsafeMutableBufferPointer { products.multiply(matrix, xs.baseAddress!, tokens: tokens, into: $0.baseAddress!, pool: pool) }
                }
                for t in 0..<tokens {
                    for r in 0..<rows {
                        var exact: Double = 0, scale: Double = 0
                        for c in 0..<columns {
                            exact += Double(decoded[r * columns + c]) * Double(x[t * columns + c])
                            scale += abs(Double(decoded[r * columns + c]) * Double(x[t * columns + c]))
                        }
                        // 8-bit activations: each product moves by at most half a step of 1/127.
                        #expect(abs(Double(y[t * rows + r]) - exact) <= scale / 127, "\(type) tokens \(tokens) row \(r): \(y[t * rows + r]) vs \(exact)")
                    }
                }
            }
        }
    }

    @Test func lanesAreSummedAsGGMLsHsumFloat8() {
        // Halves, then pairs, then the two sums: (v4 + v0 + (v6 + v2)) + (v5 + v1 + (v7 + v3)).
        let v = SIMD8<Float>(1e8, 1, -1e8, 1, 1, 1, 1, 1)
        // r0 = 1 + 1e8, r2 = 1 − 1e8 (each rounds away the 1), r1 = r3 = 2: (r0 + r2) + 4 = 4.
        #expect(LlamaOrderProducts.sumOfEightLanes(v) == 4)
    }

    @Test func supportedFormatsAreTheKQuantMixes() {
        #expect(LlamaOrderProducts.supports(.q4_K) && LlamaOrderProducts.supports(.q8_0))
        #expect(!LlamaOrderProducts.supports(.q4_0) && !LlamaOrderProducts.supports(.f32))
    }
}

/// ``LlamaOrderAttention`` and ``RotaryEmbedding/applyFused(to:position:)`` agree with their
/// fast counterparts to within their roundings.
@Suite struct LlamaOrderAttentionTests {
    @Test func attentionAgreesWithTheOnlineSoftmax() {
        let hd = 64, length = 37
        var random = TestRandom(seed: 11)
        func value() -> Float { Float(Int(truncatingIfNeeded: random.next() % 2001) - 1000) / 500 }
        let query = (0..<hd).map { _ in Float(Float16(value())) }
        let keys = (0..<(length * hd)).map { _ in Float16(value()) }
        let values = (0..<(length * hd)).map { _ in Float16(value()) }
        var out = [Float](repeating: .nan, count: hd)
        query.withUnsafeBufferPointer { q in
            keys.withUnsafeBufferPointer { k in
                values.withUnsafeBufferPointer { v in
                    LlamaOrderAttention.attend(
                        query: q.baseAddress!, headDimension: hd, keys: k.baseAddress!, values: v.baseAddress!, rowStride: hd,
                        length: length, scale: 0.125, into: &out)
                }
            }
        }
        // Reference in double precision.
        var scores = (0..<length).map { j in (0..<hd).reduce(0.0) { $0 + Double(query[$1]) * Double(keys[j * hd + $1]) } * 0.125 }
        let top = scores.max()!
        scores = scores.map { exp($0 - top) }
        let total = scores.reduce(0, +)
        for d in 0..<hd {
            let exact = (0..<length).reduce(0.0) { $0 + scores[$1] * Double(values[$1 * hd + d]) } / total
            // The half-precision accumulator keeps 11 bits.
            #expect(abs(Double(out[d]) - exact) < 2e-2, "dimension \(d): \(out[d]) vs \(exact)")
        }
    }

    @Test(arguments: [RoPEStyle.adjacentPairs, .halves])
    func fusedRotationAgreesWithTheTable(style: RoPEStyle) {
        let dims = 64
        let rope = RotaryEmbedding(dimensions: dims, base: 10_000, style: style, positions: 100)
        var random = TestRandom(seed: 5)
        var x = (0..<dims).map { _ in Float(Int(truncatingIfNeeded: random.next() % 2001) - 1000) / 1000 }
        var y = x
        rope.applyFused(to: &x, position: 77)
        rope.apply(to: &y, position: 77)
        for i in 0..<dims { #expect(abs(x[i] - y[i]) <= 1e-6, "dimension \(i)") }
    }
}
