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

    /// Parses a complete JSON document (with ``JSONParser``, which also reads prefixes: a
    /// document cut short is an error here), at most 128 arrays and objects deep.
    static func parse(_ bytes: [UInt8]) throws(GrammarError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maximumDepth: 127)
        let node: JSONNode
        do { node = try parser.parseDocument() } catch { throw .invalidJSON(error.message, offset: error.offset) }
        guard node.isComplete else { throw .invalidJSON("unexpected end of input", offset: bytes.count) }
        return JSONValue(node)
    }

    /// The value of a complete parsed node.
    init(_ node: JSONNode) {
        switch node.kind {
        case .null: self = .null
        case .bool(let value): self = .bool(value)
        case .number(let value): self = .number(value)
        case .string(let value): self = .string(value)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let members): self = .object(members.map { (key: $0.key, value: JSONValue($0.value)) })
        }
    }
}
