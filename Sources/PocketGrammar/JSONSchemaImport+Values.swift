// `enum` and `const` with values of any JSON type, checked against the schema's other keywords.

extension SchemaImporter {
    mutating func enumeration(_ value: JSONValue, path: String) throws(GrammarError) -> GrammarSchema.Node {
        var values: [JSONValue]
        var keyword = "enum"
        if let e = value["enum"] {
            guard case .array(let list) = e, !list.isEmpty else { throw .invalidSchema("enum must be a non-empty array", path: path + "/enum") }
            values = list
            if let c = value["const"] { values = values.filter { $0 == c } }
        } else {
            keyword = "const"
            values = [value["const"]!]
        }
        if case .array(let excluded)? = value[Self.excludedValuesKey] { values = values.filter { !excluded.contains($0) } }
        let siblings = value.removing(["enum", "const", Self.excludedValuesKey])
        // A value must also satisfy the other keywords: checked with the grammar they compile to.
        if hasValidationKeywords(siblings, except: []) {
            var check = SchemaImporter(document: document, search: search)
            let grammar: CompiledGrammar
            do {
                let root = try check.node(siblings, path: path)
                grammar = try CompiledGrammar(GrammarSchema(root: root, definitions: check.definitions))
            } catch let error where error.isUnsatisfiable {
                throw .invalidSchema("\(keyword) values outside the schema's other keywords (no value)", path: path + "/" + keyword)
            }
            values = values.filter { grammar.accepts(Array(Self.canonicalText($0).utf8)) }
        }
        guard !values.isEmpty else {
            throw .invalidSchema("no \(keyword) value satisfies the schema's other keywords (no value)", path: path + "/" + keyword)
        }
        var strings: [String] = []
        var nodes: [GrammarSchema.Node] = []
        for v in values {
            switch v {
            case .string(let s): if !strings.contains(s) { strings.append(s) }
            case .bool(let b): nodes.append(.constant(b))
            case .null: nodes.append(.null)
            default: nodes.append(.json(Self.canonicalText(v)))
            }
        }
        if !strings.isEmpty { nodes.insert(.string(.init(choices: strings)), at: 0) }
        return nodes.count == 1 ? nodes[0] : .anyOf(nodes)
    }

    /// Compact JSON text of a value, keys in document order; integers without a fraction.
    static func canonicalText(_ value: JSONValue) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .string(let s): return JSONText.quoted(s)
        case .number(let n):
            if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
            return "\(n)"
        case .array(let items): return "[" + items.map(canonicalText).joined(separator: ",") + "]"
        case .object(let pairs): return "{" + pairs.map { JSONText.quoted($0.key) + ":" + canonicalText($0.value) }.joined(separator: ",") + "}"
        }
    }
}
