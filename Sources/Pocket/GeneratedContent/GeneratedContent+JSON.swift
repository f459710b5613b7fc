import PocketGrammar

// JSON text <-> GeneratedContent. PocketGrammar's `JSONParser` reads the text because
// Foundation's JSONSerialization loses the order of object keys, and the order of a
// structure's keys is part of its meaning here (it is the order properties are generated in).
// The parser also accepts any prefix of a JSON document, which is what a streaming response
// looks like.

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
        var parser = JSONParser(bytes: Array(json.utf8))
        do {
            self = GeneratedContent(try parser.parseDocument())
        } catch {
            throw JSONError(offset: error.offset, message: error.message)
        }
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

extension GeneratedContent {
    /// Content from a parsed JSON node, keeping its key order and completeness.
    init(_ node: JSONNode) {
        switch node.kind {
        case .null: self.init(kind: .null, isComplete: node.isComplete)
        case .bool(let value): self.init(kind: .bool(value), isComplete: node.isComplete)
        case .number(let value): self.init(kind: .number(value), isComplete: node.isComplete)
        case .string(let value): self.init(kind: .string(value), isComplete: node.isComplete)
        case .array(let elements): self.init(kind: .array(elements.map(GeneratedContent.init)), isComplete: node.isComplete)
        case .object(let members):
            var properties: [String: GeneratedContent] = [:]
            for (key, value) in members { properties[key] = GeneratedContent(value) }
            self.init(kind: .structure(properties: properties, orderedKeys: members.map(\.key)), isComplete: node.isComplete)
        }
    }
}
