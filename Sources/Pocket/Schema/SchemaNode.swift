/// The internal tree behind `GenerationSchema` and `DynamicGenerationSchema`.
///
/// Named nodes (objects, string enumerations, any-of unions) are hoisted into the schema's
/// definitions and referred to by name, which is how recursive types are expressed. A
/// `.generable` leaf names a Swift type whose schema is read only when the tree is resolved,
/// so that `var related: [Itinerary]` inside `Itinerary` never evaluates
/// `Itinerary.generationSchema` while that schema is being built.
indirect enum SchemaNode: Sendable {
    case object(name: String, description: String?, properties: [SchemaProperty])
    case enumeration(name: String, description: String?, choices: [String])
    case anyOf(name: String, description: String?, choices: [SchemaNode])
    case array(items: SchemaNode, minimumCount: Int?, maximumCount: Int?)
    case string(StringConstraints)
    case integer(minimum: Double?, maximum: Double?)
    case number(minimum: Double?, maximum: Double?)
    case boolean
    /// Only JSON `null`.
    case null
    /// Any JSON value (the schema of `GeneratedContent` itself).
    case any
    case reference(String)
    case generable(any Generable.Type, guides: [GuideConstraint])

    /// The name under which the node is defined, for the named kinds.
    var definitionName: String? {
        switch self {
        case .object(let name, _, _), .enumeration(let name, _, _), .anyOf(let name, _, _): return name
        default: return nil
        }
    }
}

/// Guides that apply to a string.
struct StringConstraints: Sendable, Equatable {
    var choices: [String]?
    var constant: String?
    var pattern: String?
}

/// One property of an object node.
struct SchemaProperty: Sendable {
    var name: String
    var description: String?
    var node: SchemaNode
    var isOptional: Bool
    /// For an optional property of a schema made with `representNilExplicitlyInGeneratedContent:
    /// true`: the property is always generated, with `null` when it has no value, instead of
    /// being left out. No effect on a non-optional property.
    var representsNilExplicitly = false

    /// Whether the generated object must contain the property: non-optional properties, and
    /// optional ones whose `nil` is written as `null`.
    var isRequiredInOutput: Bool { !isOptional || representsNilExplicitly }

    /// Whether the property's value may be `null` in place of a value of `node`.
    var isNullable: Bool { isOptional && representsNilExplicitly }

    /// The properties of an object made with `representNilExplicitlyInGeneratedContent:`.
    static func representingNil(_ properties: [SchemaProperty], explicitly: Bool) -> [SchemaProperty] {
        properties.map { property in
            var property = property
            property.representsNilExplicitly = explicitly && property.isOptional
            return property
        }
    }
}
