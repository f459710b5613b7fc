import Foundation
import PocketGGUF
import Testing
@testable import PocketKernels

/// One i-quant encoder under test, with what the tests need to know of its format.
struct IQuantCase: Sendable, CustomTestStringConvertible {
    let format: any ImportanceWeightedFormat.Type
    var testDescription: String { format.type.name }

    static let all = [IQuantCase(format: IQ4_NL.self), IQuantCase(format: IQ4_XS.self),
                      IQuantCase(format: IQ3_XXS.self), IQuantCase(format: IQ3_S.self)]

    /// `blocks` random blocks as the encoder could write them: the extreme codebook entry
    /// present in every (sub-)block and the largest sub-block scale at the end of its range,
    /// everything else random.
    func randomValidBlocks(_ blocks: Int, _ random: inout TestRandom) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: blocks * format.bytesPerBlock)
        func half(_ magnitude: Float) -> [UInt8] {
            let value = Float16(magnitude * (0.5 + random.uniform()))
            return [UInt8(value.bitPattern & 0xFF), UInt8(value.bitPattern >> 8)]
        }
        for b in 0..<blocks {
            let o = b * format.bytesPerBlock
            for i in 0..<format.bytesPerBlock { bytes[o + i] = UInt8(truncatingIfNeeded: random.next()) }
            switch format.type {
            case .iq4_nl:
                bytes.replaceSubrange(o..<o + 2, with: half(random.next() % 2 == 0 ? 0.001 : -0.001))
                bytes[o + 2 + Int(random.next() % 16)] &= 0xF0  // entry −127 in this block
            case .iq4_xs:
                bytes.replaceSubrange(o..<o + 2, with: half(random.next() % 2 == 0 ? 1e-4 : -1e-4))
                let top = Int(random.next() % 8)  // ls = 0, i.e. scale −32
                bytes[o + 4 + top / 2] &= top % 2 == 0 ? 0xF0 : 0x0F
                bytes[o + 2 + top / 4] &= ~UInt8(3 << (2 * (top % 4)))
                for ib in 0..<8 { bytes[o + 8 + 16 * ib + Int(random.next() % 16)] &= 0xF0 }
            case .iq3_xxs:
                bytes.replaceSubrange(o..<o + 2, with: half(1e-3))
                let top = Int(random.next() % 8)  // ls = 15
                bytes[o + 66 + 4 * top + 3] |= 0xF0
            case .iq3_s:
                bytes.replaceSubrange(o..<o + 2, with: half(1e-3))
                let top = Int(random.next() % 8)
                bytes[o + 106 + top / 2] |= top % 2 == 0 ? 0x0F : 0xF0
            default:
                fatalError("not an i-quant case")
            }
        }
        return bytes
    }

    /// The obvious encoder, simulated in floats and returning the decoded weights: scales from
    /// the largest weight (mapped to the codebook's end), sub-block scales rounded against a
    /// factor that maps the largest to the end of their range, then for each weight (group)
    /// the nearest value (point, by brute force) under those scales; IQ3_XXS flips the sign of
    /// the smallest weight of an odd 8-weight sign pattern.
    func naive(_ x: [Float]) -> [Float] {
        var y = [Float](repeating: 0, count: x.count)
        let n = format.weightsPerBlock
        for start in stride(from: 0, to: x.count, by: n) {
            let sub = Array(x[start..<start + n])
            switch format.type {
            case .iq4_nl:
                let d = Float(Float16(extreme(sub) / -127))
                for i in 0..<32 { y[start + i] = nearestEntry(sub[i], d) }
            case .iq4_xs:
                let scales = (0..<8).map { extreme(Array(sub[32 * $0..<32 * $0 + 32])) / -127 }
                let d = Float(Float16(extreme(scales) / -32))
                for ib in 0..<8 {
                    let l = d == 0 ? 0 : min(max((scales[ib] / d).rounded(), -32), 31)
                    for i in 0..<32 { y[start + 32 * ib + i] = nearestEntry(sub[32 * ib + i], d * l) }
                }
            case .iq3_xxs, .iq3_s:
                let xxs = format.type == .iq3_xxs
                let top: Float = xxs ? 62 : 15
                let scales = (0..<8).map { ib in sub[32 * ib..<32 * ib + 32].map(abs).max()! / top }
                let d = Float(Float16(scales.max()! / (xxs ? 7.75 : 31)))
                for ib in 0..<8 {
                    let ls = d == 0 ? 0 : min(max(xxs ? (scales[ib] / (d / 2) - 0.5).rounded() : ((scales[ib] / d - 1) / 2).rounded(), 0), 15)
                    let db = xxs ? d * (0.5 + ls) * 0.5 : d * (1 + 2 * ls)
                    for g in 0..<8 {
                        let o = 32 * ib + 4 * g
                        let p = IQuantCase.bestPoint(Array(sub[o..<o + 4]), [Float](repeating: 1, count: 4), db, xxs)
                        let m = IQuantCase.magnitudes(p, xxs)
                        for k in 0..<4 { y[start + o + k] = (sub[o + k] < 0 ? -1 : 1) * db * m[k] }
                    }
                    if xxs {
                        for h in 0..<4 {
                            let range = (start + 32 * ib + 8 * h)..<(start + 32 * ib + 8 * h + 8)
                            if range.filter({ x[$0] < 0 }).count % 2 == 1 {
                                let smallest = range.min { abs(x[$0]) < abs(x[$1]) }!
                                y[smallest] = -y[smallest]
                            }
                        }
                    }
                }
            default:
                fatalError("not an i-quant case")
            }
        }
        return y
    }

    func extreme(_ x: [Float]) -> Float { x.max { abs($0) < abs($1) }! }

    func nearestEntry(_ x: Float, _ d: Float) -> Float {
        IQ4_NL.codebook.map { d * Float($0) }.min { abs($0 - x) < abs($1 - x) }!
    }

    /// The 4 magnitudes of point `p` of IQ3_XXS's (`xxs`) or IQ3_S's codebook.
    static func magnitudes(_ p: Int, _ xxs: Bool) -> [Float] {
        let point = xxs ? IQGrids.iq3xxs[p] : IQGrids.iq3s[p]
        return (0..<4).map { Float(point >> UInt32(8 * $0) & 0xFF) }
    }

    /// The point with the least weighted error for 4 weights at scale `db`, natural signs, by
    /// brute force in double precision.
    static func bestPoint(_ x: [Float], _ w: [Float], _ db: Float, _ xxs: Bool) -> Int {
        (0..<(xxs ? 256 : 512)).min { groupError(x, w, db, $0, xxs) < groupError(x, w, db, $1, xxs) }!
    }

    static func groupError(_ x: [Float], _ w: [Float], _ db: Float, _ p: Int, _ xxs: Bool) -> Double {
        let m = magnitudes(p, xxs)
        return (0..<4).reduce(0.0) { sum, k in
            let e = Double(abs(x[k])) - Double(db * m[k])
            return sum + Double(w[k]) * e * e
        }
    }
}

