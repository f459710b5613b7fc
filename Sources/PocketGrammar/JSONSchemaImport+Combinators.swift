// allOf and sibling keywords of combinators, by merging schemas: the intersection of two
// schemas is written as one schema where that is exact (bounds tightened, types and enums
// intersected, properties merged, required lists joined, anyOf distributed); otherwise the
// import fails naming the keyword.

extension SchemaImporter {
    /// Follows `$ref`s at the top of `value` (not inside it).
    func resolveRefs(_ value: JSONValue, path: String) throws(GrammarError) -> JSONValue {
        var value = value
        var hops = 0
        while case .string(let target)? = value["$ref"] {
            hops += 1
            guard hops < 32 else { throw .invalidSchema("$ref chain too long or cyclic", path: path) }
            let resolved = try resolve(target, path: path + "/$ref")
            let rest = value.removing(["$ref"])
            if case .object(let pairs) = rest, !pairs.isEmpty, case .object = resolved {
                value = .object([("allOf", .array([resolved, rest]))])
                break
            }
            value = resolved
        }
        return value
    }

    /// The schema `siblings` (without `allOf`) intersected with every schema of `allOf`.
    func merged(allOf: JSONValue, siblings: JSONValue, path: String) throws(GrammarError) -> JSONValue {
        guard case .array(let items) = allOf, !items.isEmpty else { throw .invalidSchema("allOf must be a non-empty array", path: path + "/allOf") }
        var result = try flattened(try resolveRefs(siblings.removing(["allOf"]), path: path), path: path, depth: 0)
        for (i, item) in items.enumerated() {
            let branch = try flattened(try resolveRefs(item, path: path + "/allOf/\(i)"), path: path + "/allOf/\(i)", depth: 0)
            result = try merge(result, branch, path: path + "/allOf/\(i)")
        }
        return result
    }

    /// `value` with its own `allOf` merged in (so a merge never meets an `allOf`).
    func flattened(_ value: JSONValue, path: String, depth: Int) throws(GrammarError) -> JSONValue {
        guard depth < 16 else { throw .invalidSchema("allOf nested too deeply (recursive?)", path: path) }
        guard case .array(let items)? = value["allOf"] else { return value }
        var result = value.removing(["allOf"])
        for (i, item) in items.enumerated() {
            let branch = try flattened(try resolveRefs(item, path: path + "/allOf/\(i)"), path: path + "/allOf/\(i)", depth: depth + 1)
            result = try merge(result, branch, path: path + "/allOf/\(i)")
        }
        return result
    }

