/// A ``GrammarSchema`` prepared for matching: nodes numbered, references resolved, literals
/// (keys, enum strings, `true`/`false`/`null`) stored as bytes. Compile once and share: it is
/// immutable and `Sendable`.
public final class CompiledGrammar: Sendable {
    /// A node with everything the matcher needs at hand.
    enum Kind: Sendable {
        case object(properties: [Int32])          // indices into `properties`
        case array(items: Int32, minimum: Int32, maximum: Int32)
        case string(minimum: Int32, maximum: Int32)
        case pattern(Int32, maximum: Int32)          // index into `patterns`
        case choices([Int32])                     // literal ids (enum strings)
        case literal(Int32)                       // one literal (constants, true/false/null)
        case integer(minimum: Double?, maximum: Double?)
        case number(minimum: Double?, maximum: Double?)
        case anyOf([Int32])                       // node ids
        case anyValue
    }

    struct CompiledProperty: Sendable {
        var key: Int32                            // literal id of `"name":`
        var node: Int32
        var isRequired: Bool
    }

    let kinds: [Kind]
    let properties: [CompiledProperty]
    let literals: [[UInt8]]
    let patterns: [RegexNFA]
    let root: Int32
    /// Limit on nesting depth for `anyValue` and recursive schemas.
    let maximumDepth: Int
    /// Longest run of whitespace allowed between JSON tokens (0: compact output).
    let maximumWhitespace: Int32

    /// How much whitespace the output may contain outside strings.
    public enum Whitespace: Sendable, Equatable {
        /// None: `{"a":1,"b":[2,3]}` (the default; fewest tokens).
        case compact
        /// Runs of at most `maximumRun` spaces, tabs or newlines between JSON tokens, so the
        /// model may pretty-print but never pad without end.
        case bounded(maximumRun: Int)
    }

    /// Compiles a schema.
    ///
    /// - Throws: ``GrammarError`` for undefined references, a reference cycle that never
    ///   produces a value, empty choices, or inconsistent bounds.
    public init(_ schema: GrammarSchema, whitespace: Whitespace = .compact, maximumDepth: Int = 32) throws(GrammarError) {
        if case .bounded(let run) = whitespace {
            guard run >= 1 && run <= 256 else { throw .invalidSchema("whitespace runs must be 1...256 bytes, got \(run)", path: "#") }
            maximumWhitespace = Int32(run)
        } else {
            maximumWhitespace = 0
        }
        var builder = Builder(schema: schema)
        let root = try builder.add(schema.root, path: "#")
        for word in ["true", "false", "null"] { _ = builder.literal(Array(word.utf8)) }
        kinds = builder.kinds
        properties = builder.properties
        literals = builder.literals
        patterns = builder.patterns
        self.root = root
        self.maximumDepth = maximumDepth
    }

    private struct Builder {
        let schema: GrammarSchema
        var kinds: [Kind] = []
        var properties: [CompiledProperty] = []
        var literals: [[UInt8]] = []
        var literalIndex: [[UInt8]: Int32] = [:]
        var definitionIDs: [String: Int32] = [:]
        var anyValueNeeded = false
        var patterns: [RegexNFA] = []

        init(schema: GrammarSchema) { self.schema = schema }

        mutating func literal(_ bytes: [UInt8]) -> Int32 {
            if let id = literalIndex[bytes] { return id }
            literals.append(bytes)
            literalIndex[bytes] = Int32(literals.count - 1)
            return Int32(literals.count - 1)
        }

        mutating func reserve() -> Int32 {
            kinds.append(.anyValue)
            return Int32(kinds.count - 1)
        }

