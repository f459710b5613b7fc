/// Prompt-lookup drafting: guesses the next tokens by finding the text just written earlier in
/// the context and proposing what followed it there.
///
/// Extraction, summarization, tagging and code edits copy long runs from their prompt. When the
/// last few tokens (an n-gram) occurred before, the tokens that followed that occurrence are a
/// cheap draft; ``Transformer/decode(from:startedAt:maximumTokens:stopTokens:penalty:lookup:choose:next:evaluated:)``
/// evaluates the draft with the token before it in one pass and keeps the prefix the model
/// itself would have chosen. A draft never changes what is generated, only how many passes it
/// takes.
///
/// The longest n-gram (``longestMatch`` tokens down to ``shortestMatch``) with an earlier
/// occurrence wins; among its occurrences, the most recent.
///
/// ```swift
/// var lookup = PromptLookup(context: prompt)
/// lookup.append([token])
/// let draft = lookup.draft(limit: 8)   // [] when the last tokens never occurred before
/// ```
public struct PromptLookup: Sendable {
    /// The tokens drafts are looked up in: the prompt and everything generated since.
    public private(set) var context: [Int]
    /// Most tokens proposed at once.
    public var maximumDraft: Int
    /// The shortest n-gram that may start a draft (1 matches any repeated token, and drafts far
    /// more often than it is right).
    public var shortestMatch: Int
    /// The longest n-gram tried first.
    public var longestMatch: Int
    /// How many tokens the next draft may have: ``maximumDraft`` at first, then one more than
    /// the last draft's accepted run when it was cut short, and two more after a draft taken
    /// whole. A pass costs more with every token it carries, so drafts stay near what is taken.
    public private(set) var draftLength: Int

    /// Starts drafting from `context`.
    ///
    /// - Parameters:
    ///   - context: The prompt's tokens.
    ///   - maximumDraft: Most tokens proposed at once (8: a pass over 9 tokens costs little
    ///     more than one on a CPU, whose decode is bound by reading the weights).
    ///   - shortestMatch: The shortest n-gram that may start a draft.
    ///   - longestMatch: The longest n-gram tried first.
    public init(context: [Int], maximumDraft: Int = 8, shortestMatch: Int = 2, longestMatch: Int = 4) {
        self.context = context
        self.maximumDraft = max(0, maximumDraft)
        self.shortestMatch = max(1, shortestMatch)
        self.longestMatch = max(self.shortestMatch, longestMatch)
        draftLength = self.maximumDraft
    }

    /// Takes what became of the last draft: `accepted` of its `drafted` tokens were chosen.
    public mutating func record(accepted: Int, of drafted: Int) {
        guard drafted > 0 else { return }
        draftLength = accepted >= drafted ? min(maximumDraft, draftLength + 2) : min(maximumDraft, accepted + 1)
    }

    /// Adds tokens written after the context.
    public mutating func append(_ tokens: [Int]) {
        context += tokens
    }

    /// The tokens that followed the most recent earlier occurrence of the context's longest
    /// matching suffix, at most `limit` (and ``draftLength``) of them; empty when no suffix of
    /// ``shortestMatch`` tokens or more occurred before.
    public func draft(limit: Int = .max) -> [Int] {
        let wanted = min(limit, draftLength)
        let count = context.count
        guard wanted > 0 else { return [] }
        var n = min(longestMatch, count - 1)
        while n >= shortestMatch {
            let suffix = count - n
            // An occurrence at `start` must end before the context does, so something follows it.
            var start = suffix - 1
            while start >= 0 {
                if matches(at: start, suffixStart: suffix, length: n) {
                    let from = start + n
                    return Array(context[from..<min(from + wanted, count)])
                }
                start -= 1
            }
            n -= 1
        }
        return []
    }

    /// Whether `context[start..<start+length]` equals `context[suffixStart..<suffixStart+length]`.
    private func matches(at start: Int, suffixStart: Int, length: Int) -> Bool {
        context.withUnsafeBufferPointer { c in
            for i in 0..<length where c[start + i] != c[suffixStart + i] { return false }
            return true
        }
    }
}
