import Foundation
import PocketGGUF
import Testing
@testable import PocketKernels

/// What a 2-bit lattice format looks like, for the tests' own decoding-free references.
struct IQ2Shape: Sendable, CustomTestStringConvertible {
    let format: any ImportanceWeightedFormat.Type
    let grid: [UInt64]
    let codebook: LatticeCodebook
    /// Weights per 4-bit sub-block scale.
    let subBlock: Int
    /// Whether the 8th sign of a group is implied (even number of negatives).
    let evenSigns: Bool
    var testDescription: String { format.type.name }

    static let all = [
        IQ2Shape(format: IQ2_XXS.self, grid: IQGrids.iq2xxs, codebook: .iq2xxs, subBlock: 32, evenSigns: true),
        IQ2Shape(format: IQ2_XS.self, grid: IQGrids.iq2xs, codebook: .iq2xs, subBlock: 16, evenSigns: true),
        IQ2Shape(format: IQ2_S.self, grid: IQGrids.iq2s, codebook: .iq2s, subBlock: 16, evenSigns: false),
    ]

    func magnitudes(_ g: Int) -> [Float] { (0..<8).map { Float(UInt8(truncatingIfNeeded: grid[g] >> UInt64(8 * $0))) } }

    /// The least weighted error of any codebook point with any allowed signs for the 8 weights
    /// `x` at scale `dl`: every point, every sign pattern (2⁸, or the 2⁷ with an even count of
    /// negatives), in Double.
    func bruteForceError(_ x: ArraySlice<Float>, _ w: ArraySlice<Float>, scale dl: Float) -> Double {
        let x = Array(x), w = Array(w)
        var best = Double.infinity
        for g in 0..<grid.count {
            let m = magnitudes(g)
            for signs in 0..<256 where !evenSigns || signs.nonzeroBitCount % 2 == 0 {
                var e = 0.0
                for j in 0..<8 {
                    let v = Double(dl * m[j]) * ((signs >> j) & 1 == 0 ? 1 : -1)
                    e += Double(w[j]) * (v - Double(x[j])) * (v - Double(x[j]))
                }
                best = min(best, e)
            }
        }
        return best
    }

    /// A simple encoder, simulated in floats: each sub-block's scale puts its largest magnitude
    /// on the lattice's largest level 43; d maps the largest of those to level 15 (fp16); each
    /// group takes the point nearest in unweighted squared error (brute force) with the signs
    /// of x, an odd count fixed by flipping the smallest |x|·G. Returns the decoded weights.
    func baseline(_ x: [Float]) -> [Float] {
        var out = [Float](repeating: 0, count: x.count)
        for start in stride(from: 0, to: x.count, by: 256) {
            let scales = (0..<(256 / subBlock)).map { k in
                x[(start + k * subBlock)..<(start + (k + 1) * subBlock)].map(abs).max()! / 43
            }
            let d = Float(Float16(scales.max()! / 3.875))
            for k in 0..<scales.count {
                let level = d == 0 ? 0 : min(max((scales[k] / (0.25 * d) - 0.5).rounded(), 0), 15)
                let dl = d * (0.5 + level) * 0.25
                for l in stride(from: start + k * subBlock, to: start + (k + 1) * subBlock, by: 8) {
                    let a = x[l..<(l + 8)].map(abs)
                    var bestG = 0, bestE = Float.infinity
                    for g in 0..<grid.count {
                        let m = magnitudes(g)
                        var e: Float = 0
                        for j in 0..<8 { e += (a[j] - dl * m[j]) * (a[j] - dl * m[j]) }
                        if e < bestE { bestE = e; bestG = g }
                    }
                    let m = magnitudes(bestG)
                    var negative = (0..<8).map { x[l + $0] < 0 }
                    if evenSigns && negative.filter({ $0 }).count % 2 == 1 {
                        let j = (0..<8).min { a[$0] * m[$0] < a[$1] * m[$1] }!
                        negative[j].toggle()
                    }
                    for j in 0..<8 { out[l + j] = dl * m[j] * (negative[j] ? -1 : 1) }
                }
            }
        }
        return out
    }

