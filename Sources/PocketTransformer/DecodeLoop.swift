/// What the decode loop does after a generated token that is not a stop token.
public enum DecodeStep: Sendable, Equatable {
    /// Evaluates these tokens (the generated one, possibly followed by tokens the caller
    /// forces, such as the rest of a multi-token marker) and continues.
    case feed([Int])
    /// Ends the generation for this reason; the token is not evaluated.
    case stop(GenerationStatistics.StopReason)
}

extension Transformer {
    /// The token loop every generation runs: penalize, choose, check for a stop, feed back.
    ///
    /// Each round applies `penalty` to the logits, asks `choose` for a token and counts it.
    /// A token of `stopTokens` ends the loop; any other goes to `next`, which returns what to
    /// evaluate (usually `[token]`) or a reason to stop. Evaluated steps are reported to
    /// `evaluated`, and their logits become the next round's. The loop also ends when
    /// `maximumTokens` tokens were chosen or the next step does not fit in the context.
    ///
    /// ```swift
    /// let logits = try transformer.evaluate(prompt)
    /// let statistics = try transformer.decode(
    ///     from: logits, startedAt: started, maximumTokens: 64, stopTokens: endOfGeneration,
    ///     choose: { logits, _ in sampler.sample(UnsafeBufferPointer(logits)) },
    ///     next: { token in print(token); return .feed([token]) })
    /// ```
    ///
    /// - Parameters:
    ///   - logits: The logits after the last evaluated token (the prompt's).
    ///   - started: When the request began; the time to the first chosen token is the
    ///     statistics' prompt time.
    ///   - maximumTokens: Upper bound on chosen tokens (stop tokens included).
    ///   - stopTokens: Tokens that end generation; they are counted but neither passed to
    ///     `next` nor evaluated, and are never penalized.
    ///   - penalty: Applied to the logits before `choose`, over the tokens chosen so far.
    ///   - choose: Picks a token from the (penalized) logits, which it may modify (bans,
    ///     masks); receives the tokens chosen so far.
    ///   - next: Receives each chosen token that is not a stop token; returns the step to
    ///     evaluate or why to stop.
    ///   - evaluated: Receives each step once its keys and values are in the cache.
    /// - Returns: Counts, timings and why the loop ended; `promptTokens` is left for the
    ///   caller, which knows how many prompt tokens it evaluated.
    /// - Throws: What `choose`, `next` or the evaluation throw; `CancellationError` when the
    ///   task is cancelled (checked before every token).
    public func decode(
        from logits: [Float], startedAt started: ContinuousClock.Instant, maximumTokens: Int, stopTokens: Set<Int>,
        penalty: RepetitionPenalty = .off,
        choose: (_ logits: UnsafeMutableBufferPointer<Float>, _ generated: [Int]) throws -> Int,
        next: (_ token: Int) throws -> DecodeStep,
        evaluated: (_ step: [Int]) -> Void = { _ in }
    ) throws -> GenerationStatistics {
        var statistics = GenerationStatistics()
        let clock = ContinuousClock()
        var logits = logits
        var decodeStart = clock.now
        var generated: [Int] = []
        loop: while statistics.generatedTokens < maximumTokens {
            try Task.checkCancellation()
            let token = try logits.withUnsafeMutableBufferPointer { buffer in
                if !penalty.isOff { penalty.apply(to: buffer, recent: generated, exempt: stopTokens) }
                return try choose(buffer, generated)
            }
            generated.append(token)
            statistics.generatedTokens += 1
            if statistics.generatedTokens == 1 {
                decodeStart = clock.now
                statistics.promptSeconds = (decodeStart - started).seconds
            }
            if stopTokens.contains(token) {
                statistics.stopReason = .endOfGeneration
                break
            }
            switch try next(token) {
            case .stop(let reason):
                statistics.stopReason = reason
                break loop
            case .feed(let step):
                guard position + step.count <= contextLength else {
                    statistics.stopReason = .contextFull
                    break loop
                }
                try evaluate(step, logits: .last) { _, row in
                    logits.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: row) }
                }
                evaluated(step)
            }
        }
        statistics.generationSeconds = (clock.now - decodeStart).seconds
        return statistics
    }
}
