// Objects: declared properties in order, then further keys by `patternProperties` and
// `additionalProperties`; `dependentRequired`/`dependencies` as alternatives.

extension SchemaImporter {
    mutating func object(_ value: JSONValue, path: String) throws(GrammarError) -> GrammarSchema.Node {
        if let expanded = try dependencyAlternatives(value, path: path) {
            var nodes: [GrammarSchema.Node] = []
            for variant in expanded {
                do { nodes.append(try object(variant, path: path)) } catch let error where error.isUnsatisfiable { continue }
            }
            guard !nodes.isEmpty else { throw .invalidSchema("no object satisfies the dependencies (no value)", path: path) }
            return nodes.count == 1 ? nodes[0] : .anyOf(nodes)
        }
        var props: [(String, JSONValue)] = []
        if let p = value["properties"] {
            guard case .object(let pairs) = p else { throw .invalidSchema("properties must be an object", path: path + "/properties") }
            props = pairs.map { ($0.key, $0.value) }
        }
        if case .array(let order)? = value["x-order"] {
            var ordered: [(String, JSONValue)] = []
            for case .string(let name) in order {
                if let p = props.first(where: { $0.0 == name }), !ordered.contains(where: { $0.0 == name }) { ordered.append(p) }
            }
            ordered += props.filter { p in !ordered.contains { $0.0 == p.0 } }
            props = ordered
        }
        var required: [String] = []
        if let r = value["required"] {
            guard case .array(let list) = r else { throw .invalidSchema("required must be an array", path: path + "/required") }
            for case .string(let s) in list where !required.contains(s) { required.append(s) }
        }
        var patternRules: [(pattern: String, schema: JSONValue)] = []
        if let pp = value["patternProperties"] {
            guard case .object(let pairs) = pp else { throw .invalidSchema("patternProperties must be an object", path: path + "/patternProperties") }
            patternRules = pairs.map { ($0.key, $0.value) }
        }
        let additional = value["additionalProperties"] ?? .bool(true)
        guard additional.isSchema else { throw .invalidSchema("additionalProperties must be a schema", path: path + "/additionalProperties") }
        if let names = value["propertyNames"], names != .bool(true), names != .object([]) {
            throw .unsupportedKeyword("propertyNames", path: path + "/propertyNames")
        }
        let matchers = try patternRules.map { rule throws(GrammarError) in
            try locate({ () throws(GrammarError) in try PatternAutomaton(regex: rule.pattern, search: true) }, path: path + "/patternProperties")
        }
        // Keys matching two patterns would need both schemas: only disjoint patterns are exact.
        for i in matchers.indices {
            for j in matchers.indices where j > i {
                let both = try locate({ () throws(GrammarError) in try matchers[i].intersecting(matchers[j]) }, path: path + "/patternProperties")
                if !both.isEmpty {
                    throw .unsupportedKeyword("patternProperties with overlapping patterns '\(patternRules[i].pattern)' and '\(patternRules[j].pattern)'", path: path + "/patternProperties")
                }
            }
        }
        /// The schema of a property named `name`: its own, intersected with every pattern rule it matches.
        func schemaFor(_ name: String, own: JSONValue?) -> JSONValue? {
            var parts: [JSONValue] = own.map { [$0] } ?? []
            for (i, m) in matchers.enumerated() where m.matches(name) { parts.append(patternRules[i].schema) }
            if own == nil && parts.isEmpty { return additional == .bool(false) ? nil : additional }
            return parts.count == 1 ? parts[0] : .object([("allOf", .array(parts))])
        }
        var declared: [String] = []
        var properties: [GrammarSchema.Property] = []
        var entries: [(name: String, own: JSONValue?)] = props.map { ($0.0, $0.1) }
        for r in required where !props.contains(where: { $0.0 == r }) { entries.append((r, nil)) }
        for (name, ownSchema) in entries {
            declared.append(name)
            let isRequired = required.contains(name)
            guard let schema = schemaFor(name, own: ownSchema), schema != .bool(false) else {
                if isRequired { throw .invalidSchema("property '\(name)' is required but not allowed (no value)", path: path + "/required") }
                continue  // forbidden: not generated, and excluded from the extra keys
            }
            let propertyPath = path + "/properties/" + name
            let node: GrammarSchema.Node
            do { node = try self.node(schema, path: propertyPath) } catch let error where error.isUnsatisfiable && !isRequired {
                continue
            }
            properties.append(.init(name: name, node: node, isRequired: isRequired))
        }
        let hasExtras = !patternRules.isEmpty || additional != .bool(false)
        if !hasExtras, case .number(1)? = value["minProperties"], value["maxProperties"] == nil, !properties.contains(where: \.isRequired), !properties.isEmpty {
            // At least one property: one alternative per property that comes first.
            var alternatives: [GrammarSchema.Node] = []
            for i in properties.indices {
                var variant = Array(properties[i...])
                variant[0].isRequired = true
                alternatives.append(.object(variant))
            }
            return alternatives.count == 1 ? alternatives[0] : .anyOf(alternatives)
        }
        try checkPropertyCounts(value, properties: properties, hasExtras: hasExtras, path: path)
        var extras: [GrammarSchema.ExtraProperties] = []
        for (i, rule) in patternRules.enumerated() where rule.schema != .bool(false) {
            extras.append(.init(keyPatterns: [rule.pattern], excludedNames: declared,
                                value: try node(rule.schema, path: path + "/patternProperties/" + rule.pattern)))
            _ = i
        }
        if additional != .bool(false) {
            extras.append(.init(excludedPatterns: patternRules.map(\.pattern), excludedNames: declared,
                                value: try node(additional, path: path + "/additionalProperties")))
        }
        return extras.isEmpty ? .object(properties) : .openObject(properties, extras: extras)
    }