    /// Random valid blocks whose d is a normal fp16 around 1e-3…1e-2 and whose largest
    /// sub-block level is 15 (the encoder's canonical d: any other block has an equivalent one
    /// of this form only when its levels allow).
    func randomBlocks(_ count: Int, _ random: inout TestRandom) -> [UInt8] {
        let size = format.bytesPerBlock
        var bytes = (0..<(count * size)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        for b in 0..<count {
            let d = Float16(0.001 + 0.009 * random.uniform())
            bytes[b * size] = UInt8(d.bitPattern & 0xFF)
            bytes[b * size + 1] = UInt8(d.bitPattern >> 8)
            switch format.type {
            case .iq2_xxs: bytes[b * size + 2 + 8 * Int(random.next() % 8) + 7] |= 0xF0  // aux bits 28…31
            case .iq2_xs: bytes[b * size + 66 + Int(random.next() % 8)] |= 0x0F
            default: bytes[b * size + 74 + Int(random.next() % 8)] |= 0xF0
            }
        }
        return bytes
    }
}

/// `x` encoded by `format` with importance `w`, into bytes pre-filled with 0xAA (so a byte the
/// encoder leaves unwritten shows).
func weightedEncode(_ format: any ImportanceWeightedFormat.Type, _ x: [Float], _ w: [Float]?) -> [UInt8] {
    let blocks = x.count / format.weightsPerBlock
    var bytes = [UInt8](repeating: 0xAA, count: blocks * format.bytesPerBlock)
    x.withUnsafeBufferPointer { xp in
        bytes.withUnsafeMutableBytes { out in
            if let w {
                w.withUnsafeBufferPointer { format.quantize(xp.baseAddress!, importance: $0.baseAddress, blocks: blocks, into: out.baseAddress!) }
            } else {
                format.quantize(xp.baseAddress!, importance: nil, blocks: blocks, into: out.baseAddress!)
            }
        }
    }
    return bytes
}

func weightedSquaredError(_ x: [Float], _ y: [Float], _ w: [Float]) -> Double {
    var total = 0.0
    for i in 0..<x.count {
        let e = Double(x[i] - y[i])
        total += Double(w[i]) * e * e
    }
    return total
}

/// Pocket's own 2-bit lattice encoders (IQ2_XXS, IQ2_XS, IQ2_S).
@Suite struct IQ2QuantizerTests {
    static func gaussian(_ count: Int, seed: UInt64) -> [Float] {
        var random = TestRandom(seed: seed)
        return (0..<count).map { _ in 0.02 * random.gaussian() }
    }

    /// Per-column importances over four orders of magnitude, repeated for every row of `columns`.
    static func importance(_ count: Int, columns: Int, seed: UInt64) -> [Float] {
        var random = TestRandom(seed: seed)
        let row = (0..<columns).map { _ in Float(pow(10, Double(4 * random.uniform() - 2))) }
        return (0..<count).map { row[$0 % columns] }
    }

    @Test(arguments: IQ2Shape.all)
    func decodedBlocksReencodeExactly(_ shape: IQ2Shape) {
        var random = TestRandom(seed: 21)
        let x = decode(shape.format, shape.randomBlocks(16, &random))
        let y = decode(shape.format, weightedEncode(shape.format, x, nil))
        let scale = x.map(abs).max()!
        let worst = zip(x, y).map { abs($0 - $1) }.max()!
        #expect(worst <= 1e-6 * scale, "\(shape.format.type.name): worst \(worst) of \(scale)")
    }

    @Test(arguments: IQ2Shape.all)
    func beatsTheBaselineAndUsesImportance(_ shape: IQ2Shape) {
        let n = 256 * 16, columns = 512
        let x = Self.gaussian(n, seed: 5), w = Self.importance(n, columns: columns, seed: 6)
        let weighted = weightedSquaredError(x, decode(shape.format, weightedEncode(shape.format, x, w)), w)
        let unweighted = weightedSquaredError(x, decode(shape.format, weightedEncode(shape.format, x, nil)), w)
        let baseline = weightedSquaredError(x, shape.baseline(x), w)
        #expect(weighted < unweighted, "\(shape.format.type.name): weighted \(weighted), unweighted \(unweighted)")
        #expect(unweighted < baseline, "\(shape.format.type.name): unweighted \(unweighted), baseline \(baseline)")
        // Unweighted, the encoder also beats the baseline on plain squared error.
        let ones = [Float](repeating: 1, count: n)
        let plain = weightedSquaredError(x, decode(shape.format, weightedEncode(shape.format, x, nil)), ones)
        #expect(plain < weightedSquaredError(x, shape.baseline(x), ones))
        // The columns that matter most are encoded better with importance than without.
        let top = (0..<columns).sorted { w[$0] > w[$1] }.prefix(columns / 16)
        let topWeights = (0..<n).map { top.contains($0 % columns) ? Float(1) : 0 }
        let topWeighted = weightedSquaredError(x, decode(shape.format, weightedEncode(shape.format, x, w)), topWeights)
        let topUnweighted = weightedSquaredError(x, decode(shape.format, weightedEncode(shape.format, x, nil)), topWeights)
        #expect(topWeighted < 0.8 * topUnweighted, "\(shape.format.type.name): \(topWeighted) vs \(topUnweighted)")
    }

