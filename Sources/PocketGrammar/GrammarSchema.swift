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
public struct GrammarSchema: Sendable, Equatable {
    /// One kind of JSON value and its constraints.
    public indirect enum Node: Sendable, Equatable {
        /// An object with properties in this order; optional ones may be left out.
        case object([Property])
        /// An array of `items` with a count in `minimum...maximum` (`maximum` nil: unbounded).
        case array(items: Node, minimum: Int, maximum: Int?)
        /// A string.
        case string(StringConstraint)
        /// An integer within the inclusive bounds.
        case integer(minimum: Int?, maximum: Int?)
        /// A number within the inclusive bounds.
        case number(minimum: Double?, maximum: Double?)
        /// `true` or `false`.
        case boolean
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
    public struct Property: Sendable, Equatable {
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

    /// What a string may contain.
    public struct StringConstraint: Sendable, Equatable {
        /// When set, the string must be one of these values.
        public var choices: [String]?
        /// When set, the whole string must match this regular expression (see `RegexNFA` for
        /// the supported syntax). Characters that JSON would have to escape are not produced.
        public var pattern: String?
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
