/// A schema built at run time, for structures not known at compile time.
///
/// Schemas may refer to each other by name; ``GenerationSchema/init(root:dependencies:)``
/// resolves the references and checks the whole set:
///
/// ```swift
/// let person = DynamicGenerationSchema(name: "Person", properties: [
///     .init(name: "name", schema: DynamicGenerationSchema(type: String.self)),
///     .init(name: "pets", schema: DynamicGenerationSchema(arrayOf: DynamicGenerationSchema(referenceTo: "Pet"))),
/// ])
/// let pet = DynamicGenerationSchema(name: "Pet", anyOf: ["cat", "dog"])
/// let schema = try GenerationSchema(root: person, dependencies: [pet])
/// ```
public struct DynamicGenerationSchema: Sendable {
    let node: SchemaNode

    private init(node: SchemaNode) {
        self.node = node
    }

    /// Creates an object schema.
    ///
    /// - Parameters:
    ///   - name: The schema's name, by which other schemas can refer to it.
    ///   - description: A natural-language description.
    ///   - properties: The properties, in generation order.
    public init(name: String, description: String? = nil, properties: [DynamicGenerationSchema.Property]) {
        node = .object(name: name, description: description, properties: properties.map(\.storage))
    }

    /// Creates an object schema, choosing how a property without a value is generated.
    ///
    /// With `representNilExplicitlyInGeneratedContent` `true`, every property created with
    /// `isOptional: true` is always generated, with the value `null` when it has none, instead
    /// of being left out (see
    /// ``GenerationSchema/init(type:description:representNilExplicitlyInGeneratedContent:properties:)``).
    /// With `false` this is ``init(name:description:properties:)``.
    ///
    /// - Parameters:
    ///   - name: The schema's name, by which other schemas can refer to it.
    ///   - description: A natural-language description.
    ///   - representNilExplicitlyInGeneratedContent: Whether optional properties are always
    ///     generated, as `null` when they have no value.
    ///   - properties: The properties, in generation order.
    public init(
        name: String, description: String? = nil, representNilExplicitlyInGeneratedContent: Bool,
        properties: [DynamicGenerationSchema.Property]
    ) {
        node = .object(
            name: name, description: description,
            properties: SchemaProperty.representingNil(
                properties.map(\.storage), explicitly: representNilExplicitlyInGeneratedContent))
    }

    /// Creates an any-of schema: the value matches one of the given schemas.
    ///
    /// - Parameters:
    ///   - name: The schema's name.
    ///   - description: A natural-language description.
    ///   - choices: The possible schemas.
    public init(name: String, description: String? = nil, anyOf choices: [DynamicGenerationSchema]) {
        node = .anyOf(name: name, description: description, choices: choices.map(\.node))
    }

    /// Creates a string enumeration: the value is one of `choices`.
    ///
    /// - Parameters:
    ///   - name: The schema's name.
    ///   - description: A natural-language description.
    ///   - choices: The allowed strings.
    public init(name: String, description: String? = nil, anyOf choices: [String]) {
        node = .enumeration(name: name, description: description, choices: choices)
    }

    /// Creates an array schema.
    ///
    /// - Parameters:
    ///   - itemSchema: The schema of the elements.
    ///   - minimumElements: The minimum number of elements.
    ///   - maximumElements: The maximum number of elements.
    public init(arrayOf itemSchema: DynamicGenerationSchema, minimumElements: Int? = nil, maximumElements: Int? = nil) {
        node = .array(items: itemSchema.node, minimumCount: minimumElements, maximumCount: maximumElements)
    }

    /// Creates a reference to the schema named `name`, defined elsewhere in the set passed to
    /// ``GenerationSchema/init(root:dependencies:)``.
    ///
    /// - Parameter name: The name of the referenced schema.
    public init(referenceTo name: String) {
        node = .reference(name)
    }

    /// Creates a schema from a `Generable` type and guides.
    ///
    /// - Parameters:
    ///   - type: The type whose schema to use.
    ///   - guides: Constraints on the generated values.
    public init<Value: Generable>(type: Value.Type, guides: [GenerationGuide<Value>] = []) {
        node = .generable(type, guides: guides.map(\.constraint))
    }

    /// A schema whose only value is `null`; combine it with others in an any-of schema for a
    /// value that may be explicitly absent.
    public static var null: DynamicGenerationSchema {
        DynamicGenerationSchema(node: .null)
    }

    /// A property of a dynamic object schema.
    public struct Property: Sendable {
        let storage: SchemaProperty

