/// A ``GrammarSchema`` prepared for matching: nodes numbered, references resolved, literals
/// (keys, enum strings, `true`/`false`/`null`) stored as bytes. Compile once and share: it is
/// immutable and `Sendable`.
public final class CompiledGrammar: Sendable {
    /// A node with everything the matcher needs at hand.
    enum Kind: Sendable {
        case object(properties: [Int32], extras: [Extra])   // indices into `properties`
        /// Elements `prefix[i]` first, then `items` (`SpecialNode.none`: no more).
        case array(items: Int32, minimum: Int32, maximum: Int32, prefix: [Int32])
        case string(minimum: Int32, maximum: Int32)
        case pattern(Int32, maximum: Int32)          // index into `patterns`
        case choices([Int32])                     // literal ids (enum strings)
        case literal(Int32)                       // one literal (constants, true/false/null)
        case integer(minimum: Double?, maximum: Double?, multipleOf: Double)
        case number(minimum: Double?, maximum: Double?)
        case anyOf([Int32])                       // node ids
        case anyValue
    }

    /// Keys beyond the declared properties: a pattern-string node for the key, and the value.
    struct Extra: Sendable {
        var key: Int32
        var value: Int32
    }

    struct CompiledProperty: Sendable {
        var key: Int32                            // literal id of `"name":`
        var node: Int32
        var isRequired: Bool
    }

    let kinds: [Kind]
    let properties: [CompiledProperty]
    let literals: [[UInt8]]
    let patterns: [PatternAutomaton]
    let root: Int32
    /// Limit on nesting depth for `anyValue` and recursive schemas.
    let maximumDepth: Int
    /// Longest run of whitespace allowed between JSON tokens (0: compact output).
    let maximumWhitespace: Int32

    /// How much whitespace the output may contain outside strings.
    public enum Whitespace: Sendable, Hashable {
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
        try builder.flattenChoices()
        try builder.requireProductive(root)
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
        var patterns: [PatternAutomaton] = []

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

        /// Replaces every anyOf alternative that is itself an anyOf by that one's alternatives,
        /// transitively; an alternative reached again through such a cycle consumes no input
        /// and adds nothing (U = U ∪ S is S). An anyOf left with no alternative accepts nothing.
        mutating func flattenChoices() throws(GrammarError) {
            for i in kinds.indices {
                guard case .anyOf(let alternatives) = kinds[i] else { continue }
                var visited: Set<Int32> = [Int32(i)]
                var leaves: [Int32] = []
                var pending = Array(alternatives.reversed())
                while let a = pending.popLast() {
                    guard visited.insert(a).inserted else { continue }
                    if a >= 0, case .anyOf(let inner) = kinds[Int(a)] { pending += inner.reversed() } else { leaves.append(a) }
                }
                guard !leaves.isEmpty else {
                    throw .invalidSchema("a cycle of anyOf/oneOf/$ref with no alternative that produces a value", path: "#")
                }
                kinds[i] = .anyOf(leaves)
            }
        }

        /// Checks that the root can produce a finite document (a required property or array
        /// element that recursively requires itself cannot), and drops anyOf alternatives that
        /// cannot.
        mutating func requireProductive(_ root: Int32) throws(GrammarError) {
            var productive = [Bool](repeating: false, count: kinds.count)
            func ok(_ n: Int32) -> Bool { n < 0 || productive[Int(n)] }
            var changed = true
            while changed {
                changed = false
                for i in kinds.indices where !productive[i] {
                    let p: Bool
                    switch kinds[i] {
                    case .object(let props, _): p = props.allSatisfy { !properties[Int($0)].isRequired || ok(properties[Int($0)].node) }
                    case .array(let items, let minimum, _, let prefix):
                        p = (0..<Int(minimum)).allSatisfy { ok($0 < prefix.count ? prefix[$0] : items) }
                    case .anyOf(let alternatives): p = alternatives.contains(where: ok)
                    default: p = true
                    }
                    if p { productive[i] = true; changed = true }
                }
            }
            guard ok(root) else { throw .invalidSchema("no finite JSON value satisfies the schema (recursion with no way out)", path: "#") }
            for i in kinds.indices {
                if case .anyOf(let alternatives) = kinds[i] { kinds[i] = .anyOf(alternatives.filter(ok)) }
            }
        }

