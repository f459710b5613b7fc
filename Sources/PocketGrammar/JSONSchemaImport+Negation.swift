// `not`, and the "exactly one" of `oneOf`, written without negation where that is exact.
//
// ¬(A ∧ B) is ¬A ∨ ¬B, so a `not` is rewritten keyword by keyword: `type` to the other types,
// `required` to "one of the names absent", `enum`/`const` to a list of excluded values, `anyOf`
// to the conjunction of negations. A `oneOf` branch must fail every other branch: nothing is
// added when two branches cannot both hold (different types, different constants of a
// required property…), else the branch is intersected with a part of the other's negation
// (one of its required names absent, or another type). That part is a subset, so `oneOf` is
// enforced soundly (nothing invalid is accepted), if not always completely.

extension SchemaImporter {
    static let allTypes = ["array", "boolean", "integer", "null", "number", "object", "string"]

    /// A Pocket-internal keyword: values the instance must not equal (from `not: {enum}`).
    static let excludedValuesKey = "$pocket-not-enum"

    /// A schema equivalent to `not schema`.
    func negation(_ schema: JSONValue, path: String) throws(GrammarError) -> JSONValue {
        switch schema {
        case .bool(let b): return .bool(!b)
        case .object: break
        default: throw .invalidSchema("not must hold a schema", path: path)
        }
        let value = try flattened(try resolveRefs(schema, path: path), path: path, depth: 0)
        guard case .object(let pairs) = value else { return try negation(value, path: path) }
        var options: [JSONValue] = []
        var handled: Set<String> = []
        for (key, v) in pairs where JSONSchemaImport.validationKeywords.contains(key) {
            handled.insert(key)
            switch key {
            case "type":
                let types = Set(Self.typeList(v).flatMap { $0 == "number" ? ["number", "integer"] : [$0] })
                let rest = Self.allTypes.filter { !types.contains($0) && !($0 == "number" && types.contains("integer")) }
                // "not integer" keeps numbers with a fraction: not expressible, unless number is excluded too.
                if types.contains("integer") && !types.contains("number") {
                    throw .unsupportedKeyword("not type integer (numbers with a fraction)", path: path + "/type")
                }
                if !rest.isEmpty { options.append(.object([("type", .array(rest.map { .string($0) }))])) }
            case "required":
                guard case .array(let names) = v else { throw .invalidSchema("required must be an array", path: path + "/required") }
                for case .string(let n) in names {
                    options.append(.object([("type", .string("object")), ("properties", .object([(n, .bool(false))]))]))
                    // Non-objects satisfy `required` vacuously, so they do not satisfy its negation.
                }
            case "enum", "const":
                let values: [JSONValue]
                if key == "const" { values = [v] } else if case .array(let list) = v { values = list } else {
                    throw .invalidSchema("enum must be an array", path: path + "/enum")
                }
                options.append(.object([(Self.excludedValuesKey, .array(values))]))
            case "anyOf":
                guard case .array(let items) = v else { throw .invalidSchema("anyOf must be an array", path: path + "/anyOf") }
                var all: [JSONValue] = []
                for (i, item) in items.enumerated() { all.append(try negation(item, path: path + "/anyOf/\(i)")) }
                options.append(.object([("allOf", .array(all))]))
            default:
                throw .unsupportedKeyword("not with '\(key)'", path: path + "/" + key)
            }
        }
        if handled.isEmpty { return .bool(false) }  // not {} accepts nothing
        if options.isEmpty { return .bool(false) }
        return options.count == 1 ? options[0] : .object([("anyOf", .array(options))])
    }

