import Foundation

/// Imports the common subset of JSON Schema into a ``GrammarSchema``.
///
/// Supported keywords: `type` (a name or a list), `properties` (in document order, or in the
/// order of `x-order`), `required`, `additionalProperties: false`, `items`, `minItems`,
/// `maxItems`, `enum` (strings), `const` (string, number, boolean, null), `minimum`, `maximum`,
/// `minLength`, `maxLength`, `pattern` (anchored: the whole string must match),
/// `anyOf`/`oneOf`, `$defs`/`definitions` with `$ref`, and the annotations `description`,
/// `title`, `$schema`, `$id`, `$comment`. `{}` is any value. Anything else is an error naming
/// the keyword and its JSON pointer: a schema is never enforced only in part.
public enum JSONSchemaImport {
    /// Parses JSON Schema text.
    public static func schema(from data: Data) throws(GrammarError) -> GrammarSchema {
        try schema(from: JSONValue.parse(Array(data)))
    }

    /// Parses JSON Schema text.
    public static func schema(fromJSON text: String) throws(GrammarError) -> GrammarSchema {
        try schema(from: JSONValue.parse(Array(text.utf8)))
    }

    static let annotations: Set<String> = ["description", "title", "$schema", "$id", "$comment", "examples", "default"]

    static func schema(from document: JSONValue) throws(GrammarError) -> GrammarSchema {
        var definitions: [String: GrammarSchema.Node] = [:]
        for key in ["$defs", "definitions"] {
            guard let defs = document[key] else { continue }
            guard case .object(let pairs) = defs else { throw .invalidSchema("\(key) must be an object", path: "#/\(key)") }
            for (name, value) in pairs {
                definitions[name] = try node(value, path: "#/\(key)/\(name)")
            }
        }
        let root = try node(document, path: "#", isRoot: true)
        // Every reference must resolve.
        _ = try CompiledGrammar(GrammarSchema(root: root, definitions: definitions))
        return GrammarSchema(root: root, definitions: definitions)
    }

