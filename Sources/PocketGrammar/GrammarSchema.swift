/// The structured-output schemas the grammar engine enforces: what Apple's `GenerationSchema`
/// can express, independent of any Swift type.
///
/// A schema is a tree of ``Node``s plus named definitions that ``Node/reference(_:)`` points
/// to (for recursive types). Output is compact JSON with object properties in declaration
/// order.
///
/// ```swift
/// let schema = GrammarSchema(root: .object([
///     .init(name: "name", node: .string(.init())),
///     .init(name: "age", node: .integer(minimum: 0, maximum: 20)),
/// ]))
/// ```
public struct GrammarSchema: Sendable, Hashable {
    /// One kind of JSON value and its constraints.
    public indirect enum Node: Sendable, Hashable {
        /// An object with properties in this order; optional ones may be left out.
        case object([Property])
        /// An array of `items` with a count in `minimum...maximum` (`maximum` nil: unbounded).
        case array(items: Node, minimum: Int, maximum: Int?)
        /// An array whose first elements follow `prefix` in order (JSON Schema `prefixItems`, or
        /// draft 4 `items` as a list), later ones `rest` (nil: none allowed).
        case tuple(prefix: [Node], rest: Node?, minimum: Int, maximum: Int?)
        /// An object with declared properties in this order, then any number of further keys
        /// (not declared ones) each ruled by the first of `extras` whose keys it matches.
        case openObject([Property], extras: [ExtraProperties])
        /// An integer within the inclusive bounds that is a multiple of `multipleOf`.
        case multipleOf(Int, minimum: Int?, maximum: Int?)
        /// Exactly this compact JSON text (an `enum`/`const` array or object).
        case json(String)
        /// A string.
        case string(StringConstraint)
        /// An integer within the inclusive bounds.
        case integer(minimum: Int?, maximum: Int?)
        /// A number within the inclusive bounds.
        case number(minimum: Double?, maximum: Double?)
        /// `true` or `false`.
        case boolean
        /// Exactly `true` or exactly `false`.
        case constant(Bool)
        /// `null`.
        case null
        /// Exactly one of several schemas (enums with associated values, optionals).
        case anyOf([Node])
        /// A named definition of ``GrammarSchema/definitions``.
        case reference(String)
        /// Any JSON value (compact, depth-limited).
        case anyValue
    }

    /// An object property.
    public struct Property: Sendable, Hashable {
        /// The key.
        public var name: String
        /// The value's schema.
        public var node: Node
        /// Whether the property must appear.
        public var isRequired: Bool

        /// Creates a property.
        public init(name: String, node: Node, isRequired: Bool = true) {
            self.name = name
            self.node = node
            self.isRequired = isRequired
        }
    }

    /// Keys beyond an object's declared properties, and the schema of their values.
    public struct ExtraProperties: Sendable, Hashable {
        /// Keys must contain a match of one of these patterns (ECMA-262 search, as JSON
        /// Schema's `patternProperties`); empty: any key.
        public var keyPatterns: [String]
        /// Keys matching one of these patterns belong to other rules.
        public var excludedPatterns: [String]
        /// Keys that may not appear as extras (declared properties).
        public var excludedNames: [String]
        /// The values' schema.
        public var value: Node

        /// Creates a rule.
        public init(keyPatterns: [String] = [], excludedPatterns: [String] = [], excludedNames: [String] = [], value: Node) {
            self.keyPatterns = keyPatterns
            self.excludedPatterns = excludedPatterns
            self.excludedNames = excludedNames
            self.value = value
        }
    }

    /// What a string may contain.
    public struct StringConstraint: Sendable, Hashable {
        /// When set, the string must be one of these values.
        public var choices: [String]?
        /// When set, the whole string must match this regular expression (see `RegexParser` for
        /// the supported syntax). Characters that JSON would have to escape are not produced.
        public var pattern: String?
        /// Patterns the string must contain a match of (ECMA-262 search semantics, as JSON
        /// Schema's `pattern`: `^` and `$` anchor).
        public var searchPatterns: [String] = []
        /// A JSON Schema `format` the string must have (see ``JSONSchemaFormats``).
        public var format: String?
        /// Values the string must not be (from `not: {enum: …}`).
        public var excluded: [String] = []
        /// Maximum length in bytes of the string's JSON-escaped content.
        public var maximumLength: Int?
        /// Minimum length in bytes of the content.
        public var minimumLength: Int

        /// The length limit applied when a schema sets none, so that a runaway string cannot
        /// fill the whole context window.
        public static let defaultMaximumLength = 2048

        /// Creates a constraint; by default any string up to ``defaultMaximumLength`` bytes.
        public init(choices: [String]? = nil, pattern: String? = nil, minimumLength: Int = 0, maximumLength: Int? = nil) {
            self.choices = choices
            self.pattern = pattern
            self.minimumLength = minimumLength
            self.maximumLength = maximumLength
        }
    }

    /// The schema of the whole document.
    public var root: Node
    /// Named schemas for ``Node/reference(_:)``.
    public var definitions: [String: Node]

    /// Creates a schema.
    public init(root: Node, definitions: [String: Node] = [:]) {
        self.root = root
        self.definitions = definitions
    }
}