    /// The branches of a `oneOf`, each intersected with what keeps it apart from the others.
    func exclusiveBranches(_ items: [JSONValue], siblings: JSONValue, path: String) throws(GrammarError) -> [JSONValue] {
        var resolved: [JSONValue] = []
        for (i, item) in items.enumerated() {
            resolved.append(try flattened(try resolveRefs(item, path: path + "/\(i)"), path: path + "/\(i)", depth: 0))
        }
        var out: [JSONValue] = []
        for i in resolved.indices {
            var parts = [resolved[i]]
            for j in resolved.indices where j != i {
                if try disjoint(resolved[i], resolved[j], siblings: siblings, path: path) { continue }
                guard let apart = Self.negationSubset(resolved[j], keeping: resolved[i]) else {
                    throw .unsupportedKeyword("oneOf whose branches \(i) and \(j) may overlap", path: path + "/\(j)")
                }
                parts.append(apart)
            }
            out.append(parts.count == 1 ? parts[0] : .object([("allOf", .array(parts))]))
        }
        return out
    }

    /// Whether no value satisfies both `a` and `b` (with `siblings`); false when unsure.
    func disjoint(_ a: JSONValue, _ b: JSONValue, siblings: JSONValue, path: String, depth: Int = 0) throws(GrammarError) -> Bool {
        guard depth < 4 else { return false }
        if a == .bool(false) || b == .bool(false) { return true }
        if let ta = Self.typeSet(a), let tb = Self.typeSet(b), ta.isDisjoint(with: tb) { return true }
        if let va = Self.valueSet(a), let vb = Self.valueSet(b), !va.contains(where: vb.contains) { return true }
        if let va = Self.valueSet(a), let tb = Self.typeSet(b), !va.contains(where: { tb.contains(Self.jsonType($0)) }) { return true }
        if let vb = Self.valueSet(b), let ta = Self.typeSet(a), !vb.contains(where: { ta.contains(Self.jsonType($0)) }) { return true }
        // A property both require with values that cannot be equal (a discriminator).
        if case .array(let ra)? = a["required"], case .array(let rb)? = b["required"],
           case .object(let pa)? = a["properties"], case .object(let pb)? = b["properties"] {
            for case .string(let name) in ra where rb.contains(.string(name)) {
                guard let sa = pa.first(where: { $0.key == name })?.value, let sb = pb.first(where: { $0.key == name })?.value else { continue }
                let x = try flattened(try resolveRefs(sa, path: path), path: path, depth: 0)
                let y = try flattened(try resolveRefs(sb, path: path), path: path, depth: 0)
                if try disjoint(x, y, siblings: .object([]), path: path, depth: depth + 1) { return true }
            }
        }
        return false
    }

    /// Part of `not b` as a schema that `a` may still meet: one of b's required names absent,
    /// a type b does not allow, a value b does not list. Nil when b gives none.
    static func negationSubset(_ b: JSONValue, keeping a: JSONValue) -> JSONValue? {
        var options: [JSONValue] = []
        if let types = typeSet(b), (typeSet(a) ?? Set(allTypes)).contains(where: { !types.contains($0) }) {
            let rest = allTypes.filter { !types.contains($0) }
            if !rest.isEmpty { options.append(.object([("type", .array(rest.map { .string($0) }))])) }
        }
        if case .array(let names)? = b["required"] {
            for case .string(let n) in names {
                options.append(.object([("type", .string("object")), ("properties", .object([(n, .bool(false))]))]))
            }
        }
        if let values = valueSet(b) { options.append(.object([(excludedValuesKey, .array(values))])) }
        guard !options.isEmpty else { return nil }
        return options.count == 1 ? options[0] : .object([("anyOf", .array(options))])
    }

    /// The JSON types a schema allows, when it says (`type`, or the types of its constants).
    static func typeSet(_ v: JSONValue) -> Set<String>? {
        if let t = v["type"] {
            var s = Set(typeList(t))
            if s.contains("number") { s.insert("integer") }
            return s
        }
        if let values = valueSet(v) { return Set(values.map(jsonType)) }
        return nil
    }

    /// The values a schema allows, when it lists them (`enum`, `const`).
    static func valueSet(_ v: JSONValue) -> [JSONValue]? {
        if let c = v["const"] { return [c] }
        if case .array(let list)? = v["enum"] { return list }
        return nil
    }

    static func jsonType(_ v: JSONValue) -> String {
        switch v {
        case .null: "null"
        case .bool: "boolean"
        case .number(let n): n == n.rounded() ? "integer" : "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }
}
