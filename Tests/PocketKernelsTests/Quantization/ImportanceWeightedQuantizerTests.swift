import Foundation
import PocketGGUF
import Testing
@testable import PocketKernels

/// Importance-weighted encoding: the weights really steer the scale search, and absent or
/// uniform weights change nothing.
@Suite struct ImportanceWeightedQuantizerTests {
    static let formats: [any ImportanceWeightedFormat.Type] = [
        Q2_K.self, Q3_K.self, Q4_K.self, Q6_K.self, Q4_0.self, Q4_1.self, Q5_0.self,
        IQ2_XXS.self, IQ2_XS.self, IQ2_S.self, IQ4_NL.self, IQ4_XS.self, IQ3_XXS.self, IQ3_S.self,
    ]
    static let kQuants: [any ImportanceWeightedFormat.Type] = [Q2_K.self, Q3_K.self, Q4_K.self, Q6_K.self]

    /// Deterministic weight-like values: roughly Gaussian with a few outliers.
    static func weights(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        func uniform() -> Float {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24)
        }
        return (0..<count).map { i in
            let g = (uniform() + uniform() + uniform() + uniform() - 2) * 0.05
            return i % 61 == 0 ? g * 6 : g
        }
    }

    /// Importance spanning four orders of magnitude, like real activation statistics: a few
    /// columns dominate.
    static func importance(_ count: Int, seed: UInt64) -> [Float] {
        weights(count, seed: seed &+ 99).enumerated().map { i, v in
            (i % 17 == 3 ? 100 : 1) * (0.01 + abs(v) * 20)
        }
    }

    static func encode(_ format: any ImportanceWeightedFormat.Type, _ x: [Float], _ w: [Float]?) -> [UInt8] {
        weightedEncode(format, x, w)
    }

    static func decode(_ format: any ImportanceWeightedFormat.Type, _ bytes: [UInt8], count: Int) -> [Float] {
        var out = [Float](repeating: 0, count: count)
        bytes.withUnsafeBytes { b in
            out.withUnsafeMutableBufferPointer { format.dequantize(b.baseAddress!, blocks: count / format.weightsPerBlock, into: $0.baseAddress!) }
        }
        return out
    }

    static func weightedError(_ x: [Float], _ y: [Float], _ w: [Float]) -> Double {
        zip(zip(x, y), w).reduce(0) { sum, item in
            let d = Double(item.0.1) - Double(item.0.0)
            return sum + Double(item.1) * d * d
        }
    }

    @Test(arguments: formats.map { ObjectIdentifier($0) })
    func weightedEncoderBeatsUnweightedOnWeightedError(_ id: ObjectIdentifier) {
        let format = Self.formats.first { ObjectIdentifier($0) == id }!
        let n = 256 * 32
        var weighted = 0.0, unweighted = 0.0
        for seed in 1...4 as ClosedRange<UInt64> {
            let x = Self.weights(n, seed: seed), w = Self.importance(n, seed: seed)
            weighted += Self.weightedError(x, Self.decode(format, Self.encode(format, x, w), count: n), w)
            unweighted += Self.weightedError(x, Self.decode(format, Self.encode(format, x, nil), count: n), w)
        }
        // Clearly better, not a rounding accident.
        #expect(weighted < 0.97 * unweighted, "\(format.type.name): weighted \(weighted) vs unweighted \(unweighted)")
    }

    @Test(arguments: kQuants.map { ObjectIdentifier($0) })
    func kQuantsWithoutImportanceAreTheUnweightedEncoderByteForByte(_ id: ObjectIdentifier) {
        let format = Self.kQuants.first { ObjectIdentifier($0) == id }!
        let x = Self.weights(256 * 8, seed: 7)
        var plain = [UInt8](repeating: 0, count: 8 * format.bytesPerBlock)
        x.withUnsafeBufferPointer { xp in
            plain.withUnsafeMutableBytes { format.quantize(xp.baseAddress!, blocks: 8, into: $0.baseAddress!) }
        }
        #expect(Self.encode(format, x, nil) == plain)
    }

    @Test(arguments: formats.map { ObjectIdentifier($0) })
    func uniformImportanceIsNoImportanceByteForByte(_ id: ObjectIdentifier) {
        let format = Self.formats.first { ObjectIdentifier($0) == id }!
        let x = Self.weights(256 * 8, seed: 11)
        #expect(Self.encode(format, x, [Float](repeating: 1, count: x.count)) == Self.encode(format, x, nil))
    }

    @Test(arguments: [ObjectIdentifier(Q4_0.self), ObjectIdentifier(Q4_1.self), ObjectIdentifier(Q5_0.self)])
    func searchedBlockFormatsAreNoWorseThanTheReference(_ id: ObjectIdentifier) {
        let format = Self.formats.first { ObjectIdentifier($0) == id }!
        let n = 256 * 16
        let x = Self.weights(n, seed: 5), ones = [Float](repeating: 1, count: n)
        var reference = [UInt8](repeating: 0, count: n / format.weightsPerBlock * format.bytesPerBlock)
        x.withUnsafeBufferPointer { xp in
            reference.withUnsafeMutableBytes { format.quantize(xp.baseAddress!, blocks: n / format.weightsPerBlock, into: $0.baseAddress!) }
        }
        let searched = Self.weightedError(x, Self.decode(format, Self.encode(format, x, nil), count: n), ones)
        let plain = Self.weightedError(x, Self.decode(format, reference, count: n), ones)
        #expect(searched < plain, "\(format.type.name): searched \(searched) vs reference \(plain)")
    }

    @Test func weightedEncodersAreListed() {
        #expect(BlockFormats.weightedEncoder(for: .q2_K) != nil)
        #expect(BlockFormats.weightedEncoder(for: .q4_1) != nil)
        #expect(BlockFormats.weightedEncoder(for: .q8_0) == nil)
        #expect(BlockFormats.weightedEncoder(for: .f16) == nil)
    }
}