    static func node(_ value: JSONValue, path: String, isRoot: Bool = false) throws(GrammarError) -> GrammarSchema.Node {
        if case .bool(true) = value { return .anyValue }
        guard case .object(let pairs) = value else { throw .invalidSchema("a schema must be an object", path: path) }
        var known: Set<String> = annotations
        if isRoot { known.formUnion(["$defs", "definitions"]) }
        func use(_ keys: String...) { known.formUnion(keys) }
        func integer(_ key: String) throws(GrammarError) -> Int? {
            guard let v = value[key] else { return nil }
            guard case .number(let n) = v, n >= 0, n == n.rounded(), n < 1e9 else {
                throw .invalidSchema("\(key) must be a non-negative integer", path: path + "/" + key)
            }
            return Int(n)
        }
        func number(_ key: String) throws(GrammarError) -> Double? {
            guard let v = value[key] else { return nil }
            guard case .number(let n) = v else { throw .invalidSchema("\(key) must be a number", path: path + "/" + key) }
            return n
        }

        var result: GrammarSchema.Node
        if let ref = value["$ref"] {
            use("$ref")
            guard case .string(let target) = ref else { throw .invalidSchema("$ref must be a string", path: path + "/$ref") }
            let prefixes = ["#/$defs/", "#/definitions/"]
            guard let prefix = prefixes.first(where: target.hasPrefix) else {
                throw .unsupportedKeyword("$ref to '\(target)'", path: path + "/$ref")
            }
            result = .reference(String(target.dropFirst(prefix.count)))
        } else if let choices = value["anyOf"] ?? value["oneOf"] {
            use("anyOf", "oneOf")
            guard case .array(let items) = choices, !items.isEmpty else {
                throw .invalidSchema("anyOf/oneOf must be a non-empty array", path: path)
            }
            var nodes: [GrammarSchema.Node] = []
            for (i, item) in items.enumerated() { nodes.append(try node(item, path: path + "/anyOf/\(i)")) }
            result = .anyOf(nodes)
        } else if let c = value["const"] {
            use("const", "type")
            switch c {
            case .string(let s): result = .string(.init(choices: [s]))
            case .bool: throw .unsupportedKeyword("const with a boolean", path: path + "/const")
            case .null: result = .null
            case .number(let n):
                result = n == n.rounded() ? .integer(minimum: Int(n), maximum: Int(n)) : .number(minimum: n, maximum: n)
            default: throw .unsupportedKeyword("const with an array or object", path: path + "/const")
            }
        } else if let e = value["enum"] {
            use("enum", "type")
            guard case .array(let items) = e, !items.isEmpty else { throw .invalidSchema("enum must be a non-empty array", path: path + "/enum") }
            var strings: [String] = []
            for item in items {
                guard case .string(let s) = item else { throw .unsupportedKeyword("enum with non-string values", path: path + "/enum") }
                strings.append(s)
            }
            result = .string(.init(choices: strings))
        } else {
            use("type")
            var types: [String] = []
            switch value["type"] {
            case .string(let t)?: types = [t]
            case .array(let list)?:
                for t in list {
                    guard case .string(let name) = t else { throw .invalidSchema("type list must hold strings", path: path + "/type") }
                    types.append(name)
                }
            case nil:
                // No type: any value, unless the schema describes an object.
                types = value["properties"] != nil ? ["object"] : []
            default: throw .invalidSchema("type must be a string or a list", path: path + "/type")
            }
            var nodes: [GrammarSchema.Node] = []
            for type in types {
                switch type {
                case "object":
                    use("properties", "required", "additionalProperties", "x-order")
                    var props: [(String, JSONValue)] = []
                    if case .object(let p)? = value["properties"] { props = p.map { ($0.key, $0.value) } }
                    if case .array(let order)? = value["x-order"] {
                        var ordered: [(String, JSONValue)] = []
                        for case .string(let name) in order {
                            if let p = props.first(where: { $0.0 == name }) { ordered.append(p) }
                        }
                        ordered += props.filter { p in !ordered.contains { $0.0 == p.0 } }
                        props = ordered
                    }
                    var required: Set<String> = []
                    if case .array(let r)? = value["required"] { for case .string(let s) in r { required.insert(s) } }
                    if let extra = value["additionalProperties"], extra != .bool(false) {
                        throw .unsupportedKeyword("additionalProperties other than false", path: path + "/additionalProperties")
                    }
                    if props.isEmpty && value["additionalProperties"] == nil {
                        nodes.append(.anyValue)  // a free-form object
                        continue
                    }
                    var properties: [GrammarSchema.Property] = []
                    for (name, schema) in props {
                        properties.append(.init(name: name, node: try node(schema, path: path + "/properties/" + name),
                                                isRequired: required.contains(name)))
                    }
                    nodes.append(.object(properties))
                case "array":
                    use("items", "minItems", "maxItems")
                    let items = try value["items"].map { v throws(GrammarError) in try node(v, path: path + "/items") } ?? .anyValue
                    nodes.append(.array(items: items, minimum: try integer("minItems") ?? 0, maximum: try integer("maxItems")))
                case "string":
                    use("minLength", "maxLength", "pattern")
                    var pattern: String?
                    if let p = value["pattern"] {
                        guard case .string(let text) = p else { throw .invalidSchema("pattern must be a string", path: path + "/pattern") }
                        guard value["minLength"] == nil else { throw .unsupportedKeyword("minLength with pattern", path: path + "/minLength") }
                        pattern = text
                    }
                    nodes.append(.string(.init(pattern: pattern, minimumLength: try integer("minLength") ?? 0, maximumLength: try integer("maxLength"))))
                case "integer":
                    use("minimum", "maximum")
                    let minimum = try number("minimum"), maximum = try number("maximum")
                    nodes.append(.integer(minimum: minimum.map { Int(($0).rounded(.up)) }, maximum: maximum.map { Int(($0).rounded(.down)) }))
                case "number":
                    use("minimum", "maximum")
                    nodes.append(.number(minimum: try number("minimum"), maximum: try number("maximum")))
                case "boolean": nodes.append(.boolean)
                case "null": nodes.append(.null)
                default: throw .invalidSchema("unknown type '\(type)'", path: path + "/type")
                }
            }
            result = nodes.isEmpty ? .anyValue : nodes.count == 1 ? nodes[0] : .anyOf(nodes)
        }
        for (key, _) in pairs where !known.contains(key) {
            throw .unsupportedKeyword(key, path: path + "/" + key)
        }
        return result
    }
}
