// The one JSON parser: strict RFC 8259 text, object keys kept in document order, and any
// prefix of a document accepted (what a streaming response looks like). `Pocket` builds
// `GeneratedContent` from its nodes; the JSON Schema importer reads whole documents with it.

/// A parsed JSON value with its object keys in document order, and whether the text held all
/// of it.
package struct JSONNode: Sendable {
    /// The kinds of JSON values.
    package indirect enum Kind: Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        /// Members in document order; keys are unique.
        case object([(key: String, value: JSONNode)])
    }

    /// The value (as much of it as the text held).
    package var kind: Kind
    /// Whether the value was finished in the text (a prefix leaves the last values open).
    package var isComplete: Bool

    /// Creates a node.
    package init(_ kind: Kind, isComplete: Bool) {
        self.kind = kind
        self.isComplete = isComplete
    }
}

/// Text that is neither a JSON document nor a prefix of one.
package struct JSONParseError: Error, Sendable {
    /// The UTF-8 byte offset of the problem.
    package let offset: Int
    /// What was found and what was expected there.
    package let message: String
}

/// A recursive-descent parser over UTF-8 bytes that also accepts a prefix of a document.
///
/// Each `parse…` function returns the value read and whether it was finished; running out of
/// input is never an error, only an unexpected byte is.
package struct JSONParser {
    /// Deepest nesting of arrays and objects `GeneratedContent(json:)` accepts.
    package static let defaultMaximumDepth = 512

    let bytes: [UInt8]
    /// Deepest nesting of arrays and objects accepted.
    let maximumDepth: Int
    private var index = 0
    private var depth = 0

    /// A parser over `bytes` that accepts up to `maximumDepth` nested arrays and objects.
    package init(bytes: [UInt8], maximumDepth: Int = defaultMaximumDepth) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    private var atEnd: Bool { index >= bytes.count }

    /// Parses the whole text: a document or a prefix of one (see ``JSONNode/isComplete``).
    ///
    /// - Throws: ``JSONParseError`` at the first byte that no document can have there, or
    ///   after the value; nesting deeper than ``maximumDepth`` arrays and objects.
    package mutating func parseDocument() throws(JSONParseError) -> JSONNode {
        skipWhitespace()
        guard var value = try parseValue() else {
            return JSONNode(.null, isComplete: false)
        }
        // A number that ends the text is complete once it is the whole document.
        if case .number = value.kind, lastNumberWasWellFormed { value.isComplete = true }
        skipWhitespace()
        if !atEnd {
            throw error("unexpected \(describeCurrentByte()) after the JSON value; expected the end of the text")
        }
        return value
    }

    // MARK: Values

    /// Parses one value; `nil` when the text ends before the value has any meaning yet
    /// (nothing at all, or a lone `-`).
    private mutating func parseValue() throws(JSONParseError) -> JSONNode? {
        guard !atEnd else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let (string, complete) = try parseString()
            return JSONNode(.string(string), isComplete: complete)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        default:
            throw error("unexpected \(describeCurrentByte()); expected a JSON value")
        }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONNode {
        try enterContainer()
        defer { depth -= 1 }
        index += 1  // {
        var members: [(key: String, value: JSONNode)] = []
        var keys: Set<String> = []
        func partial() -> JSONNode {
            JSONNode(.object(members), isComplete: false)
        }
        skipWhitespace()
        if atEnd { return partial() }
        if bytes[index] == UInt8(ascii: "}") {
            index += 1
            return JSONNode(.object([]), isComplete: true)
        }
        while true {
            guard bytes[index] == UInt8(ascii: "\"") else {
                throw error("unexpected \(describeCurrentByte()); expected a string key")
            }
            let keyOffset = index
            let (key, keyComplete) = try parseString()
            skipWhitespace()
            // A key without its value is dropped: it has no content yet.
            if !keyComplete || atEnd { return partial() }
            guard bytes[index] == UInt8(ascii: ":") else {
                throw error("unexpected \(describeCurrentByte()); expected ':' after the key \"\(key)\"")
            }
            index += 1
            skipWhitespace()
            guard let value = try parseValue() else { return partial() }
            guard keys.insert(key).inserted else {
                throw JSONParseError(offset: keyOffset, message: "duplicate key \"\(key)\"; keys of an object must be unique")
            }
            members.append((key, value))
            skipWhitespace()
            if atEnd || !value.isComplete { return partial() }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if atEnd { return partial() }
            case UInt8(ascii: "}"):
                index += 1
                return JSONNode(.object(members), isComplete: true)
            default:
                throw error("unexpected \(describeCurrentByte()); expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONNode {
        try enterContainer()
        defer { depth -= 1 }
        index += 1  // [
        var elements: [JSONNode] = []
        skipWhitespace()
        if atEnd { return JSONNode(.array([]), isComplete: false) }
        if bytes[index] == UInt8(ascii: "]") {
            index += 1
            return JSONNode(.array([]), isComplete: true)
        }
        while true {
            guard let element = try parseValue() else {
                return JSONNode(.array(elements), isComplete: false)
            }
            elements.append(element)
            skipWhitespace()
            if atEnd || !element.isComplete {
                return JSONNode(.array(elements), isComplete: false)
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if atEnd { return JSONNode(.array(elements), isComplete: false) }
            case UInt8(ascii: "]"):
                index += 1
                return JSONNode(.array(elements), isComplete: true)
            default:
                throw error("unexpected \(describeCurrentByte()); expected ',' or ']' in an array")
            }
        }
    }

    /// Reads a string starting at its opening quote. Returns the characters read and whether
    /// the closing quote was reached.
    private mutating func parseString() throws(JSONParseError) -> (String, Bool) {
        index += 1  // "
        var buffer: [UInt8] = []
        while !atEnd {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return (String(decoding: buffer, as: UTF8.self), true)
            case UInt8(ascii: "\\"):
                guard let scalar = try parseEscape() else {
                    return (String(decoding: buffer, as: UTF8.self), false)
                }
                buffer.append(contentsOf: String(Character(scalar)).utf8)
            case 0..<0x20:
                throw error("unescaped control character 0x\(String(byte, radix: 16)) in a string; expected it written as an escape sequence")
            default:
                buffer.append(byte)
                index += 1
            }
        }
        return (String(decoding: buffer, as: UTF8.self), false)
    }

    /// Reads an escape sequence at a backslash; `nil` when the text ends inside it.
    private mutating func parseEscape() throws(JSONParseError) -> Unicode.Scalar? {
        let start = index
        index += 1  // backslash
        guard !atEnd else { return nil }
        let byte = bytes[index]
        index += 1
        switch byte {
        case UInt8(ascii: "\""): return "\""
        case UInt8(ascii: "\\"): return "\\"
        case UInt8(ascii: "/"): return "/"
        case UInt8(ascii: "b"): return "\u{08}"
        case UInt8(ascii: "f"): return "\u{0C}"
        case UInt8(ascii: "n"): return "\n"
        case UInt8(ascii: "r"): return "\r"
        case UInt8(ascii: "t"): return "\t"
        case UInt8(ascii: "u"):
            guard let unit = try parseHex4() else { return nil }
            switch unit {
            case 0xD800...0xDBFF:
                // A high surrogate must be followed by an escaped low surrogate.
                let remaining = bytes.count - index
                if remaining < 2, bytes[index...].elementsEqual("\\u".utf8.prefix(remaining)) {
                    index = bytes.count
                    return nil
                }
                guard remaining >= 2, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw JSONParseError(offset: start, message: "unpaired UTF-16 high surrogate \\u\(String(unit, radix: 16, uppercase: true)); expected a low surrogate escape to follow")
                }
                index += 2
                guard let low = try parseHex4() else { return nil }
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw JSONParseError(offset: start, message: "unpaired UTF-16 high surrogate \\u\(String(unit, radix: 16, uppercase: true)); expected a low surrogate escape to follow")
                }
                let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                return Unicode.Scalar(value)!
            case 0xDC00...0xDFFF:
                throw JSONParseError(offset: start, message: "unpaired UTF-16 low surrogate \\u\(String(unit, radix: 16, uppercase: true))")
            default:
                return Unicode.Scalar(unit)!
            }
        default:
            throw JSONParseError(offset: start, message: "invalid escape sequence '\\\(Character(Unicode.Scalar(byte)))'; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and four hex digits")
        }
    }

    /// Four hex digits after `\u`; `nil` when the text ends first.
    private mutating func parseHex4() throws(JSONParseError) -> UInt16? {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard !atEnd else { return nil }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("unexpected \(describeCurrentByte()) in a \\u escape; expected a hexadecimal digit")
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }

    /// Set by `parseNumber`: whether the number read so far is a complete JSON number.
    private var lastNumberWasWellFormed = false

    /// Reads a number per RFC 8259 (`-? int frac? exp?`, no leading zeros). A number that
    /// reaches the end of the text is incomplete: more digits may follow.
    private mutating func parseNumber() throws(JSONParseError) -> JSONNode? {
        let start = index
        var wellFormed = false
        // The longest prefix that is itself a number, used when the text is cut.
        var lastValidEnd = start
        func digits() -> Int {
            let from = index
            while !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            return index - from
        }
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        if !atEnd, bytes[index] == UInt8(ascii: "0") {
            index += 1
            if !atEnd, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
                throw error("leading zero in a number; expected '.', 'e' or the end of the number")
            }
            wellFormed = true
        } else if digits() > 0 {
            wellFormed = true
        } else if !atEnd {
            throw error("unexpected \(describeCurrentByte()) after '-'; expected a digit")
        }
        if wellFormed { lastValidEnd = index }
        if wellFormed, !atEnd, bytes[index] == UInt8(ascii: ".") {
            index += 1
            wellFormed = digits() > 0
            if wellFormed { lastValidEnd = index } else if !atEnd {
                throw error("unexpected \(describeCurrentByte()) after '.'; expected a digit")
            }
        }
        if wellFormed, !atEnd, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if !atEnd, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            wellFormed = digits() > 0
            if wellFormed { lastValidEnd = index } else if !atEnd {
                throw error("unexpected \(describeCurrentByte()) in an exponent; expected a digit")
            }
        }
        lastNumberWasWellFormed = wellFormed
        guard lastValidEnd > start,
              let value = Double(String(decoding: bytes[start..<lastValidEnd], as: UTF8.self))
        else { return nil }  // only "-" so far
        return JSONNode(.number(value), isComplete: wellFormed && !atEnd)
    }

    private mutating func parseLiteral(_ word: String, _ kind: JSONNode.Kind) throws(JSONParseError) -> JSONNode {
        for expected in word.utf8 {
            if atEnd { return JSONNode(kind, isComplete: false) }
            guard bytes[index] == expected else {
                throw error("unexpected \(describeCurrentByte()); expected the literal \(word)")
            }
            index += 1
        }
        return JSONNode(kind, isComplete: true)
    }

    // MARK: Helpers

    private mutating func enterContainer() throws(JSONParseError) {
        depth += 1
        if depth > maximumDepth {
            throw error("nesting deeper than \(maximumDepth) arrays and objects")
        }
    }

    private mutating func skipWhitespace() {
        while !atEnd {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    private func describeCurrentByte() -> String {
        let byte = bytes[index]
        if (0x21...0x7E).contains(byte) { return "'\(Character(Unicode.Scalar(byte)))'" }
        return "byte 0x\(String(byte, radix: 16, uppercase: true))"
    }

    private func error(_ message: String) -> JSONParseError {
        JSONParseError(offset: index, message: message)
    }
}
