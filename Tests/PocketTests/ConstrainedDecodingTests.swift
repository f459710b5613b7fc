import Foundation
import Testing
import PocketGrammar
import PocketKernels
import PocketTransformer
@testable import Pocket

@Suite struct ConstrainedDecodingTests {
    /// Every byte as a token, a few multi-byte tokens, and an end-of-generation token.
    static let vocabulary: Vocabulary = {
        var tokens = (0..<256).map { [UInt8($0)] }
        tokens += ["\",\"", "\":", "\"}", "{\"", "true", "false", "null", "12", "ab", "name", " "].map { Array($0.utf8) }
        tokens.append([])
        return Vocabulary(tokens: tokens, endOfGeneration: [tokens.count - 1])
    }()

    func logits(_ seed: UInt64) -> [Float] {
        var random = SplitMix64(seed: seed)
        return (0..<Self.vocabulary.count).map { _ in Float(random.next() % 1000) / 250 }
    }

    @Test func greedyPicksTheBestAllowedToken() throws {
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: ##"{"enum":["yes","no"]}"##))
        var decoding = ConstrainedDecoding(grammar: grammar, vocabulary: Self.vocabulary, sampling: .greedy)
        var scores = logits(1)
        scores[Int(UInt8(ascii: "x"))] = 100   // best overall, not allowed
        scores[Int(UInt8(ascii: "\""))] = 50   // best allowed
        let token = scores.withUnsafeBufferPointer { decoding.next($0) }
        #expect(token == Int(UInt8(ascii: "\"")))
        #expect(decoding.maskedSteps == 1 && decoding.fastSteps == 0)
        // The best token is allowed now: the fast path decides without a mask.
        scores[Int(UInt8(ascii: "y"))] = 200
        #expect(scores.withUnsafeBufferPointer { decoding.next($0) } == Int(UInt8(ascii: "y")))
        #expect(decoding.fastSteps == 1)
    }

    /// The fast path (draw, check, redraw if rejected) must give the masked distribution.
    @Test func fastPathHasTheMaskedDistribution() throws {
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: ##"{"type":"integer","minimum":0,"maximum":999}"##))
        var base = [Float](repeating: -.infinity, count: Self.vocabulary.count)
        // Five candidate first tokens; two are not allowed ('-' and 'x').
        let candidates: [(UInt8, Float)] = [(0x31, 1.0), (0x32, 0.5), (0x2D, 1.5), (0x78, 0.2), (0x37, 0.0)]
        for (b, l) in candidates { base[Int(b)] = l }
        let allowed: [UInt8] = [0x31, 0x32, 0x37]
        let weights = candidates.filter { allowed.contains($0.0) }.map { exp(Double($0.1)) }
        let total = weights.reduce(0, +)
        var counts: [UInt8: Int] = [:]
        let draws = 20_000
        var fast = 0, masked = 0
        for draw in 0..<draws {
            // A fresh grammar state each time; the seeds differ, so the draws are independent.
            var decoding = ConstrainedDecoding(
                grammar: grammar, vocabulary: Self.vocabulary,
                sampling: SamplingParameters(temperature: 1, topK: 0, topP: 1, seed: UInt64(draw)))
            let token = base.withUnsafeBufferPointer { decoding.next($0) }
            counts[UInt8(token), default: 0] += 1
            fast += decoding.fastSteps
            masked += decoding.maskedSteps
        }
        #expect(counts[0x2D] == nil && counts[0x78] == nil)
        for (i, b) in allowed.enumerated() {
            let p = weights[i] / total
            let observed = Double(counts[b] ?? 0) / Double(draws)
            #expect(abs(observed - p) < 5 * (p * (1 - p) / Double(draws)).squareRoot() + 1e-3, "\(b): \(observed) vs \(p)")
        }
        #expect(fast > 0 && masked > 0)
    }

    @Test func seededSamplingIsReproducibleAndFollowsTheGrammar() throws {
        let schema = ##"{"type":"object","properties":{"name":{"type":"string"},"ok":{"type":"boolean"}},"required":["name","ok"]}"##
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: schema))
        func run() -> [Int] {
            var decoding = ConstrainedDecoding(
                grammar: grammar, vocabulary: Self.vocabulary, sampling: SamplingParameters(temperature: 0.9, topK: 20, topP: 0.9, seed: 7))
            var out: [Int] = []
            for step in 0..<30 where !decoding.isComplete {
                out.append(logits(UInt64(step)).withUnsafeBufferPointer { decoding.next($0) })
            }
            return out
        }
        let tokens = run()
        #expect(tokens == run())
        if case .reject = SchemaCheck.check(tokens: tokens, grammar: grammar, vocabulary: Self.vocabulary) {
            Issue.record("a constrained choice was rejected by the grammar")
        }
    }

    @Test func theAlternativeFirstTokenIsChosenButNotAccepted() throws {
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: ##"{"enum":["yes","no"]}"##))
        var decoding = ConstrainedDecoding(grammar: grammar, vocabulary: Self.vocabulary, sampling: .greedy)
        var sampler = Sampler(.greedy)
        let opener = Int(UInt8(ascii: "<"))
        var scores = logits(2)
        scores[Int(UInt8(ascii: "x"))] = 100  // neither the grammar's nor the alternative
        scores[opener] = 60
        scores[Int(UInt8(ascii: "\""))] = 50
        #expect(scores.withUnsafeBufferPointer { decoding.next($0, orAlternative: opener, using: &sampler) } == opener)
        // Not accepted: the value may still begin.
        #expect(decoding.matcher.allows(Int(UInt8(ascii: "\""))))
        scores[opener] = 0
        #expect(scores.withUnsafeBufferPointer { decoding.next($0, orAlternative: opener, using: &sampler) } == Int(UInt8(ascii: "\"")))
        #expect(!decoding.matcher.allows(Int(UInt8(ascii: "\""))))
    }
}
