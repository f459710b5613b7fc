import Foundation
import Testing
@testable import PocketGrammar

@Suite struct ConstrainedSamplerTests {
    let vocabulary = SyntheticVocabulary.vocabulary

    func logits(_ seed: UInt64) -> [Float] {
        var rng = SeededRandom(seed: seed)
        return (0..<vocabulary.count).map { _ in Float(rng.next() % 1000) / 250 }
    }

    @Test func greedyPicksTheBestAllowedToken() throws {
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: ##"{"enum":["yes","no"]}"##))
        var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        var sampler = ConstrainedSampler(.greedy)
        var scores = logits(1)
        scores[Int(UInt8(ascii: "x"))] = 100   // best overall, not allowed
        scores[Int(UInt8(ascii: "\""))] = 50   // best allowed
        let token = scores.withUnsafeMutableBufferPointer { sampler.sample(logits: $0, matcher: &matcher) }
        #expect(token == Int(UInt8(ascii: "\"")))
        #expect(sampler.maskedSteps == 1)
    }

    /// The fast path (draw, check, redraw if rejected) must give the masked distribution.
    @Test func fastPathHasTheMaskedDistribution() throws {
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: ##"{"type":"integer","minimum":0,"maximum":999}"##))
        var base = [Float](repeating: -.infinity, count: vocabulary.count)
        // Five candidate first tokens; two are not allowed ('-' and 'x').
        let candidates: [(UInt8, Float)] = [(0x31, 1.0), (0x32, 0.5), (0x2D, 1.5), (0x78, 0.2), (0x37, 0.0)]
        for (b, l) in candidates { base[Int(b)] = l }
        let allowed: [UInt8] = [0x31, 0x32, 0x37]
        let weights = candidates.filter { allowed.contains($0.0) }.map { exp(Double($0.1)) }
        let total = weights.reduce(0, +)
        var counts: [UInt8: Int] = [:]
        var sampler = ConstrainedSampler(.init(temperature: 1, seed: 42))
        let draws = 20_000
        for _ in 0..<draws {
            var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
            var scores = base
            let token = scores.withUnsafeMutableBufferPointer { sampler.sample(logits: $0, matcher: &matcher) }
            counts[UInt8(token), default: 0] += 1
        }
        #expect(counts[0x2D] == nil && counts[0x78] == nil)
        for (i, b) in allowed.enumerated() {
            let p = weights[i] / total
            let observed = Double(counts[b] ?? 0) / Double(draws)
            #expect(abs(observed - p) < 5 * (p * (1 - p) / Double(draws)).squareRoot() + 1e-3, "\(b): \(observed) vs \(p)")
        }
        #expect(sampler.fastSteps > 0 && sampler.maskedSteps > 0)
    }

    @Test func seededSamplingIsReproducible() throws {
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: Schemas.all[0]))
        func run() -> [Int] {
            var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
            var sampler = ConstrainedSampler(.init(temperature: 0.9, topK: 20, topP: 0.9, seed: 7))
            var out: [Int] = []
            for step in 0..<30 where !matcher.isComplete {
                var scores = logits(UInt64(step))
                out.append(scores.withUnsafeMutableBufferPointer { sampler.sample(logits: $0, matcher: &matcher) })
            }
            return out
        }
        #expect(run() == run())
    }
}
