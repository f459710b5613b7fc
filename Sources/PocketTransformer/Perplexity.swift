import Foundation
import PocketKernels

/// The result of ``Transformer/perplexity(of:chunkLength:progress:)``.
public struct PerplexityResult: Sendable {
    /// `exp(mean negative log-likelihood)` over every scored position.
    public var perplexity: Double
    /// Number of chunks evaluated.
    public var chunks: Int
    /// Number of scored positions.
    public var scoredTokens: Int
    /// Mean negative log-likelihood in nats.
    public var meanNegativeLogLikelihood: Double
}

extension Transformer {
    /// Perplexity of a token sequence, with llama.cpp's `perplexity` protocol.
    ///
    /// The tokens are split into consecutive chunks of `chunkLength` (the incomplete tail is
    /// dropped); each chunk is evaluated from an empty cache, and the positions of its second
    /// half (`chunkLength/2 … chunkLength-2`) are scored against the token that follows them.
    /// For a model that expects BOS, llama.cpp tokenizes the text with BOS first and puts BOS in
    /// place of every chunk's first token: pass the tokens that way and the id as
    /// `beginningOfSequence`.
    ///
    /// - Parameters:
    ///   - tokens: The tokenized text (with BOS first for a model that expects it).
    ///   - chunkLength: Tokens per chunk (at most the context length).
    ///   - beginningOfSequence: The token that replaces each chunk's first, or `nil` to keep it.
    ///   - progress: Called after each chunk with the chunk index and the running perplexity.
    /// - Throws: ``TransformerError/contextOverflow(needed:capacity:)`` when `chunkLength`
    ///   exceeds the context; ``TransformerError/invalidConfiguration(_:)`` when there is not
    ///   even one chunk.
    public func perplexity(
        of tokens: [Int], chunkLength: Int = 512, beginningOfSequence: Int? = nil,
        progress: (Int, Double) -> Void = { _, _ in }
    ) throws -> PerplexityResult {
        guard chunkLength >= 4 else {
            throw TransformerError.invalidConfiguration("perplexity chunk length must be at least 4, got \(chunkLength)")
        }
        guard chunkLength <= contextLength else {
            throw TransformerError.contextOverflow(needed: chunkLength, capacity: contextLength)
        }
        let chunks = tokens.count / chunkLength
        guard chunks > 0 else {
            throw TransformerError.invalidConfiguration(
                "perplexity needs at least \(chunkLength) tokens, the text has \(tokens.count)")
        }
        let firstScored = chunkLength / 2
        var total: Double = 0
        var count = 0
        for chunk in 0..<chunks {
            var slice = Array(tokens[(chunk * chunkLength)..<((chunk + 1) * chunkLength)])
            if let beginningOfSequence { slice[0] = beginningOfSequence }
            truncate(to: 0)
            // Only the second half is scored, so only its logits are computed: the output
            // projection is half of a small model's work (Gemma 3 270M's 262,144 rows).
            try evaluate(slice, logits: .trailing(chunkLength - firstScored)) { i, logits in
                guard i >= firstScored, i + 1 < chunkLength else { return }
                total += Self.negativeLogLikelihood(logits, target: slice[i + 1])
                count += 1
            }
            progress(chunk, exp(total / Double(count)))
        }
        truncate(to: 0)
        return PerplexityResult(
            perplexity: exp(total / Double(count)), chunks: chunks, scoredTokens: count,
            meanNegativeLogLikelihood: total / Double(count))
    }

    /// `-log softmax(logits)[target]`, close to how llama.cpp's `perplexity` computes it: the
    /// largest logit subtracted and `expf` of each difference (``VectorMath/cLibraryExp(_:)``,
    /// sixteen at a time). llama.cpp adds every exponential in double precision; here each
    /// sixteen are added in single precision first, then their sums in double precision.
    static func negativeLogLikelihood(_ logits: UnsafeBufferPointer<Float>, target: Int) -> Double {
        let count = logits.count, whole = count & ~15
        let raw = UnsafeRawPointer(logits.baseAddress!)
        var largest = SIMD16<Float>(repeating: -.infinity)
        for i in stride(from: 0, to: whole, by: 16) {
            largest = pointwiseMax(largest, raw.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self))
        }
        var maximum = largest.max()
        for i in whole..<count { maximum = max(maximum, logits[i]) }
        var sum: Double = 0
        let shift = SIMD16<Float>(repeating: maximum)
        for i in stride(from: 0, to: whole, by: 16) {
            // Sixteen terms of at most 1 each: their single-precision sum is within 2⁻²⁰ of the exact sum, relatively.
            sum += Double(VectorMath.cLibraryExp(raw.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self) - shift).sum())
        }
        for i in whole..<count { sum += Double(expf(logits[i] - maximum)) }
        return log(sum) - Double(logits[target] - maximum)
    }
}
