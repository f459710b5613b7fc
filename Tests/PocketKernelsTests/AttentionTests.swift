import Foundation
import PocketKernels
import Testing

/// ``Attention``'s two-pass implementation against the one-pass online softmax it replays and
/// against an exact softmax in double precision.
@Suite struct AttentionTests {
    struct Case {
        let group: Int, hd: Int, length: Int, rowStride: Int
        var queries: [Float], keys: [Float16], values: [Float16]

        init(hd: Int, length: Int, seed: UInt64, spread: Float = 1, group: Int = 3) {
            self.group = group
            self.hd = hd
            self.length = length
            rowStride = 2 * hd + 8   // two key/value heads' rows plus padding, like the cache
            var rng = TestRandom(seed: seed)
            queries = (0..<(group * hd)).map { _ in Float(Float16(Float.random(in: -spread...spread, using: &rng))) }
            keys = (0..<(length * rowStride)).map { _ in Float16(Float.random(in: -spread...spread, using: &rng)) }
            values = (0..<(length * rowStride)).map { _ in Float16(Float.random(in: -1...1, using: &rng)) }
        }

        /// All heads of the group in one call, or (`oneHeadAtATime`) one call per head.
        func attend(halfPrecision: Bool, oneHeadAtATime: Bool = false) -> [Float] {
            var out = [Float](repeating: .nan, count: group * hd)
            let heads = oneHeadAtATime ? 1 : group
            // One float past an allocation's start: the kernel must not assume vector alignment.
            let allocation = UnsafeMutablePointer<Float>.allocate(capacity: Attention.Scratch.count(heads: heads, headDimension: hd) + 1)
            defer { allocation.deallocate() }
            let scratch = allocation + 1
            queries.withUnsafeBufferPointer { q in
                keys.withUnsafeBufferPointer { k in
                    values.withUnsafeBufferPointer { v in
                        out.withUnsafeMutableBufferPointer { o in
                            // The heads of the group share one key/value head.
                            for first in stride(from: 0, to: group, by: heads) {
                                Attention.attend(
                                    queries: q.baseAddress! + first * hd, heads: heads, headDimension: hd,
                                    keys: k.baseAddress! + hd, values: v.baseAddress! + hd, rowStride: rowStride,
                                    length: length, scale: 1 / Float(hd).squareRoot(), halfPrecision: halfPrecision,
                                    scratch: Attention.Scratch(scratch), into: o.baseAddress! + first * hd)
                            }
                        }
                    }
                }
            }
            return out
        }

        /// The positions cut into `parts` ranges (the last ones may be empty), each accumulated
        /// separately for all heads, then merged.
        func attendSplit(parts: Int) -> [Float] {
            var out = [Float](repeating: .nan, count: group * hd)
            let scratch = UnsafeMutablePointer<Float>.allocate(capacity: Attention.Scratch.count(heads: group, headDimension: hd))
            let states = UnsafeMutablePointer<Float>.allocate(capacity: parts * group * (hd + 2))
            defer { scratch.deallocate(); states.deallocate() }
            let chunk = (length + parts - 1) / parts
            let merged = Attention.PartialState(
                accumulators: states, maxima: states + parts * group * hd, sums: states + parts * group * (hd + 1))
            queries.withUnsafeBufferPointer { q in
                keys.withUnsafeBufferPointer { k in
                    values.withUnsafeBufferPointer { v in
                        for p in 0..<parts {
                            let first = min(length, p * chunk), count = min(chunk, length - first)
                            Attention.accumulate(
                                queries: q.baseAddress!, heads: group, headDimension: hd,
                                keys: k.baseAddress! + first * rowStride + hd, values: v.baseAddress! + first * rowStride + hd,
                                rowStride: rowStride, length: count, scale: 1 / Float(hd).squareRoot(), halfPrecision: false,
                                scratch: Attention.Scratch(scratch),
                                into: Attention.PartialState(
                                    accumulators: merged.accumulators + p * group * hd,
                                    maxima: merged.maxima + p * group, sums: merged.sums + p * group))
                        }
                        out.withUnsafeMutableBufferPointer { o in
                            Attention.combine(parts: parts, heads: group, headDimension: hd, halfPrecision: false, merged, into: o.baseAddress!)
                        }
                    }
                }
            }
            return out
        }

        /// The one-pass online softmax, one element at a time, with the accumulator stored as
        /// `Float16` (prompts) or `Float` (decoding).
        func onePass(halfPrecision: Bool) -> [Float] {
            // A kernel tier library, when one is active, runs the attention compiled with fused
            // multiply-adds; this build's plusProduct may not fuse.
            let fused = KernelTierLibrary.active != nil
            func plusProduct(_ y: Float, _ v: Float, _ w: Float) -> Float { fused ? y.addingProduct(v, w) : y.plusProduct(v, w) }
            var out = [Float](repeating: 0, count: group * hd)
            let scale = 1 / Float(hd).squareRoot()
            for g in 0..<group {
                var maximum = -Float.infinity, sum: Float = 0
                var half = [Float16](repeating: 0, count: hd), single = [Float](repeating: 0, count: hd)
                for j in 0..<length {
                    var score: Float = 0
                    for d in 0..<hd { score += queries[g * hd + d] * Float(keys[j * rowStride + hd + d]) }
                    score *= scale
                    var rescale: Float = 1, weight: Float = 1
                    if score > maximum {
                        rescale = expf(maximum - score)
                        maximum = score
                        for d in 0..<hd {
                            half[d] = Float16(Float(half[d]) * rescale)
                            single[d] *= rescale
                        }
                    } else {
                        weight = expf(score - maximum)
                    }
                    for d in 0..<hd {
                        let v = Float(values[j * rowStride + hd + d])
                        half[d] = Float16(plusProduct(Float(half[d]), v, weight))
                        single[d] = plusProduct(single[d], v, weight)
                    }
                    sum = sum * rescale + weight
                }
                for d in 0..<hd {
                    out[g * hd + d] = halfPrecision ? Float(half[d]) * (1 / sum) : single[d] / sum
                }
            }
            return out
        }

