import PocketGrammar

// A GenerationSchema lowered straight to the grammar engine's schema, node by node, with the
// meaning JSON Schema gives the schema's `jsonSchemaString()` (patterns match whole strings,
// as Apple's `@Guide(.pattern)` does). The rules below are JSONSchemaImport's for the keywords
// that text uses; `GenerationSchemaGrammarTests` checks both routes give equal schemas.
//
//   object       properties in order, optional ones not required; closed (no extra keys);
//                an optional property whose nil is explicit is required, its value or null
//   enumeration  string choices (duplicates dropped)
//   string       a pattern, or choices (`enum`, narrowed by `const`) the pattern accepts
//   integer      bounds rounded inwards; numbers bounded to 15 integer digits
//   array        item count bounds
//   any-of       one node per branch that can be satisfied
//   reference    the named definition, lowered once when first reached

extension GenerationSchema {
    /// The schema as ``GrammarSchema``: the root and the definitions it reaches.
    ///
    /// - Throws: ``SchemaError`` or ``GuideError`` when the schema cannot be resolved;
    ///   `GrammarError` when the grammar engine cannot enforce it (naming the JSON pointer of
    ///   the `jsonSchemaString()` keyword at fault).
    ///
    /// - Parameter definitionPrefix: Prepended to every definition's name, so that the
    ///   definitions of several schemas (a request's tools) can share one grammar.
    func grammarSchema(definitionPrefix: String = "") throws -> GrammarSchema {
        let (root, definitions) = try resolved()
        var lowering = GrammarLowering(definitions: definitions, prefix: definitionPrefix)
        let node = try lowering.node(root, path: "#")
        return GrammarSchema(root: node, definitions: lowering.lowered)
    }
}

/// One lowering: the resolved definitions, and those lowered so far.
struct GrammarLowering {
    /// The schema's named definitions.
    let definitions: [String: SchemaNode]
    /// The definitions reached and lowered so far.
    private(set) var lowered: [String: GrammarSchema.Node] = [:]
    private var inProgress: Set<String> = []
    /// Depth of nested nodes, against runaway expansion.
    private var depth = 0
    /// What the lowered definitions' names start with.
    private let prefix: String

    /// Creates a lowering of a schema with these definitions, named `prefix` + name once lowered.
    init(definitions: [String: SchemaNode], prefix: String = "") {
        self.definitions = definitions
        self.prefix = prefix
    }

    /// Numbers are written with at most 15 integer digits: bounds beyond are no bounds.
    private static let reach = 999_999_999_999_999.0