/// Pocket's own i-quant encoders (IQ4_NL, IQ4_XS, IQ3_XXS, IQ3_S).
@Suite struct IQuantQuantizerTests {
    static func gaussian(_ count: Int, seed: UInt64) -> [Float] {
        var random = TestRandom(seed: seed)
        return (0..<count).map { i in 0.02 * random.gaussian() * (i % 53 == 0 ? 5 : 1) }
    }

    static func encode(_ format: any ImportanceWeightedFormat.Type, _ x: [Float], _ w: [Float]?) -> [UInt8] {
        ImportanceWeightedQuantizerTests.encode(format, x, w)
    }

    @Test(arguments: IQuantCase.all)
    func decodedValidBlocksReEncodeToTheSameValues(_ c: IQuantCase) {
        var random = TestRandom(seed: 21)
        let blocks = 64
        let y = decode(c.format, c.randomValidBlocks(blocks, &random))
        let z = decode(c.format, Self.encode(c.format, y, nil))
        var exact = 0
        for b in 0..<blocks {
            let range = (b * c.format.weightsPerBlock)..<((b + 1) * c.format.weightsPerBlock)
            let largest = range.map { abs(y[$0]) }.max()!
            // Identical up to float rounding of the scales.
            if range.allSatisfy({ abs(z[$0] - y[$0]) <= 1e-5 * largest }) { exact += 1 }
        }
        #expect(exact == blocks, "\(c.format.type.name): \(exact) of \(blocks) blocks reproduced")
    }