        mutating func add(_ node: GrammarSchema.Node, path: String) throws(GrammarError) -> Int32 {
            if case .reference(let name) = node {
                if let id = definitionIDs[name] { return id }
                guard let definition = schema.definitions[name] else { throw .undefinedReference(name, path: path) }
                // Reserve the id first so recursive references resolve to it.
                let id = reserve()
                definitionIDs[name] = id
                if case .reference = definition { throw .invalidSchema("definition '\(name)' is only a reference", path: path) }
                let body = try add(definition, path: "#/$defs/\(name)")
                kinds[Int(id)] = kinds[Int(body)]
                return id
            }
            let id = reserve()
            let kind: Kind
            switch node {
            case .object(let props):
                var seen = Set<String>()
                var ids: [Int32] = []
                for (i, p) in props.enumerated() {
                    guard seen.insert(p.name).inserted else { throw .invalidSchema("duplicate property '\(p.name)'", path: path) }
                    let child = try add(p.node, path: path + "/properties/" + p.name)
                    let key = literal(Array(JSONText.quoted(p.name).utf8) + [UInt8(ascii: ":")])
                    properties.append(CompiledProperty(key: key, node: child, isRequired: p.isRequired))
                    ids.append(Int32(properties.count - 1))
                    _ = i
                }
                kind = .object(properties: ids)
            case .array(let items, let minimum, let maximum):
                guard minimum >= 0, maximum.map({ $0 >= minimum }) ?? true else {
                    throw .invalidSchema("array bounds \(minimum)...\(maximum.map(String.init) ?? "") are empty", path: path)
                }
                let child = try add(items, path: path + "/items")
                kind = .array(items: child, minimum: Int32(clamping: minimum), maximum: Int32(clamping: maximum ?? Int(Int32.max)))
            case .string(let constraint):
                if let pattern = constraint.pattern {
                    let nfa: RegexNFA
                    do { nfa = try RegexNFA(pattern) } catch {
                        if case .invalidSchema(let message, _) = error { throw .invalidSchema(message, path: path + "/pattern") }
                        throw error
                    }
                    let maximum = constraint.maximumLength ?? GrammarSchema.StringConstraint.defaultMaximumLength
                    guard nfa.distance(nfa.initial) <= maximum else {
                        throw .invalidSchema("no string of at most \(maximum) bytes matches the pattern", path: path + "/pattern")
                    }
                    patterns.append(nfa)
                    kind = .pattern(Int32(patterns.count - 1), maximum: Int32(clamping: maximum))
                } else if let choices = constraint.choices {
                    guard !choices.isEmpty else { throw .invalidSchema("a string with no allowed values", path: path) }
                    kind = .choices(choices.map { literal(Array(JSONText.quoted($0).utf8)) })
                } else {
                    let maximum = constraint.maximumLength ?? GrammarSchema.StringConstraint.defaultMaximumLength
                    guard constraint.minimumLength >= 0, maximum >= constraint.minimumLength else {
                        throw .invalidSchema("string length bounds \(constraint.minimumLength)...\(maximum) are empty", path: path)
                    }
                    kind = .string(minimum: Int32(clamping: constraint.minimumLength), maximum: Int32(clamping: maximum))
                }
            case .integer(let minimum, let maximum):
                if let minimum, let maximum, minimum > maximum {
                    throw .invalidSchema("integer bounds \(minimum)...\(maximum) are empty", path: path)
                }
                kind = .integer(minimum: minimum.map(Double.init), maximum: maximum.map(Double.init))
            case .number(let minimum, let maximum):
                if let minimum, let maximum, minimum > maximum {
                    throw .invalidSchema("number bounds \(minimum)...\(maximum) are empty", path: path)
                }
                kind = .number(minimum: minimum, maximum: maximum)
            case .boolean:
                kind = .choices([literal(Array("true".utf8)), literal(Array("false".utf8))])
            case .null:
                kind = .literal(literal(Array("null".utf8)))
            case .anyOf(let nodes):
                guard !nodes.isEmpty else { throw .invalidSchema("anyOf with no alternatives", path: path) }
                var ids: [Int32] = []
                for (i, n) in nodes.enumerated() { ids.append(try add(n, path: path + "/anyOf/\(i)")) }
                kind = .anyOf(ids)
            case .anyValue:
                kind = .anyValue
                anyValueNeeded = true
            case .reference:
                fatalError("unreachable: references are resolved above")
            }
            kinds[Int(id)] = kind
            return id
        }
    }
}

/// Why a schema cannot be compiled or imported.
public enum GrammarError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A `$ref` or ``GrammarSchema/Node/reference(_:)`` names no definition.
    case undefinedReference(String, path: String)
    /// The schema is self-contradictory or malformed.
    case invalidSchema(String, path: String)
    /// A JSON Schema keyword the engine cannot enforce; never silently ignored.
    case unsupportedKeyword(String, path: String)
    /// The schema document is not valid JSON.
    case invalidJSON(String, offset: Int)

    public var description: String {
        switch self {
        case .undefinedReference(let name, let path): "undefined reference '\(name)' at \(path)"
        case .invalidSchema(let message, let path): "invalid schema at \(path): \(message)"
        case .unsupportedKeyword(let keyword, let path): "unsupported JSON Schema keyword '\(keyword)' at \(path)"
        case .invalidJSON(let message, let offset): "invalid JSON at byte \(offset): \(message)"
        }
    }
}

/// JSON text helpers shared by the compiler and tests.
enum JSONText {
    /// `s` as a JSON string literal, with the minimal escapes.
    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
