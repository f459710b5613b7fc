// Schemas by type: objects, arrays, strings, numbers, booleans and null.

extension SchemaImporter {
    /// A schema without combinators, `$ref`, `enum` or `const`.
    mutating func typed(_ value: JSONValue, path: String) throws(GrammarError) -> GrammarSchema.Node {
        var types: [String]
        switch value["type"] {
        case .string(let t)?: types = [t]
        case .array(let list)?:
            types = []
            for t in list {
                guard case .string(let name) = t else { throw .invalidSchema("type list must hold strings", path: path + "/type") }
                types.append(name)
            }
            guard !types.isEmpty else { throw .invalidSchema("an empty type list accepts no value (no type)", path: path + "/type") }
        case nil:
            // No type: the types whose keywords appear (a subset of the values the schema
            // accepts, so nothing invalid is produced), or any value.
            types = JSONSchemaImport.keywordsByType.filter { entry in entry.keywords.contains { value[$0] != nil } }.map(\.type)
            if types.isEmpty {
                guard value[Self.excludedValuesKey] != nil else { return .anyValue }
                types = Self.allTypes.filter { $0 != "integer" }
            }
        default: throw .invalidSchema("type must be a string or a list", path: path + "/type")
        }
        if types.contains("number") { types.removeAll { $0 == "integer" } }
        var nodes: [GrammarSchema.Node] = []
        for type in types {
            switch type {
            case "object": nodes.append(try object(value, path: path))
            case "array": nodes.append(try array(value, path: path))
            case "string": nodes.append(try string(value, path: path))
            case "integer", "number": nodes.append(try number(value, integer: type == "integer", path: path))
            case "boolean": nodes.append(.boolean)
            case "null": nodes.append(.null)
            default: throw .invalidSchema("unknown type '\(type)'", path: path + "/type")
            }
        }
        if case .array(let excluded)? = value[Self.excludedValuesKey] {
            var kept: [GrammarSchema.Node] = []
            for n in nodes { kept += try Self.excluding(excluded, from: n, path: path) }
            nodes = kept
            guard !nodes.isEmpty else { throw .invalidSchema("every value is excluded by not (no value)", path: path) }
        }
        return nodes.count == 1 ? nodes[0] : .anyOf(nodes)
    }

    /// `node` without the values `excluded` (from `not: {enum}`), as one or more nodes.
    static func excluding(_ excluded: [JSONValue], from node: GrammarSchema.Node, path: String) throws(GrammarError) -> [GrammarSchema.Node] {
        switch node {
        case .string(var c):
            for case .string(let s) in excluded { c.excluded.append(s) }
            return [.string(c)]
        case .integer(let minimum, let maximum):
            var cuts: [Int] = []
            for case .number(let n) in excluded where n == n.rounded() && abs(n) < 1e15 {
                let v = Int(n)
                if v >= (minimum ?? Int.min) && v <= (maximum ?? Int.max) { cuts.append(v) }
            }
            guard cuts.count <= 64 else { throw .unsupportedKeyword("not with more than 64 integers", path: path + "/not") }
            var pieces: [GrammarSchema.Node] = []
            var low = minimum
            for cut in Set(cuts).sorted() {
                if low.map({ $0 <= cut - 1 }) ?? true { pieces.append(.integer(minimum: low, maximum: cut - 1)) }
                low = cut + 1
            }
            if let low, let maximum, low > maximum { return pieces }
            pieces.append(.integer(minimum: low, maximum: maximum))
            return pieces
        case .number(let minimum, let maximum):
            var pieces: [GrammarSchema.Node] = []
            var low = minimum
            let cuts = excluded.compactMap { v -> Double? in if case .number(let n) = v { n } else { nil } }
            for cut in Set(cuts).sorted() where cut >= (minimum ?? -.infinity) && cut <= (maximum ?? .infinity) {
                if low.map({ $0 <= cut.nextDown }) ?? true { pieces.append(.number(minimum: low, maximum: cut.nextDown)) }
                low = cut.nextUp
            }
            if let low, let maximum, low > maximum { return pieces }
            pieces.append(.number(minimum: low, maximum: maximum))
            return pieces
        case .boolean:
            return [true, false].filter { !excluded.contains(.bool($0)) }.map { .constant($0) }
        case .null:
            return excluded.contains(.null) ? [] : [node]
        case .multipleOf:
            if excluded.contains(where: { if case .number = $0 { true } else { false } }) {
                throw .unsupportedKeyword("not enum with multipleOf", path: path + "/not")
            }
            return [node]
        case .object, .openObject, .array, .tuple:
            if excluded.contains(where: { if case .object = $0 { true } else if case .array = $0 { true } else { false } }) {
                throw .unsupportedKeyword("not enum with objects or arrays", path: path + "/not")
            }
            return [node]
        default:
            return [node]
        }
    }

