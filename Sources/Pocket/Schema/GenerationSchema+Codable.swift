// Codable as JSON Schema. Encoding writes the same tree as `jsonSchemaString()` through the
// encoder's containers, so `JSONEncoder` produces a JSON Schema object (whose key order is then
// up to the encoder). Decoding reads any JSON tree and restores property order from `x-order`,
// so decode(encode(schema)) describes the same schema whatever order the encoder used; without
// `x-order` the order of the `properties` keys as the decoder reports them is used.

extension GenerationSchema: Codable {
    /// Decodes a schema from its JSON Schema form.
    ///
    /// - Parameter decoder: A decoder positioned at a JSON Schema object.
    /// - Throws: `DecodingError.dataCorrupted` naming the JSON pointer of the part that is not
    ///   in the subset written by ``jsonSchemaString(prettyPrinted:)``.
    public init(from decoder: any Decoder) throws {
        let tree = try CodableJSON(from: decoder).content
        do {
            self = try JSONSchemaReader.schema(from: tree)
        } catch let error as JSONSchemaReader.Failure {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    /// Encodes the schema as a JSON Schema object.
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: ``SchemaError`` or ``GuideError`` when the schema cannot be resolved, or the
    ///   encoder's errors.
    public func encode(to encoder: any Encoder) throws {
        try CodableJSON(content: jsonSchemaContent()).encode(to: encoder)
    }
}

/// Any JSON value carried through `Codable` containers.
struct CodableJSON: Codable {
    let content: GeneratedContent

    init(content: GeneratedContent) {
        self.content = content
    }

    struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            var result = OrderedObject()
            for key in object.allKeys {
                result[key.stringValue] = try object.decode(CodableJSON.self, forKey: key).content
            }
            content = result.content
        } else if var array = try? decoder.unkeyedContainer() {
            var elements: [GeneratedContent] = []
            while !array.isAtEnd {
                elements.append(try array.decode(CodableJSON.self).content)
            }
            content = GeneratedContent(kind: .array(elements))
        } else {
            let value = try decoder.singleValueContainer()
            if value.decodeNil() {
                content = GeneratedContent(kind: .null)
            } else if let bool = try? value.decode(Bool.self) {
                content = GeneratedContent(kind: .bool(bool))
            } else if let number = try? value.decode(Double.self) {
                content = GeneratedContent(kind: .number(number))
            } else {
                content = GeneratedContent(kind: .string(try value.decode(String.self)))
            }
        }
    }

    func encode(to encoder: any Encoder) throws {
        switch content.kind {
        case .null:
            var value = encoder.singleValueContainer()
            try value.encodeNil()
        case .bool(let bool):
            var value = encoder.singleValueContainer()
            try value.encode(bool)
        case .number(let number):
            var value = encoder.singleValueContainer()
            if number == number.rounded(), abs(number) < 1e15 {
                try value.encode(Int64(number))
            } else {
                try value.encode(number)
            }
        case .string(let string):
            var value = encoder.singleValueContainer()
            try value.encode(string)
        case .array(let elements):
            var array = encoder.unkeyedContainer()
            for element in elements { try array.encode(CodableJSON(content: element)) }
        case .structure(let properties, let orderedKeys):
            var object = encoder.container(keyedBy: Key.self)
            for key in GeneratedContent.outputKeys(properties, orderedKeys) {
                try object.encode(CodableJSON(content: properties[key]!), forKey: Key(stringValue: key))
            }
        }
    }
}

/// Reads the JSON Schema subset written by `JSONSchemaWriter` back into schema nodes.
enum JSONSchemaReader {
    struct Failure: Error, CustomStringConvertible {
        let pointer: String
        let message: String
        var description: String { "JSON Schema at \(pointer.isEmpty ? "#" : "#" + pointer): \(message)" }
    }

    static func schema(from tree: GeneratedContent) throws -> GenerationSchema {
        let object = try structure(tree, at: "")
        var definitions: [String: SchemaNode] = [:]
        if let defs = object["$defs"] {
            let entries = try structure(defs, at: "/$defs")
            for (name, definition) in entries {
                definitions[name] = try node(from: definition, at: "/$defs/" + name).node
            }
        }
        let root = try node(from: tree, at: "").node
        return GenerationSchema(root: root, definitions: definitions)
    }

