import Foundation

/// Imports JSON Schema (drafts 4 to 2020-12) into a ``GrammarSchema``.
///
/// Keywords are handled by meaning. Annotations and unknown keywords (`title`, `description`,
/// `examples`, `default`, `readOnly`, `deprecated`, `x-*`, vendor keys…) are ignored, as every
/// validator does. Validation keywords are enforced exactly: `type`, `enum`, `const` (any JSON
/// value), `properties` (in document order, or in the order of `x-order`), `required`,
/// `additionalProperties`, `patternProperties`, `minProperties`/`maxProperties` (when the
/// declared properties decide them), `dependentRequired`/`dependencies`, `items`,
/// `prefixItems`, `additionalItems`, `minItems`, `maxItems`, `uniqueItems` (see below),
/// `minLength`, `maxLength`, `pattern` (ECMA-262 search: `"\\w+"` is any string containing a
/// word character), `format` (see ``JSONSchemaFormats``; unknown formats are annotations),
/// `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf` (integers),
/// `allOf` (merged), `anyOf`/`oneOf` (with sibling keywords intersected into each branch),
/// `$ref` (JSON pointers into the document, `$defs`/`definitions`). A validation keyword that
/// cannot be enforced exactly is an error naming it and its JSON pointer: a schema is never
/// enforced only in part.
///
/// `uniqueItems: true` is accepted only where it cannot fail (at most one element, or
/// elements that are a single constant value and `maxItems` ≤ 1); elsewhere it is an error.
public enum JSONSchemaImport {
    /// How a `pattern` keyword matches.
    public enum PatternMatching: Sendable {
        /// JSON Schema semantics: the pattern matches some part of the string (ECMA-262
        /// `RegExp.test`), so `^` and `$` anchor it.
        case search
        /// The whole string must match (Apple's `@Guide(.pattern(_:))`).
        case wholeString
    }

    /// Parses JSON Schema text.
    ///
    /// - Parameters:
    ///   - data: The schema, UTF-8 JSON.
    ///   - patterns: How `pattern` matches (JSON Schema's search by default).
    /// - Throws: ``GrammarError`` naming the keyword and JSON pointer the engine cannot enforce.
    public static func schema(from data: Data, patterns: PatternMatching = .search) throws(GrammarError) -> GrammarSchema {
        try schema(from: JSONValue.parse(Array(data)), patterns: patterns)
    }

    /// Parses JSON Schema text.
    ///
    /// - Parameters:
    ///   - text: The schema.
    ///   - patterns: How `pattern` matches (JSON Schema's search by default).
    /// - Throws: ``GrammarError`` naming the keyword and JSON pointer the engine cannot enforce.
    public static func schema(fromJSON text: String, patterns: PatternMatching = .search) throws(GrammarError) -> GrammarSchema {
        try schema(from: JSONValue.parse(Array(text.utf8)), patterns: patterns)
    }

    static func schema(from document: JSONValue, patterns: PatternMatching = .search) throws(GrammarError) -> GrammarSchema {
        var importer = SchemaImporter(document: document, search: patterns == .search)
        let root = try importer.node(document, path: "#")
        let schema = GrammarSchema(root: root, definitions: importer.definitions)
        // Every reference must resolve, and the schema must be satisfiable.
        _ = try CompiledGrammar(schema)
        return schema
    }

    /// The validation keywords of drafts 4 to 2020-12. Anything else is an annotation or an
    /// unknown keyword, and is ignored.
    static let validationKeywords: Set<String> = [
        "type", "enum", "const", "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
        "maxLength", "minLength", "pattern", "format", "items", "additionalItems", "prefixItems", "maxItems", "minItems",
        "uniqueItems", "contains", "maxContains", "minContains", "maxProperties", "minProperties", "required",
        "properties", "patternProperties", "additionalProperties", "dependencies", "dependentRequired",
        "dependentSchemas", "propertyNames", "if", "then", "else", "allOf", "anyOf", "oneOf", "not", "$ref",
        "$dynamicRef", "$recursiveRef", "unevaluatedItems", "unevaluatedProperties",
    ]