        /// Exact softmax attention in double precision.
        func exact() -> [Double] {
            var out = [Double](repeating: 0, count: group * hd)
            let scale = 1 / Double(hd).squareRoot()
            for g in 0..<group {
                let scores = (0..<length).map { j in
                    (0..<hd).reduce(0.0) { $0 + Double(queries[g * hd + $1]) * Double(keys[j * rowStride + hd + $1]) } * scale
                }
                let m = scores.max()!
                let e = scores.map { Foundation.exp($0 - m) }
                let total = e.reduce(0, +)
                for d in 0..<hd {
                    out[g * hd + d] = (0..<length).reduce(0.0) { $0 + e[$1] * Double(values[$1 * rowStride + hd + d]) } / total
                }
            }
            return out
        }
    }

    @Test(arguments: [(64, 1), (64, 37), (128, 200), (40, 9)])
    func matchesExactSoftmax(hd: Int, length: Int) {
        let c = Case(hd: hd, length: length, seed: UInt64(hd * 1000 + length))
        let exact = c.exact()
        for (got, tolerance) in [(c.attend(halfPrecision: false), 1e-5), (c.attend(halfPrecision: true), 4e-3)] {
            for i in exact.indices {
                #expect(abs(Double(got[i]) - exact[i]) <= tolerance, "element \(i): \(got[i]) vs \(exact[i])")
            }
        }
    }

    /// Lengths past ``Attention/blockLength`` cross block boundaries, where the accumulators
    /// are stored and reloaded; 40 dimensions leave 8 for the scalar tail.
    /// Groups of 7 and 4 heads take the four-head replay (Qwen's group is 7), 3 the two- and
    /// one-head ones.
    @Test(arguments: [(64, 50, 3), (128, 31, 3), (48, 20, 3), (64, 600, 3), (40, 513, 3), (64, 300, 7), (128, 45, 4),
                      (64, 1, 7), (64, 17, 5)])
    func equalsTheOnePassOnlineSoftmaxBitForBit(hd: Int, length: Int, group: Int) {
        // The dot products here are summed in a different order than VectorMath.dot, so scores
        // may differ in the last bit; scores are made exact by using small integers.
        var c = Case(hd: hd, length: length, seed: UInt64(7 * hd + length), group: group)
        var rng = TestRandom(seed: 5)
        c.queries = c.queries.map { _ in Float(Int.random(in: -2...2, using: &rng)) }
        c.keys = c.keys.map { _ in Float16(Float(Int.random(in: -2...2, using: &rng))) }
        for half in [false, true] {
            let fast = c.attend(halfPrecision: half), reference = c.onePass(halfPrecision: half)
            for i in fast.indices {
                #expect(fast[i].bitPattern == reference[i].bitPattern, "half \(half), element \(i): \(fast[i]) vs \(reference[i])")
            }
        }
    }

    /// Grouping heads only interleaves their work: each head's result is bit for bit what it
    /// gets alone.
    @Test(arguments: [(64, 700, 3), (128, 260, 3), (64, 530, 7)])
    func headsOfAGroupGetWhatEachGetsAlone(hd: Int, length: Int, group: Int) {
        let c = Case(hd: hd, length: length, seed: UInt64(hd + length), group: group)
        for half in [false, true] {
            let grouped = c.attend(halfPrecision: half), alone = c.attend(halfPrecision: half, oneHeadAtATime: true)
            #expect(grouped.map(\.bitPattern) == alone.map(\.bitPattern), "half \(half)")
        }
    }

    /// Split decoding: ranges of positions merged afterwards agree with one pass to float
    /// rounding (not bit for bit: each part is rescaled once more), and with the exact softmax.
    @Test(arguments: [(2, 600), (3, 1000), (5, 3), (2, 1)])
    func rangesMergedAgreeWithOnePass(parts: Int, length: Int) {
        let c = Case(hd: 64, length: length, seed: UInt64(parts * 10_000 + length), spread: 2)
        let split = c.attendSplit(parts: parts), whole = c.attend(halfPrecision: false), exact = c.exact()
        for i in whole.indices {
            #expect(abs(split[i] - whole[i]) <= 2e-6 * max(1, abs(whole[i])), "element \(i): \(split[i]) vs \(whole[i])")
            #expect(abs(Double(split[i]) - exact[i]) <= 2e-5, "element \(i): \(split[i]) vs exact \(exact[i])")
        }
    }

    @Test func keysFarBelowTheMaximumAddNothing() {
        // Scores spread over hundreds: most weights underflow to zero and are skipped.
        let c = Case(hd: 64, length: 64, seed: 99, spread: 12)
        let exact = c.exact()
        let got = c.attend(halfPrecision: false)
        for i in exact.indices { #expect(abs(Double(got[i]) - exact[i]) <= 1e-5) }
    }
}
