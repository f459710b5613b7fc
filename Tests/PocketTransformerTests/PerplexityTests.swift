import Foundation
import Testing
import PocketKernels
import PocketTransformer

/// `perplexity(of:chunkLength:beginningOfSequence:)` follows llama.cpp's protocol on the tiny
/// random-weight model of ``SyntheticModelTests``: each chunk from an empty cache with BOS in
/// place of its first token, the second half scored, the log-softmax's sum in double precision.
@Suite struct PerplexityTests {
    /// Three chunks of 16 and a tail of 5 that is dropped; batches of 5 put the scored positions
    /// (8…14) across three batches, batches of 64 in one. The vocabulary of 50 is not a multiple
    /// of the sixteen lanes the log-softmax takes at a time.
    @Test(arguments: [5, 64])
    func theSecondHalfOfEachChunkIsScored(batchSize: Int) throws {
        let shape = SyntheticModelTests.Shape()
        let tensors = SyntheticModelTests.weights(shape, architecture: "llama", tied: true, seed: 5)
        let file = try SyntheticModelTests.file(shape, architecture: "llama", tied: true, tensors: tensors)
        var random = SplitMix64(seed: 9)
        let tokens = (0..<(3 * 16 + 5)).map { _ in Int(random.next() % UInt64(shape.vocabulary)) }
        let bos = 1
        let model = try Transformer(file: file, contextLength: 32, batchSize: batchSize, pool: ThreadPool(threads: 2))
        let result = try model.perplexity(of: tokens, chunkLength: 16, beginningOfSequence: bos)
        #expect(result.chunks == 3)
        #expect(result.scoredTokens == 3 * 7)

        // The same protocol written out: every logit of each chunk, and -log softmax in doubles;
        // and once more on the formulas' own logits.
        func negativeLogLikelihood(_ logits: [Double], _ target: Int) -> Double {
            let largest = logits.max()!
            return log(logits.reduce(0) { $0 + exp($1 - largest) }) - (logits[target] - largest)
        }
        var total = 0.0, formulasTotal = 0.0
        for c in 0..<3 {
            var chunk = Array(tokens[(16 * c)..<(16 * (c + 1))])
            chunk[0] = bos
            model.truncate(to: 0)
            var rows: [[Float]] = []
            try model.evaluate(chunk, logits: .all) { _, logits in rows.append(Array(logits)) }
            let formulas = SyntheticModelTests.reference(shape, architecture: "llama", tied: true, tensors: tensors, tokens: chunk)
            for i in 8..<15 {
                total += negativeLogLikelihood(rows[i].map(Double.init), chunk[i + 1])
                formulasTotal += negativeLogLikelihood(formulas[i], chunk[i + 1])
            }
        }
        let expected = exp(total / 21), fromFormulas = exp(formulasTotal / 21)
        #expect(abs(result.perplexity - expected) <= 1e-5 * expected, "\(result.perplexity) vs \(expected)")
        #expect(abs(result.meanNegativeLogLikelihood - total / 21) <= 1e-5)
        // The forward pass rounds keys, values and queries to half precision.
        #expect(abs(result.perplexity - fromFormulas) <= 0.02 * fromFormulas, "\(result.perplexity) vs \(fromFormulas)")
    }

    /// Too short a text or too long a chunk is an error, not a perplexity of nothing.
    @Test func badChunkingIsAnError() throws {
        let shape = SyntheticModelTests.Shape()
        let tensors = SyntheticModelTests.weights(shape, architecture: "llama", tied: true, seed: 5)
        let file = try SyntheticModelTests.file(shape, architecture: "llama", tied: true, tensors: tensors)
        let model = try Transformer(file: file, contextLength: 32, pool: ThreadPool(threads: 1))
        #expect(throws: TransformerError.self) { try model.perplexity(of: Array(repeating: 3, count: 15), chunkLength: 16) }
        #expect(throws: TransformerError.self) { try model.perplexity(of: Array(repeating: 3, count: 80), chunkLength: 64) }
        #expect(throws: TransformerError.self) { try model.perplexity(of: Array(repeating: 3, count: 80), chunkLength: 2) }
    }
}
