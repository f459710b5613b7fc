/// A description of the structure the model must generate: the properties of an object and
/// the guides on their values, or the choices of an enumeration.
///
/// `@Generable` types build their schema with these initializers; you can also build one by
/// hand or from ``DynamicGenerationSchema`` values at run time:
///
/// ```swift
/// let schema = GenerationSchema(type: Cat.self, description: "A cat", properties: [
///     GenerationSchema.Property(name: "name", type: String.self),
///     GenerationSchema.Property(name: "age", type: Int.self, guides: [.range(0...20)]),
/// ])
/// print(try schema.jsonSchemaString())
/// ```
///
/// A schema is encoded as JSON Schema (see ``jsonSchemaString(prettyPrinted:)`` and the
/// `Codable` conformance). Referenced `Generable` types are resolved by type name only when the
/// schema is encoded, so recursive types work; problems found then (two types with one name,
/// a guide that does not apply) are thrown from the encoding.
public struct GenerationSchema: Sendable {
    /// The top-level node; named kinds are written inline at the top of the JSON Schema.
    let root: SchemaNode
    /// The Swift type the schema describes, used to tell apart two types with the same name.
    let rootType: (any Generable.Type)?
    /// Named nodes defined alongside the root (dynamic and decoded schemas).
    let definitions: [String: SchemaNode]
    /// A problem found by a non-throwing initializer, reported when the schema is encoded.
    let deferredError: SchemaError?

    init(
        root: SchemaNode, rootType: (any Generable.Type)? = nil, definitions: [String: SchemaNode] = [:],
        deferredError: SchemaError? = nil
    ) {
        self.root = root
        self.rootType = rootType
        self.definitions = definitions
        self.deferredError = deferredError
    }

    /// The name a `Generable` type is known by in schemas: its Swift type name.
    static func typeName(_ type: any Generable.Type) -> String {
        String(describing: type)
    }

    /// Creates an object schema from a list of properties.
    ///
    /// Property order is the order the model generates them in. Duplicate property names are
    /// reported as ``SchemaError/duplicateProperty(schema:property:context:)`` when the schema
    /// is encoded.
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's title.
    ///   - description: A natural-language description of the type.
    ///   - properties: The properties, in order.
    public init(type: any Generable.Type, description: String? = nil, properties: [GenerationSchema.Property]) {
        self.init(type: type, description: description, representNilExplicitlyInGeneratedContent: false, properties: properties)
    }

    /// Creates an object schema from a list of properties, choosing how a property without a
    /// value is generated.
    ///
    /// With `representNilExplicitlyInGeneratedContent` `false` (what
    /// ``init(type:description:properties:)`` does), an optional property may be left out of
    /// the generated object, and a `nil` value is left out of the type's ``GeneratedContent``.
    /// With `true`, every optional property is always generated, with the value `null` when it
    /// has none: the JSON Schema lists it in `required` with the type
    /// `{"anyOf": [<value>, {"type": "null"}]}`, and constrained decoding writes the key followed by a
    /// value or `null`. Non-optional properties are the same either way.
    ///
    /// ```swift
    /// GenerationSchema(type: Novel.self, representNilExplicitlyInGeneratedContent: true, properties: [
    ///     GenerationSchema.Property(name: "title", type: String.self),
    ///     GenerationSchema.Property(name: "subtitle", type: String?.self),
    /// ])
    /// // the model writes {"title": "…", "subtitle": null} rather than {"title": "…"}
    /// ```
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's title.
    ///   - description: A natural-language description of the type.
    ///   - representNilExplicitlyInGeneratedContent: Whether optional properties are always
    ///     generated, as `null` when they have no value.
    ///   - properties: The properties, in order.
    public init(
        type: any Generable.Type, description: String? = nil, representNilExplicitlyInGeneratedContent: Bool,
        properties: [GenerationSchema.Property]
    ) {
        let name = Self.typeName(type)
        var seen = Set<String>()
        var error: SchemaError?
        for property in properties where !seen.insert(property.name).inserted {
            error = .duplicateProperty(
                schema: name, property: property.name,
                context: .init(debugDescription: "The schema \(name) declares the property \"\(property.name)\" more than once."))
            break
        }
        self.init(
            root: .object(
                name: name, description: description,
                properties: SchemaProperty.representingNil(
                    properties.map(\.storage), explicitly: representNilExplicitlyInGeneratedContent)),
            rootType: type, deferredError: error)
    }

    /// Creates a schema for a string enumeration: the value is one of `choices`.
    ///
    /// An empty list is reported as ``SchemaError/emptyTypeChoices(schema:context:)`` when the
    /// schema is encoded.
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's title.
    ///   - description: A natural-language description of the type.
    ///   - choices: The allowed strings.
    public init(type: any Generable.Type, description: String? = nil, anyOf choices: [String]) {
        let name = Self.typeName(type)
        self.init(
            root: .enumeration(name: name, description: description, choices: choices), rootType: type,
            deferredError: choices.isEmpty ? Self.emptyChoices(name) : nil)
    }

    /// Creates a schema whose value is an instance of one of several `Generable` types.
    ///
    /// - Parameters:
    ///   - type: The type the schema describes; its name becomes the schema's title.
    ///   - description: A natural-language description of the type.
    ///   - types: The possible types.
    public init(type: any Generable.Type, description: String? = nil, anyOf types: [any Generable.Type]) {
        let name = Self.typeName(type)
        self.init(
            root: .anyOf(name: name, description: description, choices: types.map { .generable($0, guides: []) }),
            rootType: type, deferredError: types.isEmpty ? Self.emptyChoices(name) : nil)
    }