    /// A count keyword (`minItems`…): nil when absent, `Int.max` when beyond any document.
    func count(_ value: JSONValue, _ key: String, path: String) throws(GrammarError) -> Int? {
        guard let v = value[key] else { return nil }
        guard case .number(let n) = v, n >= 0, n == n.rounded() else {
            throw .invalidSchema("\(key) must be a non-negative integer", path: path + "/" + key)
        }
        return n < 1e9 ? Int(n) : Int.max
    }

    // MARK: Strings

    mutating func string(_ value: JSONValue, path: String) throws(GrammarError) -> GrammarSchema.Node {
        var constraint = GrammarSchema.StringConstraint()
        var patterns: [JSONValue] = []
        if let p = value["pattern"] { patterns.append(p) }
        if case .array(let more)? = value[Self.extraPatternsKey] { patterns += more }
        for p in patterns {
            guard case .string(let text) = p else { throw .invalidSchema("pattern must be a string", path: path + "/pattern") }
            if search { constraint.searchPatterns.append(text) } else { constraint.pattern = text }
        }
        if case .string(let format)? = value["format"] {
            if JSONSchemaFormats.regex(format) != nil {
                constraint.format = format
            } else if Self.unenforcedFormats.contains(format) {
                throw .unsupportedKeyword("format '\(format)'", path: path + "/format")
            }
            // Other formats are not JSON Schema's: annotations, as validators treat them.
        }
        let minimum = try count(value, "minLength", path: path) ?? 0
        guard minimum < Int.max else { throw .invalidSchema("minLength beyond any string (no value)", path: path + "/minLength") }
        constraint.minimumLength = minimum
        if let maximum = try count(value, "maxLength", path: path), maximum < Int.max {
            guard maximum >= minimum else { throw .invalidSchema("string length bounds \(minimum)...\(maximum) are empty", path: path) }
            // Lengths count bytes; inside pattern strings (ASCII in the common case) a bound
            // in bytes is at least as strict as one in characters.
            constraint.maximumLength = maximum
        }
        return .string(constraint)
    }

    /// Standard formats with no grammar here: an error rather than an unchecked string.
    static let unenforcedFormats: Set<String> = [
        "idn-email", "idn-hostname", "iri", "iri-reference", "uri-template", "json-pointer", "relative-json-pointer", "regex",
    ]

    // MARK: Numbers

