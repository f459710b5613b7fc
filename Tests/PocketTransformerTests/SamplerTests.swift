import Foundation
import Testing
import PocketKernels
import PocketTransformer

@Suite struct SamplerTests {
    @Test func greedyTakesTheLargestLogitAndTheLowestIndexOnTies() {
        var sampler = Sampler(.greedy)
        #expect(sampler.sample([0.1, 3, -2, 3, 1]) == 1)
        #expect(sampler.sample([-.infinity, -5, -.infinity]) == 1)
        #expect(Sampler.argmax([Float.nan, 2, 1].withUnsafeBufferPointer { $0 }) == 1)
    }

    @Test func sameSeedSameSequenceDifferentSeedDifferentSequence() {
        let logits: [Float] = (0..<100).map { Float($0 % 7) / 3 }
        func run(_ seed: UInt64) -> [Int] {
            var sampler = Sampler(SamplingParameters(temperature: 1, topK: 0, topP: 1, seed: seed))
            return (0..<50).map { _ in sampler.sample(logits) }
        }
        #expect(run(7) == run(7))
        #expect(run(7) != run(8))
    }

    @Test func topKOneIsGreedy() {
        var sampler = Sampler(SamplingParameters(temperature: 5, topK: 1, topP: 1, seed: 3))
        for _ in 0..<20 { #expect(sampler.sample([1, 2, 9, 3]) == 2) }
    }

    @Test func topKKeepsOnlyTheKMostLikely() {
        var sampler = Sampler(SamplingParameters(temperature: 10, topK: 2, topP: 1, seed: 1))
        var seen = Set<Int>()
        for _ in 0..<500 { seen.insert(sampler.sample([0, 5, 1, 4, 2])) }
        #expect(seen == [1, 3])
    }

    @Test func topPKeepsTheSmallestSetReachingTheThreshold() {
        // Probabilities 0.5, 0.3, 0.2 (logits are their logs): p = 0.75 keeps the first two.
        let logits: [Float] = [log(0.5), log(0.3), log(0.2)]
        var sampler = Sampler(SamplingParameters(temperature: 1, topK: 0, topP: 0.75, seed: 9))
        var seen = Set<Int>()
        for _ in 0..<1000 { seen.insert(sampler.sample(logits)) }
        #expect(seen == [0, 1])
    }

    @Test(arguments: [(0, Float(0.9)), (40, 1), (40, 0.95), (3, 0.5), (0, 0.999)])
    func narrowingTheCandidatesChoosesWhatAFullSortChooses(topK: Int, topP: Float) {
        // The sampler sorts only a superset of the tokens a cut can keep; a straightforward
        // sampler that sorts the whole vocabulary must make the same choices.
        var rng = SplitMix64(seed: UInt64(topK) &* 31 &+ UInt64(topP * 1000))
        let vocabulary = 151_936
        for round in 0..<3 {
            // Peaked (a few likely tokens) and flat distributions, with masked entries.
            let spread: Float = round == 0 ? 12 : round == 1 ? 3 : 0.5
            let logits = (0..<vocabulary).map { i -> Float in
                i % 97 == 5 ? -.infinity : spread * Float(Double(rng.next() >> 11) / Double(1 << 53)) * 2 - spread
            }
            let parameters = SamplingParameters(temperature: 0.7, topK: topK, topP: topP, seed: UInt64(round))
            var sampler = Sampler(parameters)
            var reference = FullSortSampler(parameters)
            for step in 0..<20 {
                #expect(sampler.sample(logits) == reference.sample(logits), "round \(round) step \(step)")
            }
        }
    }

    @Test func infiniteAndHugeLogitsDoNotTrapTheCut() {
        var sampler = Sampler(SamplingParameters(temperature: 1, topK: 0, topP: 0.9, seed: 2))
        _ = sampler.sample([1, .infinity, 0])
        #expect(sampler.sample([3e38, -3e38, 0, -.infinity]) == 0)
    }

    @Test func maskedTokensAreNeverChosen() {
        var sampler = Sampler(SamplingParameters(temperature: 2, topK: 0, topP: 1, seed: 5))
        for _ in 0..<300 {
            let token = sampler.sample([1, -.infinity, 1, -.infinity])
            #expect(token == 0 || token == 2)
        }
    }

    /// Parameter sets covering greedy, plain temperature and each cut.
    static let maskedCases: [SamplingParameters] = [
        .greedy, SamplingParameters(temperature: 0.8, topK: 0, topP: 1, seed: 1),
        SamplingParameters(temperature: 0.7, topK: 40, topP: 1, seed: 2), SamplingParameters(temperature: 1, topK: 0, topP: 0.9, seed: 3),
        SamplingParameters(temperature: 0.7, topK: 40, topP: 0.95, seed: 4),
    ]

    /// Random logits over a large vocabulary, some already `-infinity`.
    static func randomLogits(_ random: inout SplitMix64, count: Int = 50_000, spread: Float = 6) -> [Float] {
        (0..<count).map { i -> Float in
            i % 89 == 7 ? -.infinity : spread * (random.nextUnitFloat() * 2 - 1)
        }
    }

    @Test(arguments: maskedCases)
    func aMaskChoosesWhatTheLogitsWithDisallowedTokensAtMinusInfinityChoose(parameters: SamplingParameters) {
        var random = SplitMix64(seed: parameters.seed &+ 100)
        var masked = Sampler(parameters)
        var reference = Sampler(parameters)
        for step in 0..<20 {
            let logits = Self.randomLogits(&random)
            let allowed = { (id: Int) in id % 5 == step % 5 || id % 7 == 1 }
            let expected = reference.sample(logits.indices.map { allowed($0) ? logits[$0] : -.infinity })
            let token = logits.withUnsafeBufferPointer { masked.sample($0, allowing: allowed) }
            #expect(allowed(token), "step \(step)")
            #expect(token == expected, "step \(step)")
        }
    }

    @Test(arguments: maskedCases)
    func aFullMaskChoosesWhatTheUnmaskedSamplerChooses(parameters: SamplingParameters) {
        var random = SplitMix64(seed: parameters.seed &+ 200)
        var masked = Sampler(parameters)
        var plain = Sampler(parameters)
        for step in 0..<20 {
            let logits = Self.randomLogits(&random, spread: step % 2 == 0 ? 12 : 1)
            let token = logits.withUnsafeBufferPointer { masked.sample($0, allowing: { _ in true }) }
            #expect(token == plain.sample(logits), "step \(step)")
        }
    }

    @Test func aMaskAllowingOnlyUnlikelyTokensStillChoosesAmongThem() {
        var sampler = Sampler(SamplingParameters(temperature: 0.5, topK: 2, topP: 0.5, seed: 6))
        let logits: [Float] = [10, 9, -3, -4, 8]
        for _ in 0..<200 {
            let token = logits.withUnsafeBufferPointer { sampler.sample($0, allowing: { $0 == 2 || $0 == 3 }) }
            #expect(token == 2 || token == 3)
        }
        #expect(logits.withUnsafeBufferPointer { Sampler.argmax($0, allowing: { $0 >= 2 }) } == 4)
    }

    @Test func frequenciesFollowTheSoftmax() {
        // Temperature 1, no cut: token i must appear with probability softmax(logits)_i.
        let logits: [Float] = [0, 1, 2, -1]
        let weights = logits.map { exp(Double($0)) }
        let total = weights.reduce(0, +)
        var sampler = Sampler(SamplingParameters(temperature: 1, topK: 0, topP: 1, seed: 11))
        var counts = [Int](repeating: 0, count: 4)
        let draws = 40_000
        for _ in 0..<draws { counts[sampler.sample(logits)] += 1 }
        for i in 0..<4 {
            let expected = weights[i] / total
            let observed = Double(counts[i]) / Double(draws)
            // Five standard deviations of a binomial proportion.
            let sigma = (expected * (1 - expected) / Double(draws)).squareRoot()
            #expect(abs(observed - expected) < 5 * sigma + 1e-4, "token \(i): \(observed) vs \(expected)")
        }
    }

    @Test func temperatureSharpensTheDistribution() {
        func share(_ temperature: Float) -> Double {
            var sampler = Sampler(SamplingParameters(temperature: temperature, topK: 0, topP: 1, seed: 2))
            var hits = 0
            for _ in 0..<5000 where sampler.sample([0, 1]) == 1 { hits += 1 }
            return Double(hits) / 5000
        }
        #expect(share(0.25) > share(1) + 0.1)
        #expect(share(1) > share(4) + 0.05)
    }
}

/// Top-k / top-p sampling as a full sort of every candidate: the definition the sampler's
/// narrowed version must agree with (same random draws, same order of ties).
struct FullSortSampler {
    let parameters: SamplingParameters
    var random: SplitMix64
    init(_ parameters: SamplingParameters) {
        self.parameters = parameters
        random = SplitMix64(seed: parameters.seed)
    }
    mutating func sample(_ logits: [Float]) -> Int {
        var candidates = logits.indices.filter { logits[$0] > -.infinity }.map { ($0, logits[$0] / parameters.temperature) }
        let maximum = candidates.map(\.1).max()!
        // Without top-k, the nucleus is measured against every candidate's mass, summed in
        // vocabulary order.
        let everything = candidates.reduce(Float(0)) { $0 + expf($1.1 - maximum) }
        candidates.sort { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
        if parameters.topK > 0 && parameters.topK < candidates.count { candidates.removeSubrange(parameters.topK...) }
        var p = candidates.map { expf($0.1 - maximum) }
        let total = parameters.topK > 0 ? p.reduce(0, +) : everything
        var kept = p.count
        if parameters.topP < 1 {
            var cumulative: Float = 0
            for i in p.indices {
                cumulative += p[i] / total
                if cumulative >= parameters.topP { kept = i + 1; break }
            }
        }
        p.removeSubrange(kept...)
        var target = random.nextUnitFloat() * p.reduce(0, +)
        for i in p.indices {
            target -= p[i]
            if target < 0 { return candidates[i].0 }
        }
        return candidates[kept - 1].0
    }
}