    /// `minProperties`/`maxProperties` are enforced when the declared properties decide them.
    func checkPropertyCounts(_ value: JSONValue, properties: [GrammarSchema.Property], hasExtras: Bool, path: String) throws(GrammarError) {
        if let minimum = try count(value, "minProperties", path: path), minimum > properties.filter(\.isRequired).count {
            throw .unsupportedKeyword("minProperties above the number of required properties", path: path + "/minProperties")
        }
        if let maximum = try count(value, "maxProperties", path: path), hasExtras || maximum < properties.count {
            guard maximum >= properties.filter(\.isRequired).count else {
                throw .invalidSchema("maxProperties below the number of required properties (no value)", path: path + "/maxProperties")
            }
            throw .unsupportedKeyword("maxProperties below the number of possible properties", path: path + "/maxProperties")
        }
    }

    /// `dependentRequired` and the array form of `dependencies` as alternatives: for each
    /// property with dependents, one variant where it is absent and one where it and its
    /// dependents are required. Schema-valued `dependencies` intersect the present variant.
    func dependencyAlternatives(_ value: JSONValue, path: String) throws(GrammarError) -> [JSONValue]? {
        var rules: [(String, JSONValue)] = []
        for key in ["dependentRequired", "dependencies"] {
            guard let d = value[key] else { continue }
            guard case .object(let pairs) = d else { throw .invalidSchema("\(key) must be an object", path: path + "/" + key) }
            rules += pairs.map { ($0.key, $0.value) }
        }
        guard !rules.isEmpty else { return nil }
        guard rules.count <= 5 else { throw .unsupportedKeyword("more than 5 dependencies", path: path + "/dependencies") }
        var variants = [value.removing(["dependentRequired", "dependencies"])]
        for (name, rule) in rules {
            var next: [JSONValue] = []
            for v in variants {
                // Absent: the property is forbidden.
                var props: [(key: String, value: JSONValue)] = []
                if case .object(let p)? = v["properties"] { props = p }
                var absent = props
                if let i = absent.firstIndex(where: { $0.key == name }) { absent[i].value = .bool(false) } else { absent.append((name, .bool(false))) }
                next.append(v.setting("properties", .object(absent)))
                // Present: it and its dependents are required.
                var required: [JSONValue] = []
                if case .array(let r)? = v["required"] { required = r }
                required.append(.string(name))
                switch rule {
                case .array(let names): required += names
                case .object, .bool:
                    next.append(.object([("allOf", .array([v.setting("required", .array(required)), rule]))]))
                    continue
                default: throw .invalidSchema("a dependency must be a list of names or a schema", path: path + "/dependencies/" + name)
                }
                next.append(v.setting("required", .array(required)))
            }
            variants = next
        }
        return try variants.map { v throws(GrammarError) in v["allOf"] != nil ? try merged(allOf: v["allOf"]!, siblings: v, path: path) : v }
    }

    /// Runs an automaton construction, placing its errors at `path`.
    func locate(_ make: () throws(GrammarError) -> PatternAutomaton, path: String) throws(GrammarError) -> PatternAutomaton {
        do { return try make() } catch {
            if case .invalidSchema(let message, _) = error { throw .invalidSchema(message, path: path) }
            throw error
        }
    }
}

extension PatternAutomaton {
    /// Whether the automaton accepts `text`.
    func matches(_ text: String) -> Bool {
        var s = initial
        for scalar in text.unicodeScalars {
            s = step(s, scalar.value)
            if s == 0 { return false }
        }
        return isAccepting(s)
    }
}