        mutating func automaton(_ make: () throws(GrammarError) -> PatternAutomaton, path: String) throws(GrammarError) -> PatternAutomaton {
            do { return try make() } catch {
                if case .invalidSchema(let message, _) = error { throw .invalidSchema(message, path: path) }
                throw error
            }
        }

        /// The automaton of a string constraint with patterns or a format, or nil for plain strings.
        mutating func stringAutomaton(_ c: GrammarSchema.StringConstraint, path: String) throws(GrammarError) -> PatternAutomaton? {
            var parts: [PatternAutomaton] = []
            if let p = c.pattern { parts.append(try automaton({ () throws(GrammarError) in try PatternAutomaton(regex: p) }, path: path + "/pattern")) }
            for p in c.searchPatterns {
                parts.append(try automaton({ () throws(GrammarError) in try PatternAutomaton(regex: p, search: true) }, path: path + "/pattern"))
            }
            if let f = c.format {
                guard let regex = JSONSchemaFormats.regex(f) else { throw .unsupportedKeyword("format '\(f)'", path: path + "/format") }
                parts.append(try automaton({ () throws(GrammarError) in try PatternAutomaton(regex: regex) }, path: path + "/format"))
            }
            if !c.excluded.isEmpty {
                let names = c.excluded.map(RegexParser.escaped).joined(separator: "|")
                let all = try automaton({ () throws(GrammarError) in try PatternAutomaton(regex: "[^]*").subtracting(PatternAutomaton(regex: names)) }, path: path)
                parts.append(all)
            }
            guard var result = parts.first else { return nil }
            for p in parts.dropFirst() { result = try automaton({ () throws(GrammarError) in try result.intersecting(p) }, path: path) }
            if c.minimumLength > 0 {
                result = try automaton({ () throws(GrammarError) in try result.withMinimumLength(c.minimumLength) }, path: path + "/minLength")
            }
            return result
        }

        /// Adds a pattern-string node for an automaton.
        mutating func addPattern(_ a: PatternAutomaton, maximum: Int, path: String) throws(GrammarError) -> Kind {
            guard !a.isEmpty, a.distance(a.initial) <= maximum else {
                throw .invalidSchema("no string of at most \(maximum) bytes satisfies the string's constraints", path: path)
            }
            patterns.append(a)
            return .pattern(Int32(patterns.count - 1), maximum: Int32(clamping: maximum))
        }

        /// The key automaton of an extra-properties rule.
        mutating func keyAutomaton(_ e: GrammarSchema.ExtraProperties, path: String) throws(GrammarError) -> PatternAutomaton {
            try automaton({ () throws(GrammarError) in
                var keys = try PatternAutomaton(regex: "[^]*")
                if !e.keyPatterns.isEmpty {
                    var union = try PatternAutomaton(regex: e.keyPatterns[0], search: true)
                    for p in e.keyPatterns.dropFirst() { union = try PatternAutomaton.product(union, PatternAutomaton(regex: p, search: true)) { $0 || $1 } }
                    keys = union
                }
                for p in e.excludedPatterns { keys = try keys.subtracting(PatternAutomaton(regex: p, search: true)) }
                if !e.excludedNames.isEmpty {
                    keys = try keys.subtracting(PatternAutomaton(regex: e.excludedNames.map(RegexParser.escaped).joined(separator: "|")))
                }
                return keys
            }, path: path)
        }

