/// A type declaration as read by ``DeclarationParser``: what `@Generable` needs to know about a
/// struct or enum, with the source offsets that diagnostics point at.
public struct TypeDeclaration: Sendable {
    /// The introducer keyword.
    public enum Kind: String, Sendable {
        case `struct`, `enum`, `class`, `actor`, `protocol`, `extension`
    }

    /// `struct`, `enum`, …
    public var kind: Kind
    /// The type's name as written.
    public var name: String
    /// Offset of the name.
    public var nameOffset: Int
    /// The attributes written before the declaration, `@Generable(…)` included.
    public var attributes: [Attribute]
    /// Modifiers such as `public`, `final`, `indirect`.
    public var modifiers: [String]
    /// Offset of the generic parameter clause, when the type has one.
    public var genericParametersOffset: Int?
    /// The inherited types and protocols, as written.
    public var inheritance: [String]
    /// Stored instance properties, in declaration order.
    public var properties: [StoredProperty]
    /// Enum cases, in declaration order (empty for other kinds).
    public var cases: [EnumCase]

    /// The access level written on the declaration (`public`, `package`, …), if any.
    public var accessLevel: String? {
        modifiers.first { ["open", "public", "package", "internal", "fileprivate", "private"].contains($0) }
    }
}

/// An attribute such as `@Guide(description: "Age", .range(0...20))`.
public struct Attribute: Sendable {
    /// The attribute's name without `@` (for `@Pocket.Guide`, the last component, `Guide`).
    public var name: String
    /// The arguments, or `nil` when the attribute has no parentheses.
    public var arguments: [Argument]?
    /// Offset of the `@`.
    public var offset: Int

    /// The first argument with `label`.
    public func argument(labeled label: String) -> Argument? {
        arguments?.first { $0.label == label }
    }
}

/// One argument of an attribute: an optional label and an expression kept as source text.
public struct Argument: Sendable {
    /// The label before the colon, if any.
    public var label: String?
    /// The expression's source text, exactly as written.
    public var expression: String
    /// The expression's tokens.
    public var tokens: [Token]
    /// Offset of the argument's first byte (its label, or the expression).
    public var offset: Int
}

/// A stored instance property: `var name: Type = default` or `let name: Type`.
public struct StoredProperty: Sendable {
    /// The property's name.
    public var name: String
    /// Offset of the name.
    public var offset: Int
    /// The declared type.
    public var type: TypeSyntax
    /// The type's source text, e.g. `[DayPlan]?`.
    public var typeText: String
    /// Offset of the type annotation.
    public var typeOffset: Int
    /// Whether it is declared with `let`.
    public var isLet: Bool
    /// Whether it has an initial value (`= …`).
    public var hasInitialValue: Bool
    /// The property's attributes (`@Guide(…)` among them).
    public var attributes: [Attribute]
}

/// An enum case with its associated values, if any.
public struct EnumCase: Sendable {
    /// The case name.
    public var name: String
    /// Offset of the name.
    public var offset: Int
    /// The associated values, empty for a plain case.
    public var associatedValues: [AssociatedValue]
    /// The attributes written on the `case` declaration.
    public var attributes: [Attribute]
}

/// One associated value of an enum case: `complaint: String` or just `String`.
public struct AssociatedValue: Sendable {
    /// The label, if any.
    public var label: String?
    /// The type.
    public var type: TypeSyntax
    /// The type's source text.
    public var typeText: String
    /// Offset of the associated value.
    public var offset: Int
}

/// The shape of a type annotation, as far as schemas care.
public indirect enum TypeSyntax: Equatable, Sendable {
    /// A named type, possibly qualified (`Foo.Bar`), with any generic arguments.
    case named(String, genericArguments: [TypeSyntax])
    /// `T?`, `T!` or `Optional<T>`.
    case optional(TypeSyntax)
    /// `[T]` or `Array<T>`.
    case array(TypeSyntax)
    /// `[K: V]` or `Dictionary<K, V>`.
    case dictionary(TypeSyntax, TypeSyntax)
    /// `(A, B)` or `()`.
    case tuple([TypeSyntax])
    /// `(A) -> B`.
    case function
    /// `some P` or `any P`.
    case opaque
}

/// A lone property declaration as read by ``DeclarationParser/parseProperty(_:)``: what
/// `@SessionPropertyEntry` needs, with the offsets diagnostics point at.
public struct PropertyDeclaration: Sendable, Equatable {
    /// Whether the declaration is a `let`.
    public var isLet: Bool
    /// Offset of the `var` or `let` keyword.
    public var keywordOffset: Int
    /// The (first) binding's name.
    public var name: String
    /// Offset of the name.
    public var nameOffset: Int
    /// The type annotation as written, if any.
    public var typeText: String?
    /// The initial value as written, if any.
    public var initialValue: String?
}
