/// Splits Swift source text into tokens.
///
/// Enough of Swift's lexical grammar for declarations: identifiers (and backticked ones),
/// nested block comments, every string literal form (multi-line, raw with any number of `#`,
/// interpolations that themselves contain strings and parentheses), regex literals, numbers,
/// and operators. Braces inside comments and literals therefore never confuse the parser.
///
/// `<`, `>`, `?` and `!` are always single tokens, so that `[Array<Int>?]` and `Set<Set<Int>>`
/// split the way a type reads; declarations never need those characters as longer operators.
public struct Lexer {
    private let bytes: [UInt8]
    private var position = 0
    private var tokens: [Token] = []

    private init(_ text: String) {
        bytes = Array(text.utf8)
    }

    /// Returns the tokens of `text`, in order.
    ///
    /// - Throws: ``MacroError`` at the offending offset for an unterminated comment, string
    ///   or regex literal, or a character Swift does not allow there.
    public static func tokenize(_ text: String) throws(MacroError) -> [Token] {
        var lexer = Lexer(text)
        try lexer.run()
        return lexer.tokens
    }

    private mutating func run() throws(MacroError) {
        while position < bytes.count {
            let byte = bytes[position]
            let start = position
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0B, 0x0C:
                position += 1
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "/"):
                while position < bytes.count && bytes[position] != UInt8(ascii: "\n") { position += 1 }
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"):
                try skipBlockComment()
            case UInt8(ascii: "/") where regexMayStartHere():
                try lexRegex(hashes: 0, start: start)
            case UInt8(ascii: "\""):
                try lexString(hashes: 0, start: start)
            case UInt8(ascii: "#"):
                try lexPound(start: start)
            case UInt8(ascii: "`"):
                position += 1
                let nameStart = position
                while position < bytes.count && bytes[position] != UInt8(ascii: "`") && bytes[position] != UInt8(ascii: "\n") {
                    position += 1
                }
                guard position < bytes.count, bytes[position] == UInt8(ascii: "`") else {
                    throw MacroError("unterminated backticked identifier", at: start)
                }
                let name = text(nameStart, position)
                position += 1
                append(.identifier, name, start)
            case UInt8(ascii: "@"):
                position += 1
                append(.at, "@", start)
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["), UInt8(ascii: "]"),
                 UInt8(ascii: "{"), UInt8(ascii: "}"), UInt8(ascii: ","), UInt8(ascii: ":"),
                 UInt8(ascii: ";"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "?"),
                 UInt8(ascii: "!"):
                position += 1
                append(.punctuation, text(start, position), start)
            case UInt8(ascii: "."):
                if peek(1) == UInt8(ascii: ".") {
                    lexOperator(start: start)
                } else {
                    position += 1
                    append(.punctuation, ".", start)
                }
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                lexNumber(start: start)
            default:
                if Self.isIdentifierStart(byte) {
                    while position < bytes.count && Self.isIdentifierContinue(bytes[position]) { position += 1 }
                    append(.identifier, text(start, position), start)
                } else if Self.isOperatorCharacter(byte) {
                    lexOperator(start: start)
                } else {
                    throw MacroError("unexpected character '\(Unicode.Scalar(byte))'", at: start)
                }
            }
        }
    }

    // MARK: Pieces

    private func peek(_ distance: Int) -> UInt8? {
        position + distance < bytes.count ? bytes[position + distance] : nil
    }

    private func text(_ start: Int, _ end: Int) -> String {
        String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private mutating func append(_ kind: Token.Kind, _ text: String, _ start: Int) {
        tokens.append(Token(kind: kind, text: text, start: start, end: position))
    }

    private mutating func skipBlockComment() throws(MacroError) {
        let start = position
        var depth = 0
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "/") && peek(1) == UInt8(ascii: "*") {
                depth += 1
                position += 2
            } else if bytes[position] == UInt8(ascii: "*") && peek(1) == UInt8(ascii: "/") {
                depth -= 1
                position += 2
                if depth == 0 { return }
            } else {
                position += 1
            }
        }
        throw MacroError("unterminated block comment", at: start)
    }

    /// A `/` begins a regex literal where an expression begins (after an opening bracket, a
    /// comma, a colon, `=` or nothing); after a value it is division.
    private func regexMayStartHere() -> Bool {
        guard let previous = tokens.last else { return true }
        switch previous.kind {
        case .punctuation: return ["(", "[", "{", ",", ":", ";"].contains(previous.text)
        case .operator: return true
        case .identifier: return ["return", "try", "await", "in"].contains(previous.text)
        default: return false
        }
    }

    /// `#` starts a raw string (`#"…"#`), an extended regex (`#/…/#`) or a directive (`#if`).
    private mutating func lexPound(start: Int) throws(MacroError) {
        var hashes = 0
        while position < bytes.count && bytes[position] == UInt8(ascii: "#") {
            hashes += 1
            position += 1
        }
        guard position < bytes.count else { throw MacroError("unexpected '#' at the end of the text", at: start) }
        if bytes[position] == UInt8(ascii: "\"") {
            position = start
            try lexString(hashes: hashes, start: start)
        } else if bytes[position] == UInt8(ascii: "/") {
            position = start
            try lexRegex(hashes: hashes, start: start)
        } else if hashes == 1 && Self.isIdentifierStart(bytes[position]) {
            while position < bytes.count && Self.isIdentifierContinue(bytes[position]) { position += 1 }
            append(.poundKeyword, text(start, position), start)
        } else {
            throw MacroError("unexpected '#'", at: start)
        }
    }

    /// Lexes a string literal whose first byte (a `#` or the quote) is at `start`.
    private mutating func lexString(hashes: Int, start: Int) throws(MacroError) {
        position = start + hashes
        let multiline = peek(0) == UInt8(ascii: "\"") && peek(1) == UInt8(ascii: "\"") && peek(2) == UInt8(ascii: "\"")
        position += multiline ? 3 : 1
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\n") && !multiline {
                throw MacroError("unterminated string literal", at: start)
            }
            if byte == UInt8(ascii: "\\") && hashesFollow(hashes, at: position + 1) {
                position += 1 + hashes
                if position < bytes.count && bytes[position] == UInt8(ascii: "(") {
                    try skipInterpolation()
                } else {
                    position += 1
                }
                continue
            }
            if byte == UInt8(ascii: "\"") {
                let quotes = multiline ? 3 : 1
                let closes = (0..<quotes).allSatisfy { peek($0) == UInt8(ascii: "\"") }
                    && hashesFollow(hashes, at: position + quotes)
                if closes {
                    position += quotes + hashes
                    append(.stringLiteral, text(start, position), start)
                    return
                }
            }
            position += 1
        }
        throw MacroError("unterminated string literal", at: start)
    }

    private func hashesFollow(_ count: Int, at offset: Int) -> Bool {
        guard offset + count <= bytes.count else { return false }
        return (0..<count).allSatisfy { bytes[offset + $0] == UInt8(ascii: "#") }
    }

    /// Skips `( … )` of a string interpolation, including nested strings and parentheses.
    private mutating func skipInterpolation() throws(MacroError) {
        let start = position
        var depth = 0
        let saved = tokens
        defer { tokens = saved }
        while position < bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "("):
                depth += 1
                position += 1
            case UInt8(ascii: ")"):
                depth -= 1
                position += 1
                if depth == 0 { return }
            case UInt8(ascii: "\""):
                try lexString(hashes: 0, start: position)
            case UInt8(ascii: "#") where peek(1) == UInt8(ascii: "\"") || peek(1) == UInt8(ascii: "#"):
                var hashes = 0
                while peek(hashes) == UInt8(ascii: "#") { hashes += 1 }
                try lexString(hashes: hashes, start: position)
            default:
                position += 1
            }
        }
        throw MacroError("unterminated string interpolation", at: start)
    }

    /// Lexes `/…/` or `#/…/#`; a `/` inside a character class `[…]` does not end the literal.
    private mutating func lexRegex(hashes: Int, start: Int) throws(MacroError) {
        position = start + hashes + 1
        var inClass = false
        while position < bytes.count {
            let byte = bytes[position]
            if byte == UInt8(ascii: "\n") && hashes == 0 { break }
            if byte == UInt8(ascii: "\\") {
                position += 2
                continue
            }
            if byte == UInt8(ascii: "[") { inClass = true }
            if byte == UInt8(ascii: "]") { inClass = false }
            if byte == UInt8(ascii: "/") && !inClass && hashesFollow(hashes, at: position + 1) {
                position += 1 + hashes
                append(.regexLiteral, text(start, position), start)
                return
            }
            position += 1
        }
        throw MacroError("unterminated regex literal", at: start)
    }

    private mutating func lexNumber(start: Int) {
        while position < bytes.count {
            let byte = bytes[position]
            if Self.isIdentifierContinue(byte) {
                // An exponent may carry a sign: 1e-3, 0x1p+4.
                let isExponent = byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")
                    || byte == UInt8(ascii: "p") || byte == UInt8(ascii: "P")
                position += 1
                if isExponent, let sign = peek(0), sign == UInt8(ascii: "-") || sign == UInt8(ascii: "+") {
                    position += 1
                }
            } else if byte == UInt8(ascii: "."), let next = peek(1), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
                position += 1
            } else {
                break
            }
        }
        append(.number, text(start, position), start)
    }

    private mutating func lexOperator(start: Int) {
        while position < bytes.count && (Self.isOperatorCharacter(bytes[position]) || bytes[position] == UInt8(ascii: ".")) {
            position += 1
        }
        append(.operator, text(start, position), start)
    }

    // MARK: Character classes

    static func isIdentifierStart(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
    }

    static func isIdentifierContinue(_ byte: UInt8) -> Bool {
        isIdentifierStart(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// Operator characters, less the ones that are always single tokens.
    static func isOperatorCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "="), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "*"), UInt8(ascii: "/"),
             UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }
}
