/// Structured content produced by a language model: a single value, an array, or a structure
/// of key-value pairs with unique keys in a fixed order.
///
/// `GeneratedContent` is the common currency between the model, `@Generable` types and JSON:
///
/// ```swift
/// let person = GeneratedContent(properties: ["name": "Johnny Appleseed", "age": 30])
/// print(person.jsonString)                                // {"name":"Johnny Appleseed","age":30}
/// let age = try person.value(Int.self, forProperty: "age")  // 30
/// ```
///
/// Content parsed from a prefix of a JSON document (as produced while a response streams) is
/// marked incomplete; see ``isComplete``.
public struct GeneratedContent: Sendable {
    /// The representation of the content: one of the JSON value kinds, with ordered keys for
    /// structures.
    public var kind: Kind

    /// The identity of the generation that produced this content, if any.
    public var id: GenerationID?

    /// Whether the content is complete.
    ///
    /// Content built in code is always complete. Content parsed with ``init(json:)`` is complete
    /// when the JSON text was a whole document, and incomplete when it was only a prefix of one
    /// (an unterminated string, array or structure, or a number that may still grow).
    public var isComplete: Bool {
        _isComplete
    }

    // Stored separately so that `kind` stays a plain settable Apple-compatible property.
    var _isComplete: Bool

    /// The kinds of value generated content can hold.
    public enum Kind: Equatable, Sendable {
        /// The JSON `null` value.
        case null
        /// A Boolean value.
        case bool(Bool)
        /// A number. Integers are represented exactly up to 2^53.
        case number(Double)
        /// A string.
        case string(String)
        /// An ordered array of values.
        case array([GeneratedContent])
        /// A structure: named properties and the order of their keys.
        ///
        /// `orderedKeys` fixes the order used by ``GeneratedContent/jsonString`` and by
        /// debugging output. Keys of `properties` missing from `orderedKeys` are placed after the
        /// ordered ones, sorted; names in `orderedKeys` without a property are ignored.
        case structure(properties: [String: GeneratedContent], orderedKeys: [String])
    }

    /// Creates content with the specified kind and generation identifier.
    ///
    /// - Parameters:
    ///   - kind: The kind of content to create.
    ///   - id: An optional identity to associate with this content.
    public init(kind: Kind, id: GenerationID? = nil) {
        self.kind = kind
        self.id = id
        self._isComplete = true
    }

    init(kind: Kind, isComplete: Bool) {
        self.kind = kind
        self.id = nil
        self._isComplete = isComplete
    }

    /// Creates generated content from another value.
    ///
    /// - Parameter value: A value that can describe itself as generated content.
    public init(_ value: some ConvertibleToGeneratedContent) {
        self = value.generatedContent
    }

    /// Creates content that contains a single value with a custom generation identifier.
    ///
    /// - Parameters:
    ///   - value: The underlying value.
    ///   - id: The identity for this content.
    public init(_ value: some ConvertibleToGeneratedContent, id: GenerationID) {
        self = value.generatedContent
        self.id = id
    }

    /// Creates content representing an array of the elements you specify.
    ///
    /// - Parameters:
    ///   - elements: The values of the array, in order.
    ///   - id: An optional identity to associate with this content.
    public init<S: Sequence>(elements: S, id: GenerationID? = nil)
    where S.Element == any ConvertibleToGeneratedContent {
        self.init(kind: .array(elements.map { $0.generatedContent }), id: id)
    }

    /// Creates generated content representing a structure with the properties you specify.
    ///
    /// The order of the pairs is the order of the structure's keys; for `Generable` types it
    /// must match the order of the properties in the type's schema.
    ///
    /// An `Optional` value that is `nil` is left out of the structure, which is how an absent
    /// optional property is represented (an explicit `GeneratedContent(kind: .null)` is kept).
    /// When a key appears twice, the later value replaces the earlier one at the earlier
    /// position.
    ///
    /// - Parameters:
    ///   - properties: The property names and values, in order.
    ///   - id: An optional identity to associate with this content.
    public init(
        properties: KeyValuePairs<String, any ConvertibleToGeneratedContent>,
        id: GenerationID? = nil
    ) {
        var values: [String: GeneratedContent] = [:]
        var order: [String] = []
        for (key, value) in properties {
            if let optional = value as? any _OptionalContent, optional._isNil { continue }
            if values.updateValue(value.generatedContent, forKey: key) == nil {
                order.append(key)
            }
        }
        self.init(kind: .structure(properties: values, orderedKeys: order), id: id)
    }

    /// Creates generated content from key-value pairs, resolving duplicate keys with a
    /// combining closure.
    ///
    /// - Parameters:
    ///   - properties: The property names and values, in order.
    ///   - id: An optional identity to associate with this content.
    ///   - combine: Called with the existing and the new content when a key repeats; its
    ///     result replaces the value, which keeps the key's first position.
    /// - Throws: Whatever `combine` throws.
    public init<S: Sequence>(
        properties: S,
        id: GenerationID? = nil,
        uniquingKeysWith combine: (GeneratedContent, GeneratedContent) throws -> some ConvertibleToGeneratedContent
    ) rethrows where S.Element == (String, any ConvertibleToGeneratedContent) {
        var values: [String: GeneratedContent] = [:]
        var order: [String] = []
        for (key, value) in properties {
            let content = value.generatedContent
            if let existing = values[key] {
                values[key] = try combine(existing, content).generatedContent
            } else {
                values[key] = content
                order.append(key)
            }
        }
        self.init(kind: .structure(properties: values, orderedKeys: order), id: id)
    }

    /// The keys of a structure in output order (see ``Kind/structure(properties:orderedKeys:)``).
    static func outputKeys(_ properties: [String: GeneratedContent], _ orderedKeys: [String]) -> [String] {
        var seen = Set<String>()
        var keys: [String] = []
        for key in orderedKeys where properties[key] != nil && seen.insert(key).inserted {
            keys.append(key)
        }
        if keys.count < properties.count {
            keys += properties.keys.filter { !seen.contains($0) }.sorted()
        }
        return keys
    }
}

extension GeneratedContent: Equatable {
    /// Two contents are equal when their kinds are equal, recursively.
    ///
    /// Generation identifiers and completeness are not compared: a partial snapshot and a
    /// value built in code with the same data are equal.
    public static func == (lhs: GeneratedContent, rhs: GeneratedContent) -> Bool {
        lhs.kind == rhs.kind
    }
}

extension GeneratedContent: CustomDebugStringConvertible {
    /// The content as compact JSON, marked when incomplete.
    public var debugDescription: String {
        isComplete ? jsonString : jsonString + " (incomplete)"
    }
}

/// Lets `GeneratedContent(properties:)` recognise a `nil` optional behind an existential.
protocol _OptionalContent {
    var _isNil: Bool { get }
}

extension Optional: _OptionalContent {
    var _isNil: Bool { self == nil }
}
