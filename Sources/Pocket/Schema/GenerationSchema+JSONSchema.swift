// The JSON Schema form of a GenerationSchema (a JSON Schema 2020-12 subset), written by hand so
// that key order is fixed: the order of an object's properties is the order the model
// generates them in, and JSONEncoder does not promise to keep dictionary order.
//
// Keyword order within a schema object:
//   object       type, properties, required, x-order, additionalProperties, description, title
//   enumeration  type, enum, description, title
//   any-of       anyOf, description, title
//   array        type, items, minItems, maxItems
//   string       type, enum, const, pattern
//   integer/number  type, minimum, maximum
//   reference    $ref
//   any value    {} (no keywords)
// A property's own description follows the keywords of its value's schema. An optional property
// of an object that represents nil explicitly is required, and its value's schema is wrapped as
// {"anyOf": [<value>, {"type": "null"}]} (an any-of without a title). The root schema
// ends with `$defs`, the named schemas sorted by name; references are "#/$defs/Name".

extension GenerationSchema {
    /// The schema as JSON Schema text, with properties in declaration order.
    ///
    /// A Pocket addition. The output uses only standard JSON Schema 2020-12 keywords (`type`,
    /// `properties`, `required`, `items`, `minItems`, `maxItems`, `enum`, `const`, `pattern`,
    /// `minimum`, `maximum`, `anyOf`, `$defs`, `$ref`, `additionalProperties`, `description`,
    /// `title`) plus `x-order`, which lists an object's properties in order. An optional
    /// property of a schema made with `representNilExplicitlyInGeneratedContent: true` is in
    /// `required`, with the schema `{"anyOf": [<value>, {"type": "null"}]}`. The root type is
    /// written inline; every other named type (objects, enumerations, any-of unions) is written
    /// once under `$defs` and referred to with `$ref`, which is how recursion is expressed.
    ///
    /// ```swift
    /// try Cat.generationSchema.jsonSchemaString()
    /// // {"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer",
    /// //  "minimum":0,"maximum":20}},"required":["name","age"],"x-order":["name","age"],
    /// //  "additionalProperties":false,"title":"Cat"}
    /// ```
    ///
    /// - Parameter prettyPrinted: Whether to indent the text by two spaces per level.
    /// - Returns: The JSON Schema text.
    /// - Throws: ``SchemaError`` or ``GuideError`` when the schema cannot be resolved.
    public func jsonSchemaString(prettyPrinted: Bool = false) throws -> String {
        var writer = JSONTextWriter(prettyPrinted: prettyPrinted)
        writer.write(try jsonSchemaContent())
        return writer.output
    }

    /// The JSON Schema as an ordered JSON tree.
    func jsonSchemaContent() throws -> GeneratedContent {
        let (root, definitions) = try resolved()
        var object = JSONSchemaWriter.encode(root)
        if !definitions.isEmpty {
            var defs = OrderedObject()
            for name in definitions.keys.sorted() {
                defs[name] = JSONSchemaWriter.encode(definitions[name]!)
            }
            object.append(into: "$defs", defs.content)
        }
        return object
    }
}

/// An object under construction, keys in insertion order.
struct OrderedObject {
    private(set) var properties: [String: GeneratedContent] = [:]
    private(set) var keys: [String] = []

    subscript(key: String) -> GeneratedContent? {
        get { properties[key] }
        set {
            guard let newValue else { return }
            if properties.updateValue(newValue, forKey: key) == nil { keys.append(key) }
        }
    }

    var content: GeneratedContent {
        GeneratedContent(kind: .structure(properties: properties, orderedKeys: keys))
    }
}

extension GeneratedContent {
    /// Adds a key to a structure (at the end); no effect on other kinds.
    mutating func append(into key: String, _ value: GeneratedContent) {
        guard case .structure(var properties, var keys) = kind else { return }
        if properties.updateValue(value, forKey: key) == nil { keys.append(key) }
        kind = .structure(properties: properties, orderedKeys: keys)
    }
}

enum JSONSchemaWriter {
    static func encode(_ node: SchemaNode) -> GeneratedContent {
        var object = OrderedObject()
        switch node {
        case .object(let name, let description, let properties):
            object["type"] = "object".generatedContent
            var props = OrderedObject()
            for property in properties {
                var value = encode(property.node)
                if property.isNullable {
                    // `representNilExplicitlyInGeneratedContent`: always present, maybe null.
                    value = GeneratedContent(kind: .structure(
                        properties: ["anyOf": GeneratedContent(kind: .array([value, encode(.null)]))],
                        orderedKeys: ["anyOf"]))
                }
                if let description = property.description {
                    value.append(into: "description", description.generatedContent)
                }
                props[property.name] = value
            }
            object["properties"] = props.content
            object["required"] = strings(properties.filter(\.isRequiredInOutput).map(\.name))
            object["x-order"] = strings(properties.map(\.name))
            object["additionalProperties"] = false.generatedContent
            object["description"] = description?.generatedContent
            object["title"] = name.generatedContent
        case .enumeration(let name, let description, let choices):
            object["type"] = "string".generatedContent
            object["enum"] = strings(choices)
            object["description"] = description?.generatedContent
            object["title"] = name.generatedContent
        case .anyOf(let name, let description, let choices):
            object["anyOf"] = GeneratedContent(kind: .array(choices.map(encode)))
            object["description"] = description?.generatedContent
            object["title"] = name.generatedContent
        case .array(let items, let minimumCount, let maximumCount):
            object["type"] = "array".generatedContent
            object["items"] = encode(items)
            object["minItems"] = minimumCount?.generatedContent
            object["maxItems"] = maximumCount?.generatedContent
        case .string(let constraints):
            object["type"] = "string".generatedContent
            object["enum"] = constraints.choices.map(strings)
            object["const"] = constraints.constant?.generatedContent
            object["pattern"] = constraints.pattern?.generatedContent
        case .integer(let minimum, let maximum), .number(let minimum, let maximum):
            if case .integer = node {
                object["type"] = "integer".generatedContent
            } else {
                object["type"] = "number".generatedContent
            }
            object["minimum"] = minimum?.generatedContent
            object["maximum"] = maximum?.generatedContent
        case .boolean:
            object["type"] = "boolean".generatedContent
        case .null:
            object["type"] = "null".generatedContent
        case .any:
            break
        case .reference(let name):
            object["$ref"] = ("#/$defs/" + name).generatedContent
        case .generable(let type, _):
            // Resolution replaces every leaf before encoding; keep the output valid regardless.
            object["$ref"] = ("#/$defs/" + GenerationSchema.typeName(type)).generatedContent
        }
        return object.content
    }

    private static func strings(_ values: [String]) -> GeneratedContent {
        GeneratedContent(kind: .array(values.map { GeneratedContent(kind: .string($0)) }))
    }
}
