import PocketGrammar
import PocketTokenizer
import PocketTransformer

/// Grammar-constrained token choice: the grammar says which tokens may come next, the
/// transformer's ``Sampler`` picks among them.
///
/// The two layers do not know each other (PocketGrammar produces token masks, PocketTransformer
/// samples logits); this adapter couples them for the session and the command-line tool.
///
/// Greedy decoding and sampling without a top-k or top-p cut take a fast path: a token is
/// first chosen from the unconstrained distribution and kept if the grammar allows it; only
/// when it does not is the full mask computed and the choice repeated over the allowed tokens.
/// This gives exactly the masked distribution (a rejected first draw is redrawn from the
/// allowed set in proportion to its probability), at the cost of one check instead of a mask
/// in most steps. With a cut, which tokens survive it depends on which are allowed, so the
/// mask is always computed first.
///
/// ```swift
/// var decoding = ConstrainedDecoding(grammar: grammar, vocabulary: vocabulary, sampling: .greedy)
/// let token = logits.withUnsafeBufferPointer { decoding.next($0) }  // accepted into the grammar
/// if decoding.isComplete { … }
/// ```
package struct ConstrainedDecoding {
    /// Where the output stands in the grammar.
    package private(set) var matcher: GrammarMatcher
    private var sampler: Sampler
    private var mask: TokenMask
    /// How many choices needed the full mask (for measurements and tests).
    package private(set) var maskedSteps = 0
    /// How many choices the fast path decided.
    package private(set) var fastSteps = 0

    /// Starts decoding from `matcher`'s state with a fresh sampler.
    package init(matcher: GrammarMatcher, sampling: SamplingParameters) {
        self.matcher = matcher
        sampler = Sampler(sampling)
        mask = TokenMask(count: matcher.vocabulary.count)
    }

    /// Starts decoding a value of `grammar` with a fresh sampler.
    package init(grammar: CompiledGrammar, vocabulary: Vocabulary, sampling: SamplingParameters) {
        self.init(matcher: GrammarMatcher(grammar: grammar, vocabulary: vocabulary), sampling: sampling)
    }

    /// Whether the value is complete and nothing more may follow.
    package var isComplete: Bool { matcher.isComplete }

    /// Whether the output so far is a complete value.
    package var canEnd: Bool { matcher.canEnd }

    /// Chooses the next token among those the grammar allows and accepts it into the grammar.
    ///
    /// - Parameter logits: One score per token (`-infinity`: never chosen).
    /// - Returns: The chosen token.
    package mutating func next(_ logits: UnsafeBufferPointer<Float>) -> Int {
        let parameters = sampler.parameters
        if parameters.isGreedy || (parameters.topK <= 0 && parameters.topP >= 1) {
            let first = sampler.sample(logits)
            if matcher.allows(first) {
                fastSteps += 1
                matcher.accept(first)
                return first
            }
        }
        maskedSteps += 1
        matcher.fillMask(&mask)
        let token = sampler.sample(logits) { [mask] in mask.contains($0) }
        matcher.accept(token)
        return token
    }

    /// Accepts the tokens of the text the grammar leaves no choice about from here (see
    /// ``GrammarMatcher/forcedBytes(limit:)``), but the last, and returns them: a decoder
    /// evaluates them with the token before them in one pass, without sampling.
    ///
    /// The tokens are `tokenizer`'s for that text, as a prompt's are. The last one stays the
    /// model's choice, since the model may write it merged with what follows (`":` as `":"`
    /// before a string); text that ends inside a character is cut before that character.
    ///
    /// - Parameter limit: At most this many tokens.
    package mutating func acceptForcedTokens(tokenizer: Tokenizer, limit: Int = .max) -> [Int] {
        var bytes = matcher.forcedBytes()
        if let lead = bytes.lastIndex(where: { $0 & 0xC0 != 0x80 }), bytes[lead] >= 0xC0 {
            let length = bytes[lead] >= 0xF0 ? 4 : bytes[lead] >= 0xE0 ? 3 : 2
            if bytes.count - lead < length { bytes.removeSubrange(lead...) }
        }
        guard !bytes.isEmpty, limit > 0 else { return [] }
        var accepted: [Int] = []
        for token in tokenizer.encode(String(decoding: bytes, as: UTF8.self)).dropLast().prefix(limit) {
            guard matcher.accept(token) else { break }
            accepted.append(token)
        }
        return accepted
    }

    /// Accepts text the grammar did not choose (the start of a value written in the same token
    /// as what came before it); returns whether the grammar allows it, unchanged if not.
    package mutating func accept(bytes: [UInt8]) -> Bool {
        var trial = matcher
        guard trial.accept(bytes: bytes) else { return false }
        matcher = trial
        return true
    }

    /// Chooses the first token of a reply that is either a value of the grammar or the start
    /// of something else (`alternative`, such as a tool call's opener), using the caller's
    /// sampler; a token of the value is accepted into the grammar, `alternative` is not.
    ///
    /// - Parameters:
    ///   - logits: One score per token (`-infinity`: never chosen).
    ///   - alternative: A token allowed besides the grammar's.
    ///   - sampler: The sampler to draw with (the reply's, not this value's).
    /// - Returns: The chosen token.
    package mutating func next(
        _ logits: UnsafeBufferPointer<Float>, orAlternative alternative: Int, using sampler: inout Sampler
    ) -> Int {
        matcher.fillMask(&mask)
        let token = sampler.sample(logits) { [mask] in mask.contains($0) || $0 == alternative }
        if token != alternative { matcher.accept(token) }
        return token
    }
}
