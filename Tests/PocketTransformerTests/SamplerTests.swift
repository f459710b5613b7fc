import Foundation
import Testing
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

    @Test func maskedTokensAreNeverChosen() {
        var sampler = Sampler(SamplingParameters(temperature: 2, topK: 0, topP: 1, seed: 5))
        for _ in 0..<300 {
            let token = sampler.sample([1, -.infinity, 1, -.infinity])
            #expect(token == 0 || token == 2)
        }
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
