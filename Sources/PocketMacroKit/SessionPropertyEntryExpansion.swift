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
        let tokens = try Lexer.tokenize(source)
        guard let varIndex = tokens.firstIndex(where: { $0.isWord("var") }) else {
            let isLet = tokens.first(where: { $0.isWord("let") })
            throw MacroError(
                isLet == nil ? "@SessionPropertyEntry applies to a property: write `var name: Type = defaultValue`"
                    : "@SessionPropertyEntry needs a `var`, since session properties can be set",
                at: isLet?.start ?? 0)
        }
        let nameIndex = varIndex + 1
        guard nameIndex < tokens.count, tokens[nameIndex].kind == .identifier else {
            throw MacroError("@SessionPropertyEntry needs a property name after `var`", at: tokens[varIndex].end)
        }
        guard nameIndex + 1 < tokens.count, tokens[nameIndex + 1].isSymbol(":") else {
            throw MacroError(
                "@SessionPropertyEntry needs the property's type: write `var \(tokens[nameIndex].text): Type = defaultValue`",
                at: tokens[nameIndex].end)
        }
        // The type runs to the `=` that is not inside brackets (generic arguments, tuples,
        // closures' parameter lists, dictionary and array types).
        var depth = 0
        var equalsIndex: Int?
        for index in (nameIndex + 2)..<tokens.count {
            let token = tokens[index]
            if token.isSymbol("(") || token.isSymbol("[") || token.isSymbol("<") || token.isSymbol("{") { depth += 1 }
            // The lexer splits a function type's `->` into `-` and `>`: that `>` closes nothing.
            let isArrowHead = token.isSymbol(">") && tokens[index - 1].text.hasSuffix("-") && tokens[index - 1].end == token.start
            if token.isSymbol(")") || token.isSymbol("]") || (token.isSymbol(">") && !isArrowHead) || token.isSymbol("}") { depth -= 1 }
            if depth == 0, token.isSymbol("=") {
                equalsIndex = index
                break
            }
        }
        guard let equalsIndex, equalsIndex > nameIndex + 2, equalsIndex + 1 < tokens.count else {
            throw MacroError(
                "@SessionPropertyEntry needs a default value: write `var \(tokens[nameIndex].text): Type = defaultValue`",
                at: tokens[nameIndex].start)
        }
        let bytes = Array(source.utf8)
        func text(_ from: Int, _ to: Int) -> String {
            String(decoding: bytes[from..<to], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        name = tokens[nameIndex].text
        type = text(tokens[nameIndex + 2].start, tokens[equalsIndex - 1].end)
        // The initializer runs to the end of the declaration (an accessor block would make it
        // computed already, which the compiler rejects before expanding).
        defaultValue = text(tokens[equalsIndex + 1].start, tokens.last!.end)
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