        mutating func add(_ node: GrammarSchema.Node, path: String) throws(GrammarError) -> Int32 {
            if case .reference(let name) = node {
                if let id = definitionIDs[name] { return id }
                guard let definition = schema.definitions[name] else { throw .undefinedReference(name, path: path) }
                // Reserve the id first so recursive references resolve to it.
                let id = reserve()
                definitionIDs[name] = id
                // A definition that is only a reference is an alias: an anyOf of one, which
                // `flattenChoices` resolves (and rejects when the aliases form a cycle).
                let body = try add(definition, path: name.hasPrefix("#") ? name : "#/$defs/\(name)")
                if case .reference = definition {
                    kinds[Int(id)] = .anyOf([body])
                    return id
                }
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
                kind = .object(properties: ids, extras: [])
            case .openObject(let props, let extras):
                var seen = Set<String>()
                var ids: [Int32] = []
                for p in props {
                    guard seen.insert(p.name).inserted else { throw .invalidSchema("duplicate property '\(p.name)'", path: path) }
                    let child = try add(p.node, path: path + "/properties/" + p.name)
                    let key = literal(Array(JSONText.quoted(p.name).utf8) + [UInt8(ascii: ":")])
                    properties.append(CompiledProperty(key: key, node: child, isRequired: p.isRequired))
                    ids.append(Int32(properties.count - 1))
                }
                var compiled: [Extra] = []
                for (i, e) in extras.enumerated() {
                    let keys = try keyAutomaton(e, path: path + "/additionalProperties")
                    guard !keys.isEmpty else { continue }
                    let keyNode = reserve()
                    kinds[Int(keyNode)] = try addPattern(keys, maximum: 256, path: path + "/additionalProperties")
                    compiled.append(Extra(key: keyNode, value: try add(e.value, path: path + "/additionalProperties/\(i)")))
                }
                kind = .object(properties: ids, extras: compiled)
            case .array(let items, let minimum, let maximum):
                guard minimum >= 0, maximum.map({ $0 >= minimum }) ?? true else {
                    throw .invalidSchema("array bounds \(minimum)...\(maximum.map(String.init) ?? "") are empty", path: path)
                }
                let child = try add(items, path: path + "/items")
                kind = .array(items: child, minimum: Int32(clamping: minimum), maximum: Int32(clamping: maximum ?? Int(Int32.max)), prefix: [])
            case .tuple(let prefix, let rest, let minimum, var maximum):
                if rest == nil { maximum = min(maximum ?? prefix.count, prefix.count) }
                guard minimum >= 0, maximum.map({ $0 >= minimum }) ?? true else {
                    throw .invalidSchema("array bounds \(minimum)...\(maximum.map(String.init) ?? "") are empty", path: path)
                }
                var ids: [Int32] = []
                for (i, p) in prefix.enumerated() { ids.append(try add(p, path: path + "/prefixItems/\(i)")) }
                let child = try rest.map { r throws(GrammarError) in try add(r, path: path + "/items") } ?? SpecialNode.none
                kind = .array(items: child, minimum: Int32(clamping: minimum), maximum: Int32(clamping: maximum ?? Int(Int32.max)), prefix: ids)
            case .multipleOf(let step, let minimum, let maximum):
                guard step > 0 else { throw .invalidSchema("multipleOf must be positive", path: path) }
                if let minimum, let maximum, minimum > maximum {
                    throw .invalidSchema("integer bounds \(minimum)...\(maximum) are empty", path: path)
                }
                kind = .integer(minimum: minimum.map(Double.init), maximum: maximum.map(Double.init), multipleOf: Double(step))
            case .json(let text):
                kind = .literal(literal(Array(text.utf8)))
            case .string(let constraint):
                if let automaton = try stringAutomaton(constraint, path: path) {
                    var maximum = constraint.maximumLength ?? GrammarSchema.StringConstraint.defaultMaximumLength
                    if let f = constraint.format, let limit = JSONSchemaFormats.maximumLength(f) { maximum = min(maximum, limit) }
                    kind = try addPattern(automaton, maximum: maximum, path: path)
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
                kind = .integer(minimum: minimum.map(Double.init), maximum: maximum.map(Double.init), multipleOf: 1)
            case .number(let minimum, let maximum):
                if let minimum, let maximum, minimum > maximum {
                    throw .invalidSchema("number bounds \(minimum)...\(maximum) are empty", path: path)
                }
                kind = .number(minimum: minimum, maximum: maximum)
            case .boolean:
                kind = .choices([literal(Array("true".utf8)), literal(Array("false".utf8))])
            case .constant(let value):
                kind = .literal(literal(Array((value ? "true" : "false").utf8)))
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