    @Test(arguments: IQ2Shape.all)
    func everyGroupIsTheBestPointForItsDecodedScale(_ shape: IQ2Shape) {
        let n = 256 * 2
        let x = Self.gaussian(n, seed: 8), w = Self.importance(n, columns: 256, seed: 9)
        let bytes = weightedEncode(shape.format, x, w)
        let y = decode(shape.format, bytes)
        for l in stride(from: 0, to: n, by: 8) {
            // The group's decoded scale: its largest decoded magnitude over the point's largest
            // magnitude is not enough (the point is unknown), so read d and the level.
            let block = (l / 256) * shape.format.bytesPerBlock
            let d = Float(Float16(bitPattern: UInt16(bytes[block]) | UInt16(bytes[block + 1]) << 8))
            let k = (l % 256) / shape.subBlock
            let level: UInt8 = switch shape.format.type {
            case .iq2_xxs: bytes[block + 2 + 8 * k + 7] >> 4
            case .iq2_xs: (bytes[block + 66 + k / 2] >> (4 * UInt8(k % 2))) & 15
            default: (bytes[block + 74 + k / 2] >> (4 * UInt8(k % 2))) & 15
            }
            let dl = d * (0.5 + Float(level)) * 0.25
            var chosen = 0.0
            for j in l..<(l + 8) {
                let e = Double(y[j]) - Double(x[j])
                chosen += Double(w[j]) * e * e
            }
            let best = shape.bruteForceError(x[l..<(l + 8)], w[l..<(l + 8)], scale: dl)
            #expect(chosen <= best * (1 + 1e-5) + 1e-12, "\(shape.format.type.name) group \(l / 8): \(chosen) > \(best)")
        }
    }

    @Test(arguments: IQ2Shape.all)
    func simdSearchIsTheScalarSearch(_ shape: IQ2Shape) {
        var random = TestRandom(seed: 13)
        shape.codebook.withSearch { search in
            for trial in 0..<300 {
                var x = (0..<8).map { _ in random.gaussian() }
                var w = (0..<8).map { _ in random.uniform() }
                if trial % 10 == 0 { w[Int(random.next() % 8)] = 0 }
                if trial % 7 == 0 { x[Int(random.next() % 8)] = 0 }
                let group = x.withUnsafeBufferPointer { xp in
                    w.withUnsafeBufferPointer { LatticeGroup(xp.baseAddress!, $0.baseAddress!) }
                }
                let scale = (0.01 + 0.1 * random.uniform())
                #expect(search.nearest(group, scale: scale) == search.nearestScalar(group, scale: scale))
            }
        }
    }

    @Test(arguments: IQ2Shape.all)
    func specialInputsDoNotTrap(_ shape: IQ2Shape) {
        let format = shape.format
        #expect(decode(format, weightedEncode(format, [Float](repeating: 0, count: 256), nil)).allSatisfy { $0 == 0 })
        var x = Self.gaussian(512, seed: 4)
        x[3] = .nan; x[100] = .infinity; x[300] = -.infinity
        #expect(weightedEncode(format, x, nil).count == 2 * format.bytesPerBlock)
        var w = Self.importance(512, columns: 512, seed: 1)
        w[7] = .nan; w[8] = -1; w[9] = .infinity
        let clean = Self.gaussian(512, seed: 4)
        #expect(decode(format, weightedEncode(format, clean, w)).count == 512)
        // A constant (not a lattice point: the codebooks hold no group of 8 equal magnitudes)
        // is encoded no worse than by the baseline.
        let constant = [Float](repeating: -0.3, count: 256), ones = [Float](repeating: 1, count: 256)
        let y = decode(format, weightedEncode(format, constant, nil))
        #expect(weightedSquaredError(constant, y, ones) <= weightedSquaredError(constant, shape.baseline(constant), ones),
                "\(format.type.name): \(y.prefix(8))")
    }

    @Test(arguments: IQ2Shape.all)
    func encodingIsDeterministicAndBlockLocal(_ shape: IQ2Shape) {
        let x = Self.gaussian(256 * 3, seed: 3), w = Self.importance(256 * 3, columns: 256, seed: 2)
        let whole = weightedEncode(shape.format, x, w)
        #expect(weightedEncode(shape.format, x, w) == whole)
        var oneByOne = [UInt8]()
        for b in 0..<3 {
            let range = (256 * b)..<(256 * b + 256)
            oneByOne += weightedEncode(shape.format, Array(x[range]), Array(w[range]))
        }
        #expect(oneByOne == whole)
    }

    @Test func encodersAreListedWithLlamaFileTypes() {
        #expect(BlockFormats.weightedEncoder(for: .iq2_xxs) != nil)
        #expect(BlockFormats.weightedEncoder(for: .iq2_xs) != nil)
        #expect(BlockFormats.weightedEncoder(for: .iq2_s) != nil)
        // gguf's LlamaFileType: MOSTLY_IQ2_XXS 19, MOSTLY_IQ2_XS 20, MOSTLY_IQ2_S 28, MOSTLY_IQ2_M 29.
        #expect(IQ2_XXS.fileTypes == (19, 19))
        #expect(IQ2_XS.fileTypes == (20, 20))
        #expect(IQ2_S.fileTypes == (28, 29))
    }
}
