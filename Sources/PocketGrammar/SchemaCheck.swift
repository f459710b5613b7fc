/// Checks a tokenized document against a grammar, as `pocket schema check` does.
public enum SchemaCheck {
    /// The outcome for one document.
    public enum Outcome: Equatable, Sendable, CustomStringConvertible {
        /// Every token was allowed and the value is complete.
        case accept
        /// Token `tokenIndex` was not allowed; `byteOffset` is the first rejected byte of the document.
        case reject(tokenIndex: Int, byteOffset: Int)
        /// The document ended before the value was complete.
        case incomplete

        public var description: String {
            switch self {
            case .accept: "accept"
            case .reject(let t, let b): "reject \(t) \(b)"
            case .incomplete: "incomplete"
            }
        }
    }

    /// Steps the matcher through `tokens`, checking each against the mask.
    public static func check(tokens: [Int], grammar: CompiledGrammar, vocabulary: Vocabulary) -> Outcome {
        var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        var offset = 0
        for (i, token) in tokens.enumerated() {
            if !matcher.accept(token) {
                let bytes = token >= 0 && token < vocabulary.count ? vocabulary.tokens[token] : []
                return .reject(tokenIndex: i, byteOffset: offset + (matcher.firstRejectedByte(bytes) ?? 0))
            }
            offset += vocabulary.tokens[token].count
        }
        return matcher.canEnd ? .accept : .incomplete
    }
}