    /// A node and, for the description of a property, the `description` it carried.
    private static func node(from tree: GeneratedContent, at pointer: String) throws -> (node: SchemaNode, description: String?) {
        let object = try structure(tree, at: pointer)
        let title = try string(object["title"], at: pointer + "/title")
        let description = try string(object["description"], at: pointer + "/description")
        if let reference = try string(object["$ref"], at: pointer + "/$ref") {
            let prefix = "#/$defs/"
            guard reference.hasPrefix(prefix), reference.count > prefix.count else {
                throw Failure(pointer: pointer + "/$ref", message: "expected a reference of the form \"#/$defs/Name\", found \"\(reference)\"")
            }
            return (.reference(String(reference.dropFirst(prefix.count))), description)
        }
        if let choices = object["anyOf"] {
            guard case .array(let elements) = choices.kind else {
                throw Failure(pointer: pointer + "/anyOf", message: "expected an array of schemas")
            }
            let name = try required(title, "a \"title\" naming the any-of schema", at: pointer)
            let nodes = try elements.enumerated().map { try node(from: $1, at: "\(pointer)/anyOf/\($0)").node }
            return (.anyOf(name: name, description: description, choices: nodes), nil)
        }
        guard let type = try string(object["type"], at: pointer + "/type") else {
            let keywords = Set(object.keys).subtracting(["description", "title"])
            guard keywords.isEmpty else {
                throw Failure(pointer: pointer, message: "expected \"type\", \"anyOf\" or \"$ref\", found the keywords \(keywords.sorted())")
            }
            return (.any, description)
        }
        switch type {
        case "object":
            let name = try required(title, "a \"title\" naming the object schema", at: pointer)
            let propertyTrees = try structure(object["properties"] ?? GeneratedContent(kind: .structure(properties: [:], orderedKeys: [])), at: pointer + "/properties")
            let order = try strings(object["x-order"], at: pointer + "/x-order") ?? propertyTrees.keys
            let requiredNames = Set(try strings(object["required"], at: pointer + "/required") ?? [])
            var properties: [SchemaProperty] = []
            for propertyName in order {
                guard let propertyTree = propertyTrees[propertyName] else {
                    throw Failure(pointer: pointer + "/x-order", message: "names the property \"\(propertyName)\", which is not in \"properties\"")
                }
                let propertyPointer = pointer + "/properties/" + propertyName
                let isRequired = requiredNames.contains(propertyName)
                if case let (valueTree, propertyDescription)? = try nullableValue(propertyTree, at: propertyPointer) {
                    // An optional property whose nil is written as null: required, maybe null.
                    guard isRequired else {
                        throw Failure(
                            pointer: propertyPointer,
                            message: "a property whose value may be null (anyOf with {\"type\":\"null\"}) must be listed in \"required\"")
                    }
                    let valueNode = try node(from: valueTree, at: propertyPointer + "/anyOf/0").node
                    properties.append(SchemaProperty(
                        name: propertyName, description: propertyDescription, node: valueNode, isOptional: true,
                        representsNilExplicitly: true))
                    continue
                }
                let (propertyNode, propertyDescription) = try node(from: propertyTree, at: propertyPointer)
                properties.append(SchemaProperty(
                    name: propertyName, description: propertyDescription, node: propertyNode,
                    isOptional: !isRequired))
            }
            return (.object(name: name, description: description, properties: properties), nil)
        case "string":
            let choices = try strings(object["enum"], at: pointer + "/enum")
            if let title {
                let choices = try required(choices, "an \"enum\" for the named string schema \(title)", at: pointer)
                return (.enumeration(name: title, description: description, choices: choices), nil)
            }
            let constraints = StringConstraints(
                choices: choices, constant: try string(object["const"], at: pointer + "/const"),
                pattern: try string(object["pattern"], at: pointer + "/pattern"))
            return (.string(constraints), description)
        case "integer", "number":
            let minimum = try number(object["minimum"], at: pointer + "/minimum")
            let maximum = try number(object["maximum"], at: pointer + "/maximum")
            return (type == "integer" ? .integer(minimum: minimum, maximum: maximum) : .number(minimum: minimum, maximum: maximum), description)
        case "boolean":
            return (.boolean, description)
        case "null":
            return (.null, description)
        case "array":
            let items = try required(object["items"], "\"items\"", at: pointer)
            let minimum = try number(object["minItems"], at: pointer + "/minItems").map(count(at: pointer + "/minItems"))
            let maximum = try number(object["maxItems"], at: pointer + "/maxItems").map(count(at: pointer + "/maxItems"))
            return (.array(items: try node(from: items, at: pointer + "/items").node, minimumCount: minimum, maximumCount: maximum), description)
        default:
            throw Failure(pointer: pointer + "/type", message: "unsupported type \"\(type)\"; expected object, string, integer, number, boolean, null or array")
        }
    }

