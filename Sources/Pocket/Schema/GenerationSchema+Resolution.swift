// Resolution turns a schema's lazy tree into a closed one: every `.generable` leaf is replaced
// by the type's inline schema (primitives, arrays) with its guides applied, or by a reference
// to the type's named definition, which is resolved once (a visited set stops recursion).

extension GenerationSchema {
    /// The root and all named definitions it reaches, without `.generable` leaves.
    ///
    /// - Throws: ``SchemaError`` for deferred or duplicate-type problems, ``GuideError`` for
    ///   guides that cannot be expressed.
    func resolved() throws -> (root: SchemaNode, definitions: [String: SchemaNode]) {
        var resolver = SchemaResolver()
        let root = try resolver.resolveTopLevel(self)
        return (root, resolver.definitions)
    }
}

struct SchemaResolver {
    private(set) var definitions: [String: SchemaNode] = [:]
    /// Who defines each name: a type's identity, or "dynamic" for name-only definitions.
    private var origins: [String: String] = [:]
    private var inProgress: Set<String> = []
    private var mergedTypes: Set<ObjectIdentifier> = []

    mutating func resolveTopLevel(_ schema: GenerationSchema) throws -> SchemaNode {
        if let error = schema.deferredError { throw error }
        let origin = schema.rootType.map(Self.origin(of:)) ?? "dynamic"
        if let name = schema.root.definitionName { try claim(name, origin: origin, in: nil) }
        try merge(schema.definitions, origin: "dynamic", in: schema.root.definitionName)
        // The root is not marked in progress: a type that refers to itself gets a copy of its
        // schema in the definitions, which the references point to.
        return try resolve(schema.root, at: schema.root.definitionName ?? "the schema")
    }

    private static func origin(of type: any Generable.Type) -> String {
        "type \(String(describing: ObjectIdentifier(type)))"
    }

    /// Records that `origin` defines `name`; two different origins for one name are an error.
    private mutating func claim(_ name: String, origin: String, in schema: String?) throws {
        if let existing = origins[name] {
            guard existing == origin else {
                throw GenerationSchema.SchemaError.duplicateType(
                    schema: schema, type: name,
                    context: .init(debugDescription: "Two different schemas are named \(name); type names must be unique within a schema."))
            }
            return
        }
        origins[name] = origin
    }

    private mutating func merge(_ definitions: [String: SchemaNode], origin: String, in schema: String?) throws {
        for name in definitions.keys.sorted() {
            try claim(name, origin: origin, in: schema)
            if self.definitions[name] == nil, !inProgress.contains(name) {
                inProgress.insert(name)
                self.definitions[name] = try resolve(definitions[name]!, at: name)
                inProgress.remove(name)
            }
        }
    }

    private mutating func resolve(_ node: SchemaNode, at path: String) throws -> SchemaNode {
        switch node {
        case .object(let name, let description, let properties):
            var resolvedProperties = properties
            for index in properties.indices {
                resolvedProperties[index].node = try resolve(properties[index].node, at: "\(name).\(properties[index].name)")
            }
            return .object(name: name, description: description, properties: resolvedProperties)
        case .anyOf(let name, let description, let choices):
            return .anyOf(name: name, description: description, choices: try choices.map { try resolve($0, at: name) })
        case .array(let items, let minimumCount, let maximumCount):
            return .array(items: try resolve(items, at: path + "[]"), minimumCount: minimumCount, maximumCount: maximumCount)
        case .generable(let type, let guides):
            return try resolve(type, guides: guides, at: path)
        case .enumeration, .string, .integer, .number, .boolean, .null, .any, .reference:
            return node
        }
    }

    private mutating func resolve(_ type: any Generable.Type, guides: [GuideConstraint], at path: String) throws -> SchemaNode {
        let schema = type.generationSchema
        if let error = schema.deferredError { throw error }
        let origin = Self.origin(of: type)
        if mergedTypes.insert(ObjectIdentifier(type)).inserted {
            try merge(schema.definitions, origin: origin, in: schema.root.definitionName)
        }
        guard let name = schema.root.definitionName else {
            return try Self.apply(guides, to: resolve(schema.root, at: path), at: path)
        }
        try claim(name, origin: origin, in: nil)
        if definitions[name] == nil, !inProgress.contains(name) {
            inProgress.insert(name)
            definitions[name] = try resolve(schema.root, at: name)
            inProgress.remove(name)
        }
        if let guide = guides.first {
            throw GenerationSchema.GuideError(message: "The guide \(guide) at \(path) cannot apply to the type \(name), which is defined by its own schema.")
        }
        return .reference(name)
    }

    /// Applies guides to a resolved inline node.
    static func apply(_ guides: [GuideConstraint], to node: SchemaNode, at path: String) throws -> SchemaNode {
        var node = node
        for guide in guides {
            node = try apply(guide, to: node, at: path)
        }
        return node
    }

    private static func apply(_ guide: GuideConstraint, to node: SchemaNode, at path: String) throws -> SchemaNode {
        switch (guide, node) {
        case (.anyOf(let choices), .string(var constraints)):
            constraints.choices = choices
            return .string(constraints)
        case (.constant(let value), .string(var constraints)):
            constraints.constant = value
            return .string(constraints)
        case (.pattern(let pattern), .string(var constraints)):
            constraints.pattern = pattern
            return .string(constraints)
        case (.unrepresentablePattern(let type), _):
            throw GenerationSchema.GuideError(
                message: "The pattern guide at \(path) uses a \(type) whose source text is not available (a RegexBuilder regex); use .pattern(source:) or a regex literal.")
        case (.minimum(let bound), .integer(_, let maximum)): return .integer(minimum: bound, maximum: maximum)
        case (.minimum(let bound), .number(_, let maximum)): return .number(minimum: bound, maximum: maximum)
        case (.maximum(let bound), .integer(let minimum, _)): return .integer(minimum: minimum, maximum: bound)
        case (.maximum(let bound), .number(let minimum, _)): return .number(minimum: minimum, maximum: bound)
        case (.bounds(let lower, let upper), .integer): return .integer(minimum: lower, maximum: upper)
        case (.bounds(let lower, let upper), .number): return .number(minimum: lower, maximum: upper)
        case (.minimumCount(let count), .array(let items, _, let maximum)):
            return .array(items: items, minimumCount: count, maximumCount: maximum)
        case (.maximumCount(let count), .array(let items, let minimum, _)):
            return .array(items: items, minimumCount: minimum, maximumCount: count)
        case (.countBounds(let lower, let upper), .array(let items, _, _)):
            return .array(items: items, minimumCount: lower, maximumCount: upper)
        case (.element(let inner), .array(let items, let minimum, let maximum)):
            return .array(items: try apply(inner, to: items, at: path + "[]"), minimumCount: minimum, maximumCount: maximum)
        default:
            throw GenerationSchema.GuideError(message: "The guide \(guide) at \(path) does not apply to a value of this kind.")
        }
    }
}