        /// Creates a property.
        ///
        /// - Parameters:
        ///   - name: The property's name.
        ///   - description: A natural-language description.
        ///   - schema: The schema of the property's values.
        ///   - isOptional: Whether the property may have no value: the model may leave it out,
        ///     or writes `null` in an object made with `representNilExplicitlyInGeneratedContent: true`.
        public init(name: String, description: String? = nil, schema: DynamicGenerationSchema, isOptional: Bool = false) {
            storage = SchemaProperty(name: name, description: description, node: schema.node, isOptional: isOptional)
        }
    }
}

extension GenerationSchema {
    /// Creates a schema from dynamic schemas: a root and the named schemas it refers to.
    ///
    /// Named schemas nested inside others are collected too. Every name must be unique, every
    /// reference must name a schema of the set (the root included), object properties must
    /// have distinct names, and any-of schemas need at least one choice. Dependencies without a
    /// name (arrays, primitives) cannot be referred to and are ignored.
    ///
    /// - Parameters:
    ///   - root: The schema of the value to generate.
    ///   - dependencies: Named schemas that `root` refers to, directly or indirectly.
    /// - Throws: ``SchemaError`` describing the first problem found.
    public init(root: DynamicGenerationSchema, dependencies: [DynamicGenerationSchema]) throws {
        var collector = DynamicSchemaCollector()
        let rootNode = try collector.hoist(root.node, isTopLevel: true)
        let rootName = rootNode.definitionName
        if let rootName { try collector.define(rootName, rootNode, in: nil) }
        for dependency in dependencies {
            let node = try collector.hoist(dependency.node, isTopLevel: true)
            if let name = node.definitionName { try collector.define(name, node, in: rootName) }
        }
        let undefined = collector.references.subtracting(collector.definitions.keys)
        guard undefined.isEmpty else {
            throw SchemaError.undefinedReferences(
                schema: rootName, references: undefined.sorted(),
                context: .init(debugDescription: "References to \(undefined.sorted()) have no matching named schema among the root and its dependencies."))
        }
        var definitions = collector.definitions
        // The root is written inline; keep a definition of it only when something refers to it.
        if let rootName, !collector.references.contains(rootName) { definitions[rootName] = nil }
        self.init(root: rootNode, definitions: definitions)
    }
}

/// Checks a set of dynamic schemas and moves nested named schemas into definitions.
struct DynamicSchemaCollector {
    private(set) var definitions: [String: SchemaNode] = [:]
    private(set) var references: Set<String> = []

    mutating func define(_ name: String, _ node: SchemaNode, in schema: String?) throws {
        guard definitions[name] == nil else {
            throw GenerationSchema.SchemaError.duplicateType(
                schema: schema, type: name,
                context: .init(debugDescription: "More than one dynamic schema is named \(name)."))
        }
        definitions[name] = node
    }

    /// Validates `node` and replaces nested named schemas by references to their definitions.
    mutating func hoist(_ node: SchemaNode, isTopLevel: Bool) throws -> SchemaNode {
        let rebuilt: SchemaNode
        switch node {
        case .object(let name, let description, let properties):
            var seen = Set<String>()
            var hoisted = properties
            for index in properties.indices {
                let propertyName = properties[index].name
                guard seen.insert(propertyName).inserted else {
                    throw GenerationSchema.SchemaError.duplicateProperty(
                        schema: name, property: propertyName,
                        context: .init(debugDescription: "The dynamic schema \(name) declares the property \"\(propertyName)\" more than once."))
                }
                hoisted[index].node = try hoist(properties[index].node, isTopLevel: false)
            }
            rebuilt = .object(name: name, description: description, properties: hoisted)
        case .enumeration(let name, _, let choices):
            if choices.isEmpty { throw GenerationSchema.emptyChoices(name) }
            rebuilt = node
        case .anyOf(let name, let description, let choices):
            if choices.isEmpty { throw GenerationSchema.emptyChoices(name) }
            rebuilt = .anyOf(name: name, description: description, choices: try choices.map { try hoist($0, isTopLevel: false) })
        case .array(let items, let minimumCount, let maximumCount):
            return .array(items: try hoist(items, isTopLevel: false), minimumCount: minimumCount, maximumCount: maximumCount)
        case .reference(let name):
            references.insert(name)
            return node
        case .string, .integer, .number, .boolean, .null, .any, .generable:
            return node
        }
        guard !isTopLevel, let name = rebuilt.definitionName else { return rebuilt }
        try define(name, rebuilt, in: nil)
        references.insert(name)
        return .reference(name)
    }
}
