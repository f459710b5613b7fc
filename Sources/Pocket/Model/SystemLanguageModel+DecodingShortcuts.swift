extension SystemLanguageModel {
    /// How sessions on a GGUF model save forward passes while decoding (a Pocket addition).
    ///
    /// A CPU's decode reads every weight once per pass, whether the pass evaluates one token or
    /// nine, so tokens known before they are chosen are nearly free when they share a pass:
    ///
    /// - **Forced tokens.** Where a structured value's grammar leaves no choice (a property's
    ///   key and colon, the rest of an enum case, closing braces), the text is appended without
    ///   sampling and its tokens are evaluated in the pass of the token before them, as a
    ///   prompt's are. The last token of such a run stays the model's choice, since the model
    ///   may write it merged with what follows. The reply's text is the one the grammar
    ///   allows either way; its tokens are the tokenizer's for the forced text.
    /// - **Prompt lookup.** When the last tokens written occurred earlier in the conversation
    ///   (an extraction or a summary quoting its input), the tokens that followed them there are
    ///   evaluated as a draft in the same pass; the model then chooses each token from its own
    ///   logits as usual, and every drafted token it chooses needs no pass of its own. Drafting
    ///   never changes the reply: greedy replies are the same token for token, sampled ones
    ///   have the same distribution (with a seed, the same tokens).
    ///
    /// Both are on by default, as in a session on Apple's model: ``none`` turns them off (to
    /// measure what they save).
    ///
    /// ```swift
    /// let model = try SystemLanguageModel(contentsOf: url, decodingShortcuts: .none)
    /// ```
    public struct DecodingShortcuts: Sendable, Equatable {
        /// Whether text a grammar leaves no choice about is evaluated in one pass without sampling.
        public var batchesForcedTokens: Bool
        /// The most tokens prompt lookup drafts for one pass; 0 turns it off.
        public var promptLookupDraftLength: Int

        /// Chooses the shortcuts.
        public init(batchesForcedTokens: Bool = true, promptLookupDraftLength: Int = 8) {
            self.batchesForcedTokens = batchesForcedTokens
            self.promptLookupDraftLength = max(0, promptLookupDraftLength)
        }

        /// Both shortcuts, drafts of up to 8 tokens.
        public static let `default` = DecodingShortcuts()

        /// One token chosen, and evaluated, per pass.
        public static let none = DecodingShortcuts(batchesForcedTokens: false, promptLookupDraftLength: 0)
    }
}