    /// Lowers one node found at JSON pointer `path` of the schema's JSON Schema text.
    mutating func node(_ node: SchemaNode, path: String) throws(GrammarError) -> GrammarSchema.Node {
        depth += 1
        defer { depth -= 1 }
        guard depth < 200 else { throw .invalidSchema("schema nested or expanded too deeply", path: path) }
        switch node {
        case .object(_, _, let properties):
            var lowered: [GrammarSchema.Property] = []
            for property in properties {
                let propertyPath = path + "/properties/" + property.name
                if property.isNullable {
                    // Always written: a value, or null (as its JSON Schema's anyOf reads).
                    var choices: [GrammarSchema.Node] = []
                    do { choices.append(try self.node(property.node, path: propertyPath + "/anyOf/0")) } catch let error where error.isUnsatisfiable {}
                    choices.append(.null)
                    lowered.append(.init(name: property.name, node: choices.count == 1 ? choices[0] : .anyOf(choices), isRequired: true))
                    continue
                }
                let isRequired = !property.isOptional
                let value: GrammarSchema.Node
                do {
                    value = try self.node(property.node, path: propertyPath)
                } catch let error where error.isUnsatisfiable && !isRequired {
                    continue  // an optional property that can have no value is left out
                }
                lowered.append(.init(name: property.name, node: value, isRequired: isRequired))
            }
            return .object(lowered)
        case .enumeration(_, _, let choices):
            guard !choices.isEmpty else { throw .invalidSchema("enum must be a non-empty array", path: path + "/enum") }
            return try Self.choices(choices, keyword: "enum", pattern: nil, path: path)
        case .string(let constraints):
            if let choices = constraints.choices {
                guard !choices.isEmpty else { throw .invalidSchema("enum must be a non-empty array", path: path + "/enum") }
                let kept = constraints.constant.map { constant in choices.filter { $0 == constant } } ?? choices
                return try Self.choices(kept, keyword: "enum", pattern: constraints.pattern, path: path)
            }
            if let constant = constraints.constant {
                return try Self.choices([constant], keyword: "const", pattern: constraints.pattern, path: path)
            }
            return .string(.init(pattern: constraints.pattern))
        case .anyOf(_, _, let choices):
            guard !choices.isEmpty else { throw .invalidSchema("anyOf must be a non-empty array", path: path + "/anyOf") }
            var nodes: [GrammarSchema.Node] = []
            for (i, choice) in choices.enumerated() {
                do { nodes.append(try self.node(choice, path: path + "/anyOf/\(i)")) } catch let error where error.isUnsatisfiable { continue }
            }
            guard !nodes.isEmpty else { throw .invalidSchema("no branch of anyOf can be satisfied", path: path + "/anyOf") }
            return nodes.count == 1 ? nodes[0] : .anyOf(nodes)
        case .array(let items, let minimumCount, let maximumCount):
            let minimum = try Self.count(minimumCount, "minItems", path: path) ?? 0
            guard minimum < Int.max else { throw .invalidSchema("minItems beyond any array (no value)", path: path + "/minItems") }
            var maximum = try Self.count(maximumCount, "maxItems", path: path)
            if maximum == Int.max { maximum = nil }
            return .array(items: try self.node(items, path: path + "/items"), minimum: minimum, maximum: maximum)
        case .integer(let minimum, let maximum), .number(let minimum, let maximum):
            var lower = try Self.bound(minimum, "minimum", path: path), upper = try Self.bound(maximum, "maximum", path: path)
            if let l = lower, l > Self.reach {
                throw .invalidSchema("minimum \(l) beyond the numbers Pocket writes (15 digits; no value)", path: path + "/minimum")
            }
            if let u = upper, u < -Self.reach {
                throw .invalidSchema("maximum \(u) beyond the numbers Pocket writes (15 digits; no value)", path: path + "/maximum")
            }
            if let l = lower, l < -Self.reach { lower = nil }
            if let u = upper, u > Self.reach { upper = nil }
            guard case .integer = node else { return .number(minimum: lower, maximum: upper) }
            return .integer(minimum: lower.map { Int($0.rounded(.up)) }, maximum: upper.map { Int($0.rounded(.down)) })
        case .boolean:
            return .boolean
        case .null:
            return .null
        case .any:
            return .anyValue
        case .reference(let name):
            return try reference(name, path: path + "/$ref")
        case .generable(let type, _):
            // Resolution replaces every such leaf; lowered as the JSON Schema text writes it.
            return try reference(GenerationSchema.typeName(type), path: path + "/$ref")
        }
    }

    /// A reference to definition `name`, lowering the definition when first reached.
    private mutating func reference(_ name: String, path: String) throws(GrammarError) -> GrammarSchema.Node {
        let loweredName = prefix + name
        if lowered[loweredName] == nil && !inProgress.contains(name) {
            guard let definition = definitions[name] else { throw .undefinedReference("#/$defs/" + name, path: path) }
            inProgress.insert(name)
            lowered[loweredName] = try node(definition, path: "#/$defs/" + name)
            inProgress.remove(name)
        }
        return .reference(loweredName)
    }

    /// String choices: those the pattern (if any) accepts, duplicates dropped, checked with
    /// the grammar of a string with that pattern (which also bounds the length).
    private static func choices(_ values: [String], keyword: String, pattern: String?, path: String) throws(GrammarError) -> GrammarSchema.Node {
        let check: CompiledGrammar
        do {
            check = try CompiledGrammar(GrammarSchema(root: .string(.init(pattern: pattern))))
        } catch let error where error.isUnsatisfiable {
            throw .invalidSchema("\(keyword) values outside the schema's other keywords (no value)", path: path + "/" + keyword)
        }
        var strings: [String] = []
        for value in values where check.accepts(Array(JSONText.quoted(value).utf8)) && !strings.contains(value) {
            strings.append(value)
        }
        guard !strings.isEmpty else {
            throw .invalidSchema("no \(keyword) value satisfies the schema's other keywords (no value)", path: path + "/" + keyword)
        }
        return .string(.init(choices: strings))
    }

    /// A count (`minItems`, `maxItems`): nil when absent, `Int.max` when beyond any document.
    private static func count(_ value: Int?, _ key: String, path: String) throws(GrammarError) -> Int? {
        guard let value else { return nil }
        guard value >= 0 else { throw .invalidSchema("\(key) must be a non-negative integer", path: path + "/" + key) }
        return Double(value) < 1e9 ? value : Int.max
    }

    /// A numeric bound as its JSON text reads back: non-finite values are written `null`, and
    /// integral values without a sign of zero.
    private static func bound(_ value: Double?, _ key: String, path: String) throws(GrammarError) -> Double? {
        guard let value else { return nil }
        guard value.isFinite else { throw .invalidSchema("\(key) must be a number", path: path + "/" + key) }
        return value + 0
    }
}