    /// The value schema and description of a property written as
    /// `{"anyOf": [<value>, {"type": "null"}], "description": …}` (no title, no other keyword), or
    /// `nil` for any other property schema.
    private static func nullableValue(_ tree: GeneratedContent, at pointer: String) throws -> (GeneratedContent, String?)? {
        guard case .structure(let fields, _) = tree.kind, let choices = fields["anyOf"], fields["title"] == nil,
            Set(fields.keys).isSubset(of: ["anyOf", "description"]),
            case .array(let elements) = choices.kind, elements.count == 2,
            case .structure(let last, _) = elements[1].kind, last.count == 1,
            case .string("null")? = last["type"]?.kind
        else { return nil }
        return (elements[0], try string(fields["description"], at: pointer + "/description"))
    }

    // MARK: Field readers

    private static func structure(_ tree: GeneratedContent, at pointer: String) throws -> OrderedFields {
        guard case .structure(let properties, let orderedKeys) = tree.kind else {
            throw Failure(pointer: pointer, message: "expected an object, found \(GeneratedContent.ConversionError.describe(tree))")
        }
        return OrderedFields(values: properties, keys: GeneratedContent.outputKeys(properties, orderedKeys))
    }

    private static func string(_ tree: GeneratedContent?, at pointer: String) throws -> String? {
        guard let tree else { return nil }
        guard case .string(let value) = tree.kind else {
            throw Failure(pointer: pointer, message: "expected a string, found \(GeneratedContent.ConversionError.describe(tree))")
        }
        return value
    }

    private static func strings(_ tree: GeneratedContent?, at pointer: String) throws -> [String]? {
        guard let tree else { return nil }
        guard case .array(let elements) = tree.kind else {
            throw Failure(pointer: pointer, message: "expected an array of strings, found \(GeneratedContent.ConversionError.describe(tree))")
        }
        return try elements.enumerated().map { try string($1, at: "\(pointer)/\($0)")! }
    }

    private static func number(_ tree: GeneratedContent?, at pointer: String) throws -> Double? {
        guard let tree else { return nil }
        guard case .number(let value) = tree.kind else {
            throw Failure(pointer: pointer, message: "expected a number, found \(GeneratedContent.ConversionError.describe(tree))")
        }
        return value
    }

    private static func count(at pointer: String) -> (Double) throws -> Int {
        { value in
            guard value >= 0, value == value.rounded(), value < 1e15 else {
                throw Failure(pointer: pointer, message: "expected a non-negative integer, found \(value)")
            }
            return Int(value)
        }
    }

    private static func required<T>(_ value: T?, _ what: String, at pointer: String) throws -> T {
        guard let value else { throw Failure(pointer: pointer, message: "expected \(what)") }
        return value
    }

    struct OrderedFields: Sequence {
        let values: [String: GeneratedContent]
        let keys: [String]
        subscript(key: String) -> GeneratedContent? { values[key] }
        func makeIterator() -> some IteratorProtocol<(String, GeneratedContent)> {
            keys.lazy.map { ($0, values[$0]!) }.makeIterator()
        }
    }
}