    mutating func number(_ value: JSONValue, integer: Bool, path: String) throws(GrammarError) -> GrammarSchema.Node {
        func bound(_ key: String) throws(GrammarError) -> Double? {
            guard let v = value[key] else { return nil }
            switch v {
            case .number(let n): return n
            case .bool: return nil   // draft 4 exclusive flags, read below
            default: throw .invalidSchema("\(key) must be a number", path: path + "/" + key)
            }
        }
        var lower = try bound("minimum"), upper = try bound("maximum")
        var lowerExclusive = value["exclusiveMinimum"] == .bool(true), upperExclusive = value["exclusiveMaximum"] == .bool(true)
        if let e = try bound("exclusiveMinimum"), e >= (lower ?? -.infinity) { lower = e; lowerExclusive = true }
        if let e = try bound("exclusiveMaximum"), e <= (upper ?? .infinity) { upper = e; upperExclusive = true }
        // Numbers are written with at most 15 integer digits: bounds beyond that are no bounds
        // (and a lower bound beyond it leaves nothing).
        let reach = 999_999_999_999_999.0
        if let l = lower, l > reach { throw .invalidSchema("minimum \(l) beyond the numbers Pocket writes (15 digits; no value)", path: path + "/minimum") }
        if let u = upper, u < -reach { throw .invalidSchema("maximum \(u) beyond the numbers Pocket writes (15 digits; no value)", path: path + "/maximum") }
        if let l = lower, l < -reach { lower = nil }
        if let u = upper, u > reach { upper = nil }
        var step: Int?
        if let m = value["multipleOf"] {
            guard case .number(let n) = m, n > 0 else { throw .invalidSchema("multipleOf must be a positive number", path: path + "/multipleOf") }
            if n != n.rounded() || n > reach {
                throw .unsupportedKeyword("multipleOf \(n) (only integer steps are enforced)", path: path + "/multipleOf")
            }
            step = Int(n)
            if !integer {
                // A multiple of an integer step is an integer.
                return try number(value.setting("type", .string("integer")), integer: true, path: path)
            }
        }
        if integer {
            var low = lower.map { $0.rounded(.up) }, high = upper.map { $0.rounded(.down) }
            if lowerExclusive, let l = lower, let lo = low, lo == l { low = lo + 1 }
            if upperExclusive, let u = upper, let hi = high, hi == u { high = hi - 1 }
            if let step, step > 1 { return .multipleOf(step, minimum: low.map { Int($0) }, maximum: high.map { Int($0) }) }
            return .integer(minimum: low.map { Int($0) }, maximum: high.map { Int($0) })
        }
        if lowerExclusive { lower = lower?.nextUp }
        if upperExclusive { upper = upper?.nextDown }
        return .number(minimum: lower, maximum: upper)
    }

    // MARK: Arrays

    mutating func array(_ value: JSONValue, path: String) throws(GrammarError) -> GrammarSchema.Node {
        let minimum = try count(value, "minItems", path: path) ?? 0
        guard minimum < Int.max else { throw .invalidSchema("minItems beyond any array (no value)", path: path + "/minItems") }
        var maximum = try count(value, "maxItems", path: path)
        if maximum == Int.max { maximum = nil }
        var prefix: [GrammarSchema.Node]?
        var rest: GrammarSchema.Node? = .anyValue
        var restPath = path + "/items"
        if case .array(let list)? = value["prefixItems"] {
            prefix = try nodes(list, path: path + "/prefixItems")
            if let items = value["items"] { rest = try optionalNode(items, path: path + "/items") }
        } else if case .array(let list)? = value["items"] {
            prefix = try nodes(list, path: path + "/items")
            restPath = path + "/additionalItems"
            if let more = value["additionalItems"] { rest = try optionalNode(more, path: restPath) }
        } else if let items = value["items"] {
            rest = try optionalNode(items, path: path + "/items")
        }
        if value["uniqueItems"] == .bool(true) && (maximum ?? Int.max) > 1 {
            throw .unsupportedKeyword("uniqueItems", path: path + "/uniqueItems")  // see docs/grammar.md
        }
        if let prefix, !prefix.isEmpty {
            return .tuple(prefix: prefix, rest: rest, minimum: minimum, maximum: maximum)
        }
        guard let rest else {
            guard minimum == 0 else { throw .invalidSchema("items false with minItems \(minimum) (no value)", path: restPath) }
            return .tuple(prefix: [], rest: nil, minimum: 0, maximum: 0)
        }
        return .array(items: rest, minimum: minimum, maximum: maximum)
    }

    mutating func nodes(_ list: [JSONValue], path: String) throws(GrammarError) -> [GrammarSchema.Node] {
        var out: [GrammarSchema.Node] = []
        for (i, item) in list.enumerated() {
            guard let n = try optionalNode(item, path: path + "/\(i)") else {
                // `false` at position i: the array ends before it.
                return out
            }
            out.append(n)
        }
        return out
    }

    /// A schema, or nil for `false` (nothing allowed there).
    mutating func optionalNode(_ value: JSONValue, path: String) throws(GrammarError) -> GrammarSchema.Node? {
        if value == .bool(false) { return nil }
        return try node(value, path: path)
    }
}
