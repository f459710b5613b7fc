import PocketTransformer

/// A transformer whose KV cache holds a token sequence, reused across requests by its longest
/// common prefix.
///
/// Every request renders the whole conversation and evaluates only what differs from the
/// cached tokens. A follow-up turn therefore prefills only its new messages; a session restored
/// from a transcript, or one whose last request failed, rebuilds or repairs its cache on the
/// next request without any bookkeeping.
final class PrefixCache {
    /// The model.
    let transformer: Transformer
    /// The tokens whose keys and values are in the cache, in order.
    private(set) var tokens: [Int] = []

    /// Creates an empty cache over `transformer`.
    init(transformer: Transformer) {
        self.transformer = transformer
    }

    /// The context window, in tokens.
    var capacity: Int { transformer.contextLength }

    /// Makes the cache hold exactly `target`, evaluating only the part after the common prefix.
    ///
    /// - Returns: The logits of the last token (when asked; it is evaluated again if it was
    ///   cached) and how many tokens were reused.
    /// - Throws: ``TransformerContextError/contextFull(needed:capacity:)`` when `target` does not
    ///   fit; the transformer's errors (a cancelled prefill is forgotten, the cache keeps the
    ///   common prefix).
    func extend(to target: [Int], needsLogits: Bool) throws -> (logits: [Float], reused: Int) {
        guard target.count <= capacity else {
            throw TransformerContextError.contextFull(needed: target.count, capacity: capacity)
        }
        var common = 0
        let limit = min(tokens.count, target.count)
        while common < limit && tokens[common] == target[common] { common += 1 }
        if needsLogits && common == target.count { common -= 1 }
        common = max(0, common)
        transformer.truncate(to: common)
        tokens.removeSubrange(common...)
        var logits: [Float] = []
        let rest = Array(target[common...])
        if !rest.isEmpty {
            do {
                try transformer.evaluate(rest, logits: needsLogits ? .last : .none) { _, row in logits = Array(row) }
            } catch {
                transformer.truncate(to: common)
                throw error
            }
            tokens += rest
        }
        return (logits, common)
    }

    /// Records tokens the decode loop evaluated after ``extend(to:needsLogits:)``.
    func append(_ evaluated: [Int]) {
        tokens += evaluated
    }

    /// Whether `count` more tokens fit in the context window.
    func fits(_ count: Int) -> Bool {
        transformer.position + count <= capacity
    }
}