    /// The intersection of two schemas as one schema.
    func merge(_ a: JSONValue, _ b: JSONValue, path: String) throws(GrammarError) -> JSONValue {
        switch (a, b) {
        case (.bool(true), _): return b
        case (_, .bool(true)): return a
        case (.bool(false), _), (_, .bool(false)): throw .invalidSchema("allOf with false accepts no value", path: path)
        default: break
        }
        guard case .object = a, case .object = b else { throw .invalidSchema("a schema must be an object", path: path) }
        var a = a, b = b
        if case .string? = a["$ref"] { a = try flattened(try resolveRefs(a, path: path), path: path, depth: 0) }
        guard case .object(let left) = a else { return try merge(a, b, path: path) }
        if b["allOf"] != nil { b = try flattened(b, path: path, depth: 0) }
        if case .string? = b["$ref"] { b = try resolveRefs(b, path: path) }
        if b["allOf"] != nil { b = try flattened(b, path: path, depth: 0) }
        guard case .object(let rightPairs) = b else { return try merge(a, b, path: path) }
        var result = left
        func index(_ key: String) -> Int? { result.firstIndex { $0.key == key } }
        for (key, value) in rightPairs {
            guard let i = index(key) else {
                result.append((key, value))
                continue
            }
            let mine = result[i].value
            if mine == value { continue }
            if key == SchemaImporter.excludedValuesKey, case .array(let x) = mine, case .array(let y) = value {
                result[i].value = .array(x + y)
                continue
            }
            if key == "not" {
                result[i].value = .object([("anyOf", .array([mine, value]))])  // ¬x ∧ ¬y = ¬(x ∨ y)
                continue
            }
            guard JSONSchemaImport.validationKeywords.contains(key) else { continue }  // annotations: keep the first
            switch key {
            case "type":
                let types = Set(Self.typeList(mine)), other = Set(Self.typeList(value))
                var both = types.intersection(other)
                if types.contains("number") && other.contains("integer") || other.contains("number") && types.contains("integer") { both.insert("integer") }
                guard !both.isEmpty else { throw .invalidSchema("allOf with types that have no value in common (no type)", path: path + "/type") }
                result[i].value = .array(both.sorted().map { .string($0) })
            case "properties":
                guard case .object(var mineProps) = mine, case .object(let otherProps) = value else { throw .invalidSchema("properties must be an object", path: path) }
                for (name, schema) in otherProps {
                    if let j = mineProps.firstIndex(where: { $0.key == name }) {
                        mineProps[j].value = .object([("allOf", .array([mineProps[j].value, schema]))])
                    } else {
                        mineProps.append((name, schema))
                    }
                }
                result[i].value = .object(mineProps)
            case "required":
                guard case .array(let x) = mine, case .array(let y) = value else { throw .invalidSchema("required must be an array", path: path) }
                result[i].value = .array(x + y.filter { !x.contains($0) })
            case "enum":
                guard case .array(let x) = mine, case .array(let y) = value else { throw .invalidSchema("enum must be an array", path: path) }
                let both = x.filter { y.contains($0) }
                guard !both.isEmpty else { throw .invalidSchema("allOf with enums that have no value in common (no value)", path: path + "/enum") }
                result[i].value = .array(both)
            case "const":
                throw .invalidSchema("allOf with different const values accepts no value", path: path + "/const")
            case "minimum", "minLength", "minItems", "minProperties":
                guard case .number(let x) = mine, case .number(let y) = value else { throw .unsupportedKeyword("allOf combining '\(key)'", path: path) }
                result[i].value = .number(max(x, y))
            case "maximum", "maxLength", "maxItems", "maxProperties":
                guard case .number(let x) = mine, case .number(let y) = value else { throw .unsupportedKeyword("allOf combining '\(key)'", path: path) }
                result[i].value = .number(min(x, y))
            case "exclusiveMinimum", "exclusiveMaximum":
                guard case .number(let x) = mine, case .number(let y) = value else { throw .unsupportedKeyword("allOf combining '\(key)'", path: path) }
                result[i].value = .number(key == "exclusiveMinimum" ? max(x, y) : min(x, y))
            case "pattern":
                // Both patterns apply: kept as a Pocket-internal list beside `pattern`.
                var list: [JSONValue] = []
                if case .array(let existing)? = result.first(where: { $0.key == SchemaImporter.extraPatternsKey })?.value { list = existing }
                list.append(value)
                result.removeAll { $0.key == SchemaImporter.extraPatternsKey }
                result.append((SchemaImporter.extraPatternsKey, .array(list)))
            case "items" where mine.isSchema && value.isSchema:
                result[i].value = .object([("allOf", .array([mine, value]))])
            case "additionalProperties":
                result[i].value = try mergeAdditional(mine, value, path: path)
            case "anyOf", "oneOf":
                // Distributed over later: both lists must hold, so the schema becomes an
                // anyOf of pairwise intersections.
                guard case .array(let x) = mine, case .array(let y) = value, x.count * y.count <= 64 else {
                    throw .unsupportedKeyword("allOf combining '\(key)' (too many branch pairs)", path: path)
                }
                var pairs: [JSONValue] = []
                for p in x { for q in y { pairs.append(.object([("allOf", .array([p, q]))])) } }
                result[i].value = .array(pairs)
            default:
                throw .unsupportedKeyword("allOf combining '\(key)'", path: path + "/" + key)
            }
        }
        if result.contains(where: { $0.key == "anyOf" }) && result.contains(where: { $0.key == "oneOf" }) {
            throw .unsupportedKeyword("allOf combining anyOf with oneOf", path: path)
        }
        return try restrictToClosedProperties(.object(result), left: a, right: b, path: path)
    }

    /// `additionalProperties` of both sides: false wins, schemas intersect.
    func mergeAdditional(_ x: JSONValue, _ y: JSONValue, path: String) throws(GrammarError) -> JSONValue {
        if x == .bool(false) || y == .bool(false) { return .bool(false) }
        if x == .bool(true) { return y }
        if y == .bool(true) { return x }
        return .object([("allOf", .array([x, y]))])
    }

    /// When one side forbids undeclared properties (`additionalProperties: false`), the other
    /// side's properties it does not declare are forbidden in the result too.
    func restrictToClosedProperties(_ merged: JSONValue, left: JSONValue, right: JSONValue, path: String) throws(GrammarError) -> JSONValue {
        var merged = merged
        for (closed, other) in [(left, right), (right, left)] where closed["additionalProperties"] == .bool(false) {
            if other["additionalProperties"] == nil && other["patternProperties"] == nil && closed["patternProperties"] == nil {
                guard case .object(let props)? = merged["properties"] else { continue }
                var names: Set<String> = []
                if case .object(let declared)? = closed["properties"] { names = Set(declared.map(\.key)) }
                let kept = props.filter { names.contains($0.key) }
                merged = merged.setting("properties", .object(kept))
                if case .array(let required)? = merged["required"] {
                    for case .string(let r) in required where !names.contains(r) {
                        throw .invalidSchema("'\(r)' is required but additionalProperties is false (no value)", path: path)
                    }
                }
            } else if other["additionalProperties"] != .bool(false) || other["patternProperties"] != nil || closed["patternProperties"] != nil {
                throw .unsupportedKeyword("allOf combining additionalProperties: false with other property rules", path: path)
            }
        }
        return merged
    }

    /// The types a `type` keyword lists.
    static func typeList(_ value: JSONValue) -> [String] {
        switch value {
        case .string(let t): return [t]
        case .array(let list): return list.compactMap { if case .string(let s) = $0 { s } else { nil } }
        default: return []
        }
    }

    /// A Pocket-internal keyword: further patterns the string must contain a match of (from
    /// merged `allOf` branches).
    static let extraPatternsKey = "$pocket-patterns"
}

extension JSONValue {
    /// Whether the value can be a schema (an object or a boolean).
    var isSchema: Bool {
        switch self {
        case .object, .bool: true
        default: false
        }
    }
}