    @Test(arguments: IQuantCase.all)
    func beatsTheNaiveEncoder(_ c: IQuantCase) {
        let x = Self.gaussian(256 * 16, seed: 5)
        let ours = rmsError(x, decode(c.format, Self.encode(c.format, x, nil)))
        let naive = rmsError(x, c.naive(x))
        #expect(ours < naive, "\(c.format.type.name): ours \(ours), naive \(naive)")
    }

    /// With the stored scales fixed, no other codebook entry or point (and, for IQ3_XXS, no
    /// other sign pattern of even parity) has a smaller weighted error: a brute-force scalar
    /// search in double precision over every choice.
    @Test(arguments: IQuantCase.all)
    func chosenValuesAreOptimalForTheStoredScales(_ c: IQuantCase) {
        let n = 256 * 2
        let x = Self.gaussian(n, seed: 9)
        let w = ImportanceWeightedQuantizerTests.importance(n, seed: 9)
        let bytes = Self.encode(c.format, x, w)
        let y = decode(c.format, bytes)
        func chosen(_ range: Range<Int>) -> Double {
            range.reduce(0.0) { $0 + Double(w[$1]) * (Double(x[$1]) - Double(y[$1])) * (Double(x[$1]) - Double(y[$1])) }
        }
        var worse = 0, checked = 0
        bytes.withUnsafeBytes { raw in
            for b in 0..<(n / c.format.weightsPerBlock) {
                let block = raw.baseAddress! + b * c.format.bytesPerBlock
                let o = b * c.format.weightsPerBlock
                switch c.format.type {
                case .iq4_nl, .iq4_xs:
                    for ib in 0..<(c.format.weightsPerBlock / 32) {
                        let dl = c.format.type == .iq4_nl
                            ? block.loadHalf(at: 0) : block.loadHalf(at: 0) * Float(IQ4_XS.subBlockScale(block, ib))
                        for i in (o + 32 * ib)..<(o + 32 * ib + 32) {
                            let best = IQ4_NL.codebook.map { Double(w[i]) * pow(Double(x[i]) - Double(dl * Float($0)), 2) }.min()!
                            checked += 1
                            if chosen(i..<i + 1) > best * (1 + 1e-5) + 1e-18 { worse += 1 }
                        }
                    }
                case .iq3_s:
                    for ib in 0..<8 {
                        let db = block.loadHalf(at: 0) * Float(1 + 2 * IQ3_S.subBlockScale(block, ib))
                        for g in 0..<8 {
                            let r = (o + 32 * ib + 4 * g)..<(o + 32 * ib + 4 * g + 4)
                            let p = IQuantCase.bestPoint(Array(x[r]), Array(w[r]), db, false)
                            checked += 1
                            if chosen(r) > IQuantCase.groupError(Array(x[r]), Array(w[r]), db, p, false) * (1 + 1e-5) + 1e-18 { worse += 1 }
                        }
                    }
                case .iq3_xxs:
                    let signs = IQGrids.signs.withUnsafeBufferPointer { ksigns in (0..<8).map { IQ3_XXS.signWord(block, $0, ksigns).scale } }
                    for ib in 0..<8 {
                        let db = block.loadHalf(at: 0) * (0.5 + Float(signs[ib])) * 0.5
                        for h in 0..<4 {
                            let r = (o + 32 * ib + 8 * h)..<(o + 32 * ib + 8 * h + 8)
                            checked += 1
                            if chosen(r) > Self.bruteForceEven(Array(x[r]), Array(w[r]), db) * (1 + 1e-5) + 1e-18 { worse += 1 }
                        }
                    }
                default:
                    fatalError("not an i-quant case")
                }
            }
        }
        #expect(checked > 0)
        #expect(worse == 0, "\(c.format.type.name): \(worse) of \(checked) choices beaten by brute force")
    }

