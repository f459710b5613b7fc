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
}
