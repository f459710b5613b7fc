import PocketGrammar

// JSON text <-> GeneratedContent. A small hand-written parser is used because Foundation's
// JSONSerialization loses the order of object keys, and the order of a structure's keys is
// part of its meaning here (it is the order properties are generated in). The parser also
// accepts any prefix of a JSON document, which is what a streaming response looks like.

extension GeneratedContent {
    /// Creates content by parsing JSON text, which may be a prefix of a JSON document.
    ///
    /// A whole document gives content whose ``isComplete`` is `true`. A prefix, as seen while a
    /// response streams, gives the value read so far with `isComplete == false`:
    /// an unterminated string keeps the characters read (a cut escape sequence is dropped), an
    /// unterminated array or object keeps its finished and partial members, a dangling key
    /// without a value is dropped, a cut literal (`tr`) is read as the literal it starts, and a
    /// number at the end of the text is kept but marked incomplete because it may still grow.
    /// Empty text is an incomplete `null`.
    ///
    /// Objects keep their keys in the order of the text. A key may appear only once.
    ///
    /// - Parameter json: JSON text, whole or a prefix.
    /// - Throws: ``JSONError`` naming the byte offset and what was expected when the text is
    ///   neither a JSON document nor a prefix of one (also for nesting deeper than 512 levels).
    public init(json: String) throws {
        var parser = PartialJSONParser(bytes: Array(json.utf8))
        self = try parser.parseDocument()
    }

    /// The content as compact JSON text, with structure keys in their order.
    ///
    /// Strings are escaped as RFC 8259 requires (`"`, `\`, and control characters; other
    /// characters are written as UTF-8). Integral numbers of magnitude below 10^15 are written
    /// without a fraction (`30`, not `30.0`); non-finite numbers, which JSON cannot represent,
    /// are written as `null`.
    public var jsonString: String {
        var writer = JSONTextWriter(prettyPrinted: false)
        writer.write(self)
        return writer.output
    }

    /// An error thrown by ``GeneratedContent/init(json:)`` for text that is not JSON.
    ///
    /// This is a Pocket addition: Apple documents only that the initializer throws.
    public struct JSONError: Error, CustomStringConvertible, Sendable, Equatable {
        /// The UTF-8 byte offset in the text where the problem was found.
        public let offset: Int
        /// What was wrong and what was expected there.
        public let message: String

        /// Creates an error at a byte offset.
        ///
        /// - Parameters:
        ///   - offset: The UTF-8 byte offset of the problem.
        ///   - message: What was found and what was expected.
        public init(offset: Int, message: String) {
            self.offset = offset
            self.message = message
        }

        /// A sentence naming the offset and the problem.
        public var description: String {
            "Invalid JSON at byte offset \(offset): \(message)"
        }
    }
}

/// Writes `GeneratedContent` as JSON text, compact or indented by two spaces.
struct JSONTextWriter {
    let prettyPrinted: Bool
    private(set) var output = ""
    private var depth = 0

    init(prettyPrinted: Bool) {
        self.prettyPrinted = prettyPrinted
    }

    mutating func write(_ content: GeneratedContent) {
        switch content.kind {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let value): output += Self.format(value)
        case .string(let value): JSONText.appendQuoted(value, to: &output)
        case .array(let elements):
            writeContainer(open: "[", close: "]", count: elements.count) { writer, index in
                writer.write(elements[index])
            }
        case .structure(let properties, let orderedKeys):
            let keys = GeneratedContent.outputKeys(properties, orderedKeys)
            writeContainer(open: "{", close: "}", count: keys.count) { writer, index in
                JSONText.appendQuoted(keys[index], to: &writer.output)
                writer.output += writer.prettyPrinted ? ": " : ":"
                writer.write(properties[keys[index]]!)
            }
        }
    }

    private mutating func writeContainer(
        open: String, close: String, count: Int, element: (inout JSONTextWriter, Int) -> Void
    ) {
        output += open
        guard count > 0 else { return output += close }
        depth += 1
        for index in 0..<count {
            if index > 0 { output += "," }
            newline()
            element(&self, index)
        }
        depth -= 1
        newline()
        output += close
    }

    private mutating func newline() {
        guard prettyPrinted else { return }
        output += "\n" + String(repeating: "  ", count: depth)
    }

    /// JSON text for a number: integral values without a fraction, `null` when not finite.
    static func format(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 {
            return String(Int64(value))
        }
        return value.description
    }
}

/// A recursive-descent parser over UTF-8 bytes that also accepts a prefix of a document.
///
/// Each `parse…` function returns the value read and whether it was finished; running out of
/// input is never an error, only an unexpected byte is.
struct PartialJSONParser {
    static let maximumDepth = 512

    let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private var atEnd: Bool { index >= bytes.count }

    mutating func parseDocument() throws -> GeneratedContent {
        skipWhitespace()
        guard var value = try parseValue() else {
            return GeneratedContent(kind: .null, isComplete: false)
        }
        // A number that ends the text is complete once it is the whole document.
        if case .number = value.kind, lastNumberWasWellFormed { value._isComplete = true }
        skipWhitespace()
        if !atEnd {
            throw error("unexpected \(describeCurrentByte()) after the JSON value; expected the end of the text")
        }
        return value
    }