    /// The least weighted error of 8 weights as two IQ3_XXS points at scale `db` with an even
    /// number of minus signs: every pair of points; each weight's own sign, and when those are
    /// odd, every single weight flipped (flipping three or more only adds error).
    static func bruteForceEven(_ x: [Float], _ w: [Float], _ db: Float) -> Double {
        let odd = x.filter { $0 < 0 }.count % 2 == 1
        let points = (0..<256).map { IQuantCase.magnitudes($0, true) }
        var best = Double.infinity
        for p1 in 0..<256 {
            for p2 in 0..<256 {
                let m = points[p1] + points[p2]
                var error = 0.0, cheapestFlip = Double.infinity
                for i in 0..<8 {
                    let ax = Double(abs(x[i])), v = Double(db * m[i])
                    error += Double(w[i]) * (ax - v) * (ax - v)
                    cheapestFlip = min(cheapestFlip, Double(w[i]) * ((ax + v) * (ax + v) - (ax - v) * (ax - v)))
                }
                best = min(best, odd ? error + cheapestFlip : error)
            }
        }
        return best
    }

    @Test(arguments: IQuantCase.all)
    func specialInputs(_ c: IQuantCase) {
        let n = c.format.weightsPerBlock
        #expect(decode(c.format, Self.encode(c.format, [Float](repeating: 0, count: n), nil)).allSatisfy { $0 == 0 })
        // Non-finite weights and importances: no trap, a block of the right size.
        var x = Self.gaussian(256, seed: 4)
        x[3] = .nan; x[100] = .infinity; x[200] = -.infinity
        var w = [Float](repeating: 1, count: 256)
        w[7] = .nan; w[8] = .infinity
        #expect(Self.encode(c.format, x, w).count == 256 / n * c.format.bytesPerBlock)
        #expect(Self.encode(c.format, x, nil).count == 256 / n * c.format.bytesPerBlock)
        // Tiny and large magnitudes stay finite and close.
        for magnitude: Float in [1e-4, 100] {
            let y = Self.gaussian(256, seed: 6).map { $0 * magnitude }
            let z = decode(c.format, Self.encode(c.format, y, nil))
            #expect(z.allSatisfy { $0.isFinite })
            let zeros = [Float](repeating: 0, count: 256)
            let error: Float = rmsError(y, z), scale: Float = rmsError(y, zeros)
            #expect(error < 0.5 * scale, "\(c.format.type.name) × \(magnitude)")
        }
    }

    @Test(arguments: IQuantCase.all)
    func encodingIsDeterministicAndBlockLocal(_ c: IQuantCase) {
        let x = Self.gaussian(256 * 4, seed: 3)
        let w = ImportanceWeightedQuantizerTests.importance(256 * 4, seed: 3)
        let whole = Self.encode(c.format, x, w)
        #expect(Self.encode(c.format, x, w) == whole)
        var oneByOne = [UInt8]()
        for b in 0..<4 {
            let range = (256 * b)..<(256 * b + 256)
            oneByOne += Self.encode(c.format, Array(x[range]), Array(w[range]))
        }
        #expect(oneByOne == whole)
    }

    @Test func iQuantEncodersAreListed() {
        for type in [GGMLType.iq4_nl, .iq4_xs, .iq3_xxs, .iq3_s] {
            #expect(BlockFormats.weightedEncoder(for: type) != nil, "\(type)")
            #expect(BlockFormats.encoders.contains { $0.type == type }, "\(type)")
        }
    }
}
