/// Penalties that keep a model from repeating itself, with llama.cpp's definitions.
///
/// For each token that occurs `c > 0` times among the last ``window`` tokens:
/// - repetition: a positive logit is divided by ``repetition``, a negative one multiplied by it;
/// - then the logit decreases by `c · frequency + presence`.
///
/// Applied to the logits before any sampler (greedy, top-k/top-p, or grammar-constrained), so a
/// small model that starts looping ("dienflechte, dienflechte, …") is pushed to other tokens.
///
/// ```swift
/// let penalty = RepetitionPenalty(repetition: 1.1, window: 64)
/// logits.withUnsafeMutableBufferPointer { penalty.apply(to: $0, recent: generated) }
/// ```
public struct RepetitionPenalty: Sendable, Equatable {
    /// Divides positive and multiplies negative logits of recent tokens; 1 is off.
    public var repetition: Float
    /// Subtracted once per occurrence of a recent token; 0 is off.
    public var frequency: Float
    /// Subtracted once from every recent token; 0 is off.
    public var presence: Float
    /// How many of the latest tokens count as recent.
    public var window: Int

    /// No penalty.
    public static let off = RepetitionPenalty(repetition: 1, window: 0)

    /// Creates penalties.
    public init(repetition: Float = 1, frequency: Float = 0, presence: Float = 0, window: Int = 64) {
        self.repetition = repetition
        self.frequency = frequency
        self.presence = presence
        self.window = max(0, window)
    }

    /// Whether applying the penalty changes nothing.
    public var isOff: Bool { window == 0 || (repetition == 1 && frequency == 0 && presence == 0) }

    /// Penalizes the tokens among the last ``window`` of `recent` in `logits`.
    ///
    /// - Parameters:
    ///   - logits: One score per vocabulary entry, modified in place.
    ///   - recent: The tokens so far, oldest first.
    ///   - exempt: Tokens never penalized (such as end-of-turn tokens: ending is never repetition).
    /// - Complexity: O(``window``).
    public func apply(to logits: UnsafeMutableBufferPointer<Float>, recent: some BidirectionalCollection<Int>, exempt: Set<Int> = []) {
        guard !isOff else { return }
        // Called once per generated token: count on the stack (sorted window, runs of equal
        // ids), never on the heap.
        let window = recent.suffix(self.window)
        withUnsafeTemporaryAllocation(of: Int.self, capacity: max(1, window.count)) { ids in
            var count = 0
            for token in window where logits.indices.contains(token) && !exempt.contains(token) {
                ids[count] = token
                count += 1
            }
            var kept = UnsafeMutableBufferPointer(rebasing: ids[..<count])
            kept.sort()
            var start = 0
            while start < count {
                var end = start + 1
                while end < count && kept[end] == kept[start] { end += 1 }
                let token = kept[start]
                var logit = logits[token]
                logit = logit <= 0 ? logit * repetition : logit / repetition
                logits[token] = logit - Float(end - start) * frequency - presence
                start = end
            }
        }
    }
}
