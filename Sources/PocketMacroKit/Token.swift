/// One lexical token of Swift source, with its place in the text it was read from.
///
/// The lexer keeps only what the declaration parser needs: identifiers and keywords (one kind:
/// the parser tells them apart by spelling), punctuation and operators, literals as raw source
/// text, and `#` directives. Comments and whitespace are skipped.
public struct Token: Equatable, Sendable {
    /// What kind of token this is.
    public enum Kind: Equatable, Sendable {
        /// An identifier or keyword: `struct`, `name`, `` `default` `` (backticks removed).
        case identifier
        /// `@`.
        case at
        /// `#` followed by a name, e.g. `#if` (the text includes the `#`).
        case poundKeyword
        /// A string literal of any form (`"…"`, `"""…"""`, `#"…"#`); text is the whole literal.
        case stringLiteral
        /// A regex literal `/…/` or `#/…/#`; text is the whole literal.
        case regexLiteral
        /// An integer or floating-point literal.
        case number
        /// A single bracket or separator: `( ) [ ] { } , : ; .` (and `<` `>` when alone).
        case punctuation
        /// A run of operator characters other than the above, e.g. `...`, `->`, `=`, `?`.
        case `operator`
    }

    /// The token's kind.
    public var kind: Kind
    /// The token's text (for identifiers written in backticks, without them).
    public var text: String
    /// UTF-8 offset of the token's first byte in the lexed text.
    public var start: Int
    /// UTF-8 offset just past the token's last byte.
    public var end: Int

    /// Creates a token.
    public init(kind: Kind, text: String, start: Int, end: Int) {
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end
    }

    /// Whether this is the punctuation or operator `symbol`.
    public func isSymbol(_ symbol: String) -> Bool {
        (kind == .punctuation || kind == .operator) && text == symbol
    }

    /// Whether this is the identifier or keyword `word`.
    public func isWord(_ word: String) -> Bool {
        kind == .identifier && text == word
    }
}
