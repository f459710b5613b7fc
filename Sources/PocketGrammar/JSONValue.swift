/// A parsed JSON value that keeps object keys in document order (JSON Schema `properties`
/// order is the property order of the output).
enum JSONValue: Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.bool(let x), .bool(let y)): x == y
        case (.number(let x), .number(let y)): x == y
        case (.string(let x), .string(let y)): x == y
        case (.array(let x), .array(let y)): x == y
        case (.object(let x), .object(let y)): x.count == y.count && zip(x, y).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The value of `key` in an object.
    subscript(key: String) -> JSONValue? {
        if case .object(let pairs) = self { return pairs.first { $0.key == key }?.value }
        return nil
    }

    /// Parses a complete JSON document.
    static func parse(_ bytes: [UInt8]) throws(GrammarError) -> JSONValue {
        var parser = Parser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw .invalidJSON("unexpected text after the value", offset: parser.index) }
        return value
    }

    private struct Parser {
        let bytes: [UInt8]
        var index = 0

        mutating func skipWhitespace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        func fail(_ message: String) -> GrammarError { .invalidJSON(message, offset: index) }

        mutating func expect(_ c: UInt8) throws(GrammarError) {
            guard index < bytes.count, bytes[index] == c else { throw fail("expected '\(Character(Unicode.Scalar(c)))'") }
            index += 1
        }

        mutating func value(depth: Int) throws(GrammarError) -> JSONValue {
            guard depth < 128 else { throw fail("nesting too deep") }
            guard index < bytes.count else { throw fail("unexpected end of input") }
            switch bytes[index] {
            case UInt8(ascii: "{"):
                index += 1
                var pairs: [(key: String, value: JSONValue)] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(pairs) }
                while true {
                    skipWhitespace()
                    let key = try string()
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"))
                    skipWhitespace()
                    pairs.append((key, try value(depth: depth + 1)))
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "}"))
                    return .object(pairs)
                }
            case UInt8(ascii: "["):
                index += 1
                var items: [JSONValue] = []
                skipWhitespace()
                if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
                while true {
                    skipWhitespace()
                    items.append(try value(depth: depth + 1))
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1; continue }
                    try expect(UInt8(ascii: "]"))
                    return .array(items)
                }
            case UInt8(ascii: "\""): return .string(try string())
            case UInt8(ascii: "t"): try word("true"); return .bool(true)
            case UInt8(ascii: "f"): try word("false"); return .bool(false)
            case UInt8(ascii: "n"): try word("null"); return .null
            default: return .number(try number())
            }
        }

        mutating func word(_ w: String) throws(GrammarError) {
            for c in w.utf8 { try expect(c) }
        }

        mutating func number() throws(GrammarError) -> Double {
            let start = index
            while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
            guard let value = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
                index = start
                throw fail("invalid number")
            }
            return value
        }

        mutating func string() throws(GrammarError) -> String {
            try expect(UInt8(ascii: "\""))
            var out: [UInt8] = []
            while index < bytes.count {
                let c = bytes[index]
                index += 1
                if c == UInt8(ascii: "\"") {
                    guard let s = String(validating: out, as: UTF8.self) else { throw fail("string is not valid UTF-8") }
                    return s
                }
                if c != UInt8(ascii: "\\") { out.append(c); continue }
                guard index < bytes.count else { break }
                let e = bytes[index]
                index += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "u"):
                    guard index + 4 <= bytes.count, let code = UInt32(String(decoding: bytes[index..<(index + 4)], as: UTF8.self), radix: 16) else {
                        throw fail("bad \\u escape")
                    }
                    index += 4
                    var scalarValue = code
                    if (0xD800...0xDBFF).contains(code), index + 6 <= bytes.count, bytes[index] == UInt8(ascii: "\\"),
                       let low = UInt32(String(decoding: bytes[(index + 2)..<(index + 6)], as: UTF8.self), radix: 16),
                       (0xDC00...0xDFFF).contains(low) {
                        scalarValue = 0x10000 + (code - 0xD800) << 10 + (low - 0xDC00)
                        index += 6
                    }
                    out += Array(String(Unicode.Scalar(scalarValue) ?? "\u{FFFD}").utf8)
                default: out.append(e)
                }
            }
            throw fail("unterminated string")
        }
    }
}