    // MARK: Values

    /// Parses one value; `nil` when the text ends before the value has any meaning yet
    /// (nothing at all, or a lone `-`).
    private mutating func parseValue() throws -> GeneratedContent? {
        guard !atEnd else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""):
            let (string, complete) = try parseString()
            return GeneratedContent(kind: .string(string), isComplete: complete)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        default:
            throw error("unexpected \(describeCurrentByte()); expected a JSON value")
        }
    }

    private mutating func parseObject() throws -> GeneratedContent {
        try enterContainer()
        defer { depth -= 1 }
        index += 1  // {
        var properties: [String: GeneratedContent] = [:]
        var keys: [String] = []
        func partial() -> GeneratedContent {
            GeneratedContent(kind: .structure(properties: properties, orderedKeys: keys), isComplete: false)
        }
        skipWhitespace()
        if atEnd { return partial() }
        if bytes[index] == UInt8(ascii: "}") {
            index += 1
            return GeneratedContent(kind: .structure(properties: [:], orderedKeys: []), isComplete: true)
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
            guard properties.updateValue(value, forKey: key) == nil else {
                throw GeneratedContent.JSONError(offset: keyOffset, message: "duplicate key \"\(key)\"; keys of an object must be unique")
            }
            keys.append(key)
            skipWhitespace()
            if atEnd || !value.isComplete { return partial() }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if atEnd { return partial() }
            case UInt8(ascii: "}"):
                index += 1
                return GeneratedContent(kind: .structure(properties: properties, orderedKeys: keys), isComplete: true)
            default:
                throw error("unexpected \(describeCurrentByte()); expected ',' or '}' in an object")
            }
        }
    }

    private mutating func parseArray() throws -> GeneratedContent {
        try enterContainer()
        defer { depth -= 1 }
        index += 1  // [
        var elements: [GeneratedContent] = []
        skipWhitespace()
        if atEnd { return GeneratedContent(kind: .array([]), isComplete: false) }
        if bytes[index] == UInt8(ascii: "]") {
            index += 1
            return GeneratedContent(kind: .array([]), isComplete: true)
        }
        while true {
            guard let element = try parseValue() else {
                return GeneratedContent(kind: .array(elements), isComplete: false)
            }
            elements.append(element)
            skipWhitespace()
            if atEnd || !element.isComplete {
                return GeneratedContent(kind: .array(elements), isComplete: false)
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                index += 1
                skipWhitespace()
                if atEnd { return GeneratedContent(kind: .array(elements), isComplete: false) }
            case UInt8(ascii: "]"):
                index += 1
                return GeneratedContent(kind: .array(elements), isComplete: true)
            default:
                throw error("unexpected \(describeCurrentByte()); expected ',' or ']' in an array")
            }
        }
    }

    /// Reads a string starting at its opening quote. Returns the characters read and whether
    /// the closing quote was reached.
    private mutating func parseString() throws -> (String, Bool) {
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
    private mutating func parseEscape() throws -> Unicode.Scalar? {
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
                    throw GeneratedContent.JSONError(offset: start, message: "unpaired UTF-16 high surrogate \\u\(String(unit, radix: 16, uppercase: true)); expected a low surrogate escape to follow")
                }
                index += 2
                guard let low = try parseHex4() else { return nil }
                guard (0xDC00...0xDFFF).contains(low) else {
                    throw GeneratedContent.JSONError(offset: start, message: "unpaired UTF-16 high surrogate \\u\(String(unit, radix: 16, uppercase: true)); expected a low surrogate escape to follow")
                }
                let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                return Unicode.Scalar(value)!
            case 0xDC00...0xDFFF:
                throw GeneratedContent.JSONError(offset: start, message: "unpaired UTF-16 low surrogate \\u\(String(unit, radix: 16, uppercase: true))")
            default:
                return Unicode.Scalar(unit)!
            }
        default:
            throw GeneratedContent.JSONError(offset: start, message: "invalid escape sequence '\\\(Character(Unicode.Scalar(byte)))'; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\u and four hex digits")
        }
    }

    /// Four hex digits after `\u`; `nil` when the text ends first.
    private mutating func parseHex4() throws -> UInt16? {
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
    private mutating func parseNumber() throws -> GeneratedContent? {
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
        return GeneratedContent(kind: .number(value), isComplete: wellFormed && !atEnd)
    }

    private mutating func parseLiteral(_ word: String, _ kind: GeneratedContent.Kind) throws -> GeneratedContent {
        for expected in word.utf8 {
            if atEnd { return GeneratedContent(kind: kind, isComplete: false) }
            guard bytes[index] == expected else {
                throw error("unexpected \(describeCurrentByte()); expected the literal \(word)")
            }
            index += 1
        }
        return GeneratedContent(kind: kind, isComplete: true)
    }

    // MARK: Helpers

    private mutating func enterContainer() throws {
        depth += 1
        if depth > Self.maximumDepth {
            throw error("nesting deeper than \(Self.maximumDepth) arrays and objects")
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

    private func error(_ message: String) -> GeneratedContent.JSONError {
        GeneratedContent.JSONError(offset: index, message: message)
    }
}
