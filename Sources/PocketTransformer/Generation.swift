import Foundation

/// Timings of one ``Transformer/generate(prompt:maximumTokens:sampler:stopTokens:penalty:lookup:onToken:)`` or
/// ``Transformer/decode(from:startedAt:maximumTokens:stopTokens:penalty:lookup:choose:next:evaluated:)`` call.
public struct GenerationStatistics: Sendable, CustomStringConvertible {
    /// Tokens evaluated before the first generated token (the prompt, minus any reused prefix).
    public var promptTokens = 0
    /// Seconds spent on the prompt (prefill), including sampling the first token.
    public var promptSeconds: Double = 0
    /// Tokens generated (including a final end-of-generation token, which is not emitted, and
    /// tokens the caller forced after a chosen one).
    public var generatedTokens = 0
    /// Tokens a ``PromptLookup`` drafted (each evaluated ahead of being chosen).
    public var draftedTokens = 0
    /// Drafted tokens that were then chosen, so needed no pass of their own.
    public var acceptedDraftTokens = 0
    /// Seconds spent generating after the first token (decode).
    public var generationSeconds: Double = 0
    /// Why generation stopped.
    public var stopReason: StopReason = .maximumTokens

    /// Why a generation ended.
    public enum StopReason: Sendable, Equatable {
        /// The model produced an end-of-generation token.
        case endOfGeneration
        /// The requested number of tokens was reached.
        case maximumTokens
        /// The context window is full.
        case contextFull
        /// The caller's callback asked to stop.
        case stoppedByCaller
    }

    /// Prompt tokens per second.
    public var promptTokensPerSecond: Double { promptSeconds > 0 ? Double(promptTokens) / promptSeconds : 0 }
    /// Generated tokens per second, after the first.
    public var generationTokensPerSecond: Double {
        generationSeconds > 0 && generatedTokens > 1 ? Double(generatedTokens - 1) / generationSeconds : 0
    }

    public var description: String {
        String(format: "prompt: %d tokens, %.1f tokens/s; generation: %d tokens, %.1f tokens/s",
               promptTokens, promptTokensPerSecond, generatedTokens, generationTokensPerSecond)
    }
}

extension Transformer {
    /// Generates tokens after `prompt`, appending everything to the cache.
    ///
    /// The prompt is evaluated from the current ``position`` (so a caller that keeps the cache
    /// passes only the new tokens); each sampled token is passed to `onToken` and then fed back,
    /// through the one decode loop (``decode(from:startedAt:maximumTokens:stopTokens:penalty:lookup:choose:next:evaluated:)``).
    ///
    /// - Parameters:
    ///   - prompt: Tokens to evaluate first; must not be empty unless the cache already holds
    ///     logits-worthy context (at least one position).
    ///   - maximumTokens: Upper bound on generated tokens.
    ///   - sampler: Chooses each token; its random state advances.
    ///   - stopTokens: Tokens that end generation (neither passed to `onToken` nor evaluated).
    ///   - penalty: Repetition penalties applied to the logits before sampling.
    ///   - lookup: Drafts tokens from the context (the prompt) to verify in the same pass
    ///     (``PromptLookup``); the tokens generated are the same with or without it.
    ///   - onToken: Receives each generated token; return `false` to stop.
    /// - Returns: Counts and timings.
    /// - Throws: ``TransformerError`` when the prompt does not fit; `CancellationError` when the
    ///   task is cancelled (checked before every token).
    @discardableResult
    public func generate(
        prompt: [Int], maximumTokens: Int, sampler: inout Sampler, stopTokens: Set<Int>,
        penalty: RepetitionPenalty = .off, lookup: PromptLookup? = nil, onToken: (Int) throws -> Bool
    ) throws -> GenerationStatistics {
        let started = ContinuousClock.now
        var logits: [Float] = []
        try evaluate(prompt, logits: .last) { _, row in logits = Array(row) }
        guard !logits.isEmpty else {
            throw TransformerError.invalidConfiguration("generation needs a non-empty prompt")
        }
        var emitted = 0
        var statistics = try decode(
            from: logits, startedAt: started, maximumTokens: maximumTokens, stopTokens: stopTokens, penalty: penalty, lookup: lookup,
            choose: { logits, _ in sampler.sample(UnsafeBufferPointer(logits)) },
            next: { token in
                emitted += 1
                guard try onToken(token) else { return .stop(.stoppedByCaller) }
                // The last allowed token is not evaluated: a caller that continues (chat)
                // evaluates it in front of its next prompt.
                return emitted < maximumTokens ? .feed([token]) : .stop(.maximumTokens)
            })
        statistics.promptTokens = prompt.count
        return statistics
    }
}
