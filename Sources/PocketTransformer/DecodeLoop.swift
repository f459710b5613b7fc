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
    /// evaluate (usually `[token]`; tokens after it are *forced*: part of the output, evaluated
    /// in the same pass, never chosen) or a reason to stop. Evaluated steps are reported to
    /// `evaluated`, and their logits become the next round's. The loop also ends when
    /// `maximumTokens` tokens were generated (forced ones included) or the next step does not
    /// fit in the context.
    ///
    /// With a `lookup`, each evaluation also carries a draft of the tokens that follow
    /// (``PromptLookup``) and computes the logits after every drafted token. The next rounds
    /// choose from those logits as usual; while the chosen token is the drafted one (and `next`
    /// feeds exactly it), it is already evaluated and no pass is needed. The first difference
    /// drops the rest of the draft from the cache. Every token is still chosen by `choose` from
    /// the logits of the tokens before it, with the sampler drawing once per token as without a
    /// draft: greedy output is the same token for token, and sampled output has the same
    /// distribution (with a seed, the same tokens), whatever is drafted. Only how the logits
    /// are batched differs (up to the last bits of float rounding in the matrix products).
    ///
    /// ```swift
    /// let logits = try transformer.evaluate(prompt)
    /// let statistics = try transformer.decode(
    ///     from: logits, startedAt: started, maximumTokens: 64, stopTokens: endOfGeneration,
    ///     lookup: PromptLookup(context: prompt),
    ///     choose: { logits, _ in sampler.sample(UnsafeBufferPointer(logits)) },
    ///     next: { token in print(token); return .feed([token]) })
    /// ```
    ///
    /// - Parameters:
    ///   - logits: The logits after the last evaluated token (the prompt's).
    ///   - started: When the request began; the time to the first chosen token is the
    ///     statistics' prompt time.
    ///   - maximumTokens: Upper bound on generated tokens (stop and forced tokens included).
    ///   - stopTokens: Tokens that end generation; they are counted but neither passed to
    ///     `next` nor evaluated, and are never penalized.
    ///   - penalty: Applied to the logits before `choose`, over the tokens chosen so far.
    ///   - lookup: Drafts the tokens after each step from the context (its prompt); `nil`
    ///     evaluates one step per pass.
    ///   - choose: Picks a token from the (penalized) logits, which it may modify (bans,
    ///     masks); receives the tokens chosen so far.
    ///   - next: Receives each chosen token that is not a stop token; returns the step to
    ///     evaluate or why to stop.
    ///   - evaluated: Receives each step once its keys and values are in the cache (a step
    ///     confirmed from a draft, once confirmed).
    /// - Returns: Counts, timings and why the loop ended; `promptTokens` is left for the
    ///   caller, which knows how many prompt tokens it evaluated.
    /// - Throws: What `choose`, `next` or the evaluation throw; `CancellationError` when the
    ///   task is cancelled (checked before every token). The cache then holds every step
    ///   reported to `evaluated` and nothing of a draft.
    public func decode(
        from logits: [Float], startedAt started: ContinuousClock.Instant, maximumTokens: Int, stopTokens: Set<Int>,
        penalty: RepetitionPenalty = .off, lookup: PromptLookup? = nil,
        choose: (_ logits: UnsafeMutableBufferPointer<Float>, _ generated: [Int]) throws -> Int,
        next: (_ token: Int) throws -> DecodeStep,
        evaluated: (_ step: [Int]) -> Void = { _ in }
    ) throws -> GenerationStatistics {
        var statistics = GenerationStatistics()
        let clock = ContinuousClock()
        let vocabulary = configuration.vocabularySize
        var logits = logits
        var decodeStart = clock.now
        var generated: [Int] = []
        // llama.cpp decodes one token per pass: a draft evaluated as a batch would round as a
        // prompt does, so its order of operations (``ArithmeticOrder/llamaCpp``) drafts nothing.
        var lookup = arithmetic == .llamaCpp ? nil : lookup
        // The draft evaluated past the confirmed tokens, and the logits after each of its tokens.
        var draft = Draft()
        // Whatever ends the loop (a stop, an error), the cache keeps only confirmed tokens.
        defer { truncate(to: position - draft.remaining) }
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
                statistics.generatedTokens += step.count - 1
                if step == [draft.next] {
                    // Drafted and now chosen: its keys, values and logits are computed.
                    statistics.acceptedDraftTokens += 1
                    draft.confirm(into: &logits, vocabulary: vocabulary)
                    lookup?.append(step)
                    evaluated(step)
                    continue
                }
                truncate(to: position - draft.remaining)
                lookup?.record(accepted: draft.tokens.count - draft.remaining, of: draft.tokens.count)
                draft.restart(with: [])
                guard position + step.count <= contextLength else {
                    statistics.stopReason = .contextFull
                    break loop
                }
                lookup?.append(step)
                // A draft only where it fits, and not past the last token the loop may choose.
                let room = min(contextLength - position - step.count, maximumTokens - statistics.generatedTokens - 1)
                draft.restart(with: lookup?.draft(limit: room) ?? [])
                statistics.draftedTokens += draft.remaining
                let base = position
                do {
                    try evaluate(step + draft.tokens, logits: .trailing(draft.remaining + 1), halfPrecisionAttention: false) { i, row in
                        let k = i - (step.count - 1)
                        if k == 0 {
                            logits.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: row) }
                        } else {
                            draft.store(row, at: k - 1, vocabulary: vocabulary)
                        }
                    }
                } catch {
                    // Cancelled between batches: nothing of the step stays (it was not reported).
                    truncate(to: base)
                    draft.restart(with: [])
                    throw error
                }
                evaluated(step)
            }
        }
        statistics.generationSeconds = (clock.now - decodeStart).seconds
        return statistics
    }
}

/// Drafted tokens evaluated past the confirmed ones, with the logits after each.
private struct Draft {
    /// The drafted tokens, in order.
    private(set) var tokens: [Int] = []
    /// How many of them were confirmed.
    private var confirmed = 0
    /// Row `i` holds the logits after `tokens[i]` (kept allocated from draft to draft).
    private var rows: [Float] = []

    /// Replaces the draft with `tokens`, none of them confirmed.
    mutating func restart(with tokens: [Int]) {
        self.tokens = tokens
        confirmed = 0
    }

    /// Drafted tokens still in the cache and not confirmed.
    var remaining: Int { tokens.count - confirmed }

    /// The token a confirmation would take, or -1 (no token) when none is left.
    var next: Int { confirmed < tokens.count ? tokens[confirmed] : -1 }

    /// Keeps the logits after `tokens[index]`.
    mutating func store(_ row: UnsafeBufferPointer<Float>, at index: Int, vocabulary: Int) {
        if rows.count < tokens.count * vocabulary { rows = [Float](repeating: 0, count: tokens.count * vocabulary) }
        rows.withUnsafeMutableBufferPointer { rows in
            _ = UnsafeMutableBufferPointer(rebasing: rows[(index * vocabulary)...].prefix(vocabulary)).update(fromContentsOf: row)
        }
    }

    /// Takes the next drafted token as chosen: `logits` becomes the logits after it.
    mutating func confirm(into logits: inout [Float], vocabulary: Int) {
        let offset = confirmed * vocabulary
        rows.withUnsafeBufferPointer { rows in
            logits.withUnsafeMutableBufferPointer { _ = $0.update(fromContentsOf: rows[offset..<(offset + vocabulary)]) }
        }
        confirmed += 1
    }
}