    /// The name of this schema: the Swift type's name for a `Generable` type (or the name given
    /// to `@Generable(name:)`), the `name` of a dynamic root schema.
    ///
    /// A schema whose root has no name (a primitive, an array) is named after the `Generable`
    /// type it was made for; a dynamic root made with `DynamicGenerationSchema(type:guides:)`
    /// has that type's schema name; other unnamed dynamic roots (arrays, references) have an
    /// empty name.
    public var name: String {
        if let name = root.definitionName ?? rootType.map(Self.typeName) { return name }
        if case .generable(let type, _) = root { return type.generationSchema.name }
        return ""
    }

    /// This schema under another name: the title of its root object, enumeration or any-of
    /// schema, and the name other schemas refer to it by.
    ///
    /// A Pocket addition, written by `@Generable(name:)` so that a type's schema can use a
    /// custom name instead of the Swift type name. A schema whose root has no name is returned
    /// unchanged. Two types renamed to the same name in one schema are a
    /// ``SchemaError/duplicateType(schema:type:context:)`` when the schema is encoded.
    ///
    /// - Parameter name: The new name.
    /// - Returns: The renamed schema.
    public func renamed(_ name: String) -> GenerationSchema {
        let renamedRoot: SchemaNode
        switch root {
        case .object(_, let description, let properties):
            renamedRoot = .object(name: name, description: description, properties: properties)
        case .enumeration(_, let description, let choices):
            renamedRoot = .enumeration(name: name, description: description, choices: choices)
        case .anyOf(_, let description, let choices):
            renamedRoot = .anyOf(name: name, description: description, choices: choices)
        default:
            return self
        }
        var error = deferredError
        if definitions[name] != nil, error == nil {
            error = .duplicateType(
                schema: name, type: name,
                context: .init(debugDescription: "The schema is renamed \(name), which is also the name of one of its definitions."))
        }
        return GenerationSchema(root: renamedRoot, rootType: rootType, definitions: definitions, deferredError: error)
    }

    static func emptyChoices(_ name: String) -> SchemaError {
        .emptyTypeChoices(
            schema: name, context: .init(debugDescription: "The any-of schema \(name) has no choices; it needs at least one."))
    }
}

extension GenerationSchema {
    /// A property of an object schema: its name, description, type and guides.
    public struct Property: Sendable {
        let storage: SchemaProperty

        /// The property's name.
        public var name: String { storage.name }

        /// Creates a property with a `Generable` type.
        ///
        /// - Parameters:
        ///   - name: The property's name.
        ///   - description: A natural-language description of the property.
        ///   - type: The property's type.
        ///   - guides: Constraints on the generated values.
        public init<Value: Generable>(
            name: String, description: String? = nil, type: Value.Type, guides: [GenerationGuide<Value>] = []
        ) {
            storage = SchemaProperty(
                name: name, description: description, node: .generable(type, guides: guides.map(\.constraint)),
                isOptional: false)
        }

        /// Creates an optional property: the model may leave it out, or writes `null` in a
        /// schema made with `representNilExplicitlyInGeneratedContent: true`.
        ///
        /// - Parameters:
        ///   - name: The property's name.
        ///   - description: A natural-language description of the property.
        ///   - type: The property's optional type.
        ///   - guides: Constraints on the generated values when present.
        public init<Value: Generable>(
            name: String, description: String? = nil, type: Value?.Type, guides: [GenerationGuide<Value>] = []
        ) {
            storage = SchemaProperty(
                name: name, description: description, node: .generable(Value.self, guides: guides.map(\.constraint)),
                isOptional: true)
        }

        /// Creates a string property whose values match regular expressions.
        ///
        /// - Parameters:
        ///   - name: The property's name.
        ///   - description: A natural-language description of the property.
        ///   - type: `String.self`.
        ///   - guides: Patterns the value must match (see ``GenerationGuide/pattern(_:)``).
        public init<RegexOutput>(
            name: String, description: String? = nil, type: String.Type, guides: [Regex<RegexOutput>] = []
        ) {
            self.init(name: name, description: description, type: type, guides: guides.map { .pattern($0) })
        }

        /// Creates an optional string property whose values match regular expressions.
        ///
        /// - Parameters:
        ///   - name: The property's name.
        ///   - description: A natural-language description of the property.
        ///   - type: `String?.self`.
        ///   - guides: Patterns the value must match (see ``GenerationGuide/pattern(_:)``).
        public init<RegexOutput>(
            name: String, description: String? = nil, type: String?.Type, guides: [Regex<RegexOutput>] = []
        ) {
            self.init(name: name, description: description, type: type, guides: guides.map { .pattern($0) })
        }

        init(storage: SchemaProperty) {
            self.storage = storage
        }
    }
}

extension GenerationSchema: CustomDebugStringConvertible {
    /// The schema as indented JSON Schema, or the reason it cannot be encoded.
    public var debugDescription: String {
        do {
            return try jsonSchemaString(prettyPrinted: true)
        } catch {
            return "GenerationSchema (invalid: \(error))"
        }
    }
}