    /// Keywords that constrain only values of one type, by type.
    static let keywordsByType: [(type: String, keywords: Set<String>)] = [
        ("object", ["properties", "required", "additionalProperties", "patternProperties", "minProperties", "maxProperties",
                    "dependencies", "dependentRequired", "dependentSchemas", "propertyNames", "unevaluatedProperties"]),
        ("array", ["items", "prefixItems", "additionalItems", "minItems", "maxItems", "uniqueItems", "contains",
                   "minContains", "maxContains", "unevaluatedItems"]),
        ("string", ["minLength", "maxLength", "pattern", "format"]),
        ("number", ["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]),
    ]
}

/// One import: the document (for `$ref`), and the definitions made so far.
struct SchemaImporter {
    let document: JSONValue
    let search: Bool
    var definitions: [String: GrammarSchema.Node] = [:]
    var inProgress: Set<String> = []
    /// Depth of nested imports, against runaway expansion.
    var depth = 0

    init(document: JSONValue, search: Bool) {
        self.document = document
        self.search = search
    }

    /// Imports one schema.
    mutating func node(_ value: JSONValue, path: String) throws(GrammarError) -> GrammarSchema.Node {
        depth += 1
        defer { depth -= 1 }
        guard depth < 200 else { throw .invalidSchema("schema nested or expanded too deeply", path: path) }
        switch value {
        case .bool(true): return .anyValue
        case .bool(false): throw .invalidSchema("the schema false accepts no value", path: path)
        case .object: break
        default: throw .invalidSchema("a schema must be an object or a boolean", path: path)
        }
        if let negated = value["not"] {
            let rest = value.removing(["not"])
            return try node(.object([("allOf", .array([rest, try negation(negated, path: path + "/not")]))]), path: path)
        }
        for key in ["if", "contains", "dependentSchemas", "$dynamicRef", "$recursiveRef", "unevaluatedItems", "unevaluatedProperties"]
        where value[key] != nil {
            if key == "unevaluatedProperties" || key == "unevaluatedItems", value[key] == .bool(true) { continue }
            throw .unsupportedKeyword(key, path: path + "/" + key)
        }
        // Combinators first: they rewrite the schema into one without them.
        if let all = value["allOf"] {
            return try node(try merged(allOf: all, siblings: value, path: path), path: path)
        }
        if let ref = value["$ref"] {
            guard case .string(let target) = ref else { throw .invalidSchema("$ref must be a string", path: path + "/$ref") }
            if hasValidationKeywords(value, except: ["$ref"]) {
                // Siblings of $ref apply too (2019-09 and later): an intersection.
                let target = try resolve(target, path: path + "/$ref")
                return try node(.object([("allOf", .array([target, value.removing(["$ref"])]))]), path: path)
            }
            return try reference(target, path: path + "/$ref")
        }
        if let choices = value["anyOf"] ?? value["oneOf"] {
            let key = value["anyOf"] != nil ? "anyOf" : "oneOf"
            guard value["anyOf"] == nil || value["oneOf"] == nil else {
                return try node(.object([("allOf", .array([value.removing(["oneOf"]), .object([("oneOf", value["oneOf"]!)])]))]), path: path)
            }
            guard case .array(let items) = choices, !items.isEmpty else { throw .invalidSchema("\(key) must be a non-empty array", path: path + "/" + key) }
            let siblings = value.removing(["anyOf", "oneOf"])
            var nodes: [GrammarSchema.Node] = []
            let branches = key == "oneOf" && items.count > 1 ? try exclusiveBranches(items, siblings: siblings, path: path + "/oneOf") : items
            for (i, item) in branches.enumerated() {
                let branchPath = path + "/\(key)/\(i)"
                if hasValidationKeywords(siblings, except: []) || key == "oneOf" {
                    // type, properties… beside anyOf constrain every branch.
                    let branch = try resolveRefs(item, path: branchPath)
                    if case .bool(false) = branch { continue }
                    if case .bool(true) = branch { nodes.append(try node(siblings, path: path)); continue }
                    do {
                        nodes.append(try node(try merge(siblings, branch, path: branchPath), path: branchPath))
                    } catch let error where error.isUnsatisfiable {
                        continue  // a branch that contradicts the siblings adds nothing
                    }
                } else {
                    if case .bool(false) = item { continue }
                    do { nodes.append(try node(item, path: branchPath)) } catch let error where error.isUnsatisfiable { continue }
                }
            }
            guard !nodes.isEmpty else { throw .invalidSchema("no branch of \(key) can be satisfied", path: path + "/" + key) }
            return nodes.count == 1 ? nodes[0] : .anyOf(nodes)
        }
        if value["enum"] != nil || value["const"] != nil {
            return try enumeration(value, path: path)
        }
        return try typed(value, path: path)
    }

    /// Whether `value` holds validation keywords other than `except`.
    func hasValidationKeywords(_ value: JSONValue, except: Set<String>) -> Bool {
        guard case .object(let pairs) = value else { return false }
        return pairs.contains { JSONSchemaImport.validationKeywords.contains($0.key) && !except.contains($0.key) }
    }

    // MARK: References

    /// A reference node for `$ref` target `target`, importing its definition once.
    mutating func reference(_ target: String, path: String) throws(GrammarError) -> GrammarSchema.Node {
        let pointer = try localPointer(target, path: path)
        let name = Self.definitionName(pointer)
        if definitions[name] == nil && !inProgress.contains(name) {
            inProgress.insert(name)
            let value = try resolvePointer(pointer, path: path)
            definitions[name] = try node(value, path: pointer.isEmpty ? "#" : "#" + pointer)
            inProgress.remove(name)
        }
        return .reference(name)
    }

    /// Definition names: the last component for `#/$defs/X`, the pointer otherwise.
    static func definitionName(_ pointer: String) -> String {
        if pointer.hasPrefix("/$defs/") {
            let rest = pointer.dropFirst(7)
            if !rest.contains("/") { return String(rest) }
        }
        return "#" + pointer
    }

    /// The JSON pointer (after `#`, percent-decoded) a `$ref` names inside this document.
    func localPointer(_ target: String, path: String) throws(GrammarError) -> String {
        var target = target
        if let hash = target.firstIndex(of: "#"), hash != target.startIndex {
            // An absolute reference to this document itself (its $id).
            let base = String(target[..<hash])
            let ids = [document["$id"], document["id"]].compactMap { v -> String? in if case .string(let s)? = v { s } else { nil } }
            guard ids.contains(where: { $0 == base || $0.hasSuffix("/" + base) || $0.split(separator: "#").first.map(String.init) == base }) else {
                throw .unsupportedKeyword("$ref to '\(target)' (another document)", path: path)
            }
            target = String(target[hash...])
        }
        guard target.hasPrefix("#") else { throw .unsupportedKeyword("$ref to '\(target)' (another document)", path: path) }
        let fragment = String(target.dropFirst())
        guard fragment.isEmpty || fragment.hasPrefix("/") else {
            throw .unsupportedKeyword("$ref to the anchor '\(target)'", path: path)
        }
        return fragment.removingPercentEncoding ?? fragment
    }

    /// The value at a JSON pointer of the document.
    func resolvePointer(_ pointer: String, path: String) throws(GrammarError) -> JSONValue {
        var value = document
        guard !pointer.isEmpty else { return value }
        for part in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let key = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch value {
            case .object:
                guard let next = value[key] else { throw .undefinedReference("#" + pointer, path: path) }
                value = next
            case .array(let items):
                guard let i = Int(key), i >= 0, i < items.count else { throw .undefinedReference("#" + pointer, path: path) }
                value = items[i]
            default: throw .undefinedReference("#" + pointer, path: path)
            }
        }
        return value
    }

    /// The schema a `$ref` points to.
    func resolve(_ target: String, path: String) throws(GrammarError) -> JSONValue {
        try resolvePointer(try localPointer(target, path: path), path: path)
    }
}

extension GrammarError {
    /// Whether the error says the schema accepts no value (as opposed to "cannot enforce").
    package var isUnsatisfiable: Bool {
        if case .invalidSchema(let message, _) = self {
            return message.contains("no value") || message.contains("are empty") || message.contains("no type")
                || message.contains("can be satisfied") || message.contains("accepts no")
        }
        return false
    }
}

extension JSONValue {
    /// The object without `keys`.
    func removing(_ keys: Set<String>) -> JSONValue {
        guard case .object(let pairs) = self else { return self }
        return .object(pairs.filter { !keys.contains($0.key) })
    }

    /// The object with `key` set to `value` (replaced in place, or appended).
    func setting(_ key: String, _ value: JSONValue) -> JSONValue {
        guard case .object(var pairs) = self else { return self }
        if let i = pairs.firstIndex(where: { $0.key == key }) { pairs[i].value = value } else { pairs.append((key, value)) }
        return .object(pairs)
    }
}
