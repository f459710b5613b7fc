/// What `@SessionPropertyEntry` generates for a property declared in an extension of
/// `SessionPropertyValues`:
///
/// ```swift
/// extension SessionPropertyValues {
///     @SessionPropertyEntry var tone: String = "calm"
/// }
/// ```
///
/// - the **peer** role: a key type `__Key_tone: SessionPropertyKey` whose default value is the
///   initializer (`String` and `"calm"` here);
/// - the **accessor** role: `get { self[__Key_tone.self] }` and `set { self[__Key_tone.self] =
///   newValue }`, which turn the declaration into a computed property (its initializer then
///   only names the default).
///
/// The declaration must be `var name: Type = value`; a missing type or initializer is an error
/// pointing at the declaration (a default value is needed, and the key's type cannot be inferred
/// without type checking).
public struct SessionPropertyEntryExpansion {
    /// The property's name.
    public let name: String
    /// The property's type, as written.
    public let type: String
    /// The initializer's expression, as written.
    public let defaultValue: String

    /// Reads `var name: Type = value` (after attributes and modifiers) from `source`.
    ///
    /// - Throws: ``MacroError`` when the declaration is not a `var` with a type annotation and
    ///   an initializer.
    public init(declarationSource source: String) throws(MacroError) {
        let property: PropertyDeclaration
        do {
            property = try DeclarationParser.parseProperty(source)
        } catch {
            throw MacroError("@SessionPropertyEntry applies to a property: write `var name: Type = defaultValue`", at: error.offset)
        }
        guard !property.isLet else {
            throw MacroError("@SessionPropertyEntry needs a `var`, since session properties can be set", at: property.keywordOffset)
        }
        guard let type = property.typeText else {
            throw MacroError(
                "@SessionPropertyEntry needs the property's type: write `var \(property.name): Type = defaultValue`",
                at: property.nameOffset)
        }
        guard let defaultValue = property.initialValue else {
            throw MacroError(
                "@SessionPropertyEntry needs a default value: write `var \(property.name): Type = defaultValue`",
                at: property.nameOffset)
        }
        name = property.name
        self.type = type
        self.defaultValue = defaultValue
    }

    /// The name of the generated key type.
    public var keyName: String { "__Key_\(name)" }

    /// The peer role's declaration: the key type.
    public var keyDeclaration: String {
        """
        private struct \(keyName): SessionPropertyKey {
            static var defaultValue: \(type) { \(defaultValue) }
        }
        """
    }

    /// The accessor role's accessors.
    public var accessors: String {
        """
        get { self[\(keyName).self] }
        set { self[\(keyName).self] = newValue }
        """
    }
}
