/// Makes a struct or enum `Generable`: writes its ``GenerationSchema``, the conversions from
/// and to ``GeneratedContent``, and (for structs) a `PartiallyGenerated` snapshot type whose
/// properties are all optional.
///
/// ```swift
/// @Generable(description: "Basic profile information about a cat")
/// struct CatProfile {
///     var name: String
///     @Guide(description: "The age of the cat", .range(0...20)) var age: Int
///     @Guide(description: "A one sentence profile") var profile: String
/// }
/// ```
///
/// Properties are generated in declaration order; each needs a type annotation with a
/// `Generable` type (String, Int, Double, Float, Decimal, Bool, arrays, optionals, other
/// `@Generable` types). Enums without associated values are generated as one of their case
/// names; enums with associated values as described in `docs/macros.md`.
///
/// - Parameter description: A natural-language description of the type, shown to the model.
@attached(extension, conformances: Generable, names: named(init(_:)))
@attached(member, names: named(generationSchema), named(generatedContent), named(PartiallyGenerated))
public macro Generable(description: String? = nil) = #externalMacro(module: "PocketMacros", type: "GenerableMacro")

/// Makes a struct or enum `Generable`, choosing how an optional property without a value is
/// generated.
///
/// ```swift
/// @Generable(representNilExplicitlyInGeneratedContent: true)
/// struct Novel {
///     @Guide(description: "A short title") var title: String
///     @Guide(description: "An optional subtitle") var subtitle: String?
/// }
/// // Novel(title: "Dune", subtitle: nil).generatedContent.jsonString
/// // {"title":"Dune","subtitle":null}
/// ```
///
/// With `false` (as with ``Generable(description:)``), a `nil` property is left out of the
/// type's ``GeneratedContent`` and the model may leave an optional property out. With `true`,
/// a `nil` property is present with the value `null` (``GeneratedContent/Kind/null``), and the
/// schema requires every property, allowing `null` for the optional ones (see
/// ``GenerationSchema/init(type:description:representNilExplicitlyInGeneratedContent:properties:)``),
/// so the model always writes the key. Reading content back accepts either form: a missing
/// key and `null` both give `nil`. In an enum, the flag applies to the optional associated
/// values of cases with labeled or several values.
///
/// - Parameters:
///   - description: A natural-language description of the type, shown to the model.
///   - representNilExplicitlyInGeneratedContent: Whether `nil` properties are generated as
///     `null` instead of being left out. Write `true` or `false`: the macro reads the literal.
@attached(extension, conformances: Generable, names: named(init(_:)))
@attached(member, names: named(generationSchema), named(generatedContent), named(PartiallyGenerated))
public macro Generable(description: String? = nil, representNilExplicitlyInGeneratedContent: Bool) =
    #externalMacro(module: "PocketMacros", type: "GenerableMacro")

/// Makes a struct or enum `Generable` under a custom schema name instead of the Swift type
/// name, optionally generating `nil` properties as `null`.
///
/// ```swift
/// @Generable(name: "Book", description: "A novel", representNilExplicitlyInGeneratedContent: true)
/// struct Novel {
///     var title: String
///     var subtitle: String?
/// }
/// // Novel.generationSchema.name == "Book"
/// ```
///
/// The name is the schema's title, the name other schemas refer to it by (`$ref`) and the
/// ``GenerationSchema/name`` a session records for structured responses. Names must be unique
/// among the types of one schema.
///
/// - Parameters:
///   - name: The schema's name.
///   - description: A natural-language description of the type, shown to the model.
///   - representNilExplicitlyInGeneratedContent: Whether `nil` properties are generated as
///     `null` instead of being left out (see
///     ``Generable(description:representNilExplicitlyInGeneratedContent:)``).
@attached(extension, conformances: Generable, names: named(init(_:)))
@attached(member, names: named(generationSchema), named(generatedContent), named(PartiallyGenerated))
public macro Generable(name: String, description: String? = nil, representNilExplicitlyInGeneratedContent: Bool = false) =
    #externalMacro(module: "PocketMacros", type: "GenerableMacro")

/// Describes a property of a `@Generable` type to the model.
///
/// - Parameter description: What the property holds.
@attached(peer)
public macro Guide(description: String) = #externalMacro(module: "PocketMacros", type: "GuideMacro")

/// Describes a property of a `@Generable` type and constrains its values.
///
/// ```swift
/// @Guide(description: "The age of the cat", .range(0...20)) var age: Int
/// @Guide(.count(4)) var searchTerms: [String]
/// ```
///
/// - Parameters:
///   - description: What the property holds.
///   - guides: Constraints on the generated values.
@attached(peer)
public macro Guide<T>(description: String? = nil, _ guides: GenerationGuide<T>...) =
    #externalMacro(module: "PocketMacros", type: "GuideMacro") where T: Generable

/// Describes a string property of a `@Generable` type and requires it to match a regular
/// expression, written as a regex literal or `Regex("…")`.
///
/// ```swift
/// @Guide(description: "A name", /[A-Z][a-z]+/) var name: String
/// ```
///
/// The pattern's text is read from the source code and written into the schema.
///
/// - Parameters:
///   - description: What the property holds.
///   - guides: The pattern the whole value must match.
@attached(peer)
public macro Guide<RegexOutput>(description: String? = nil, _ guides: Regex<RegexOutput>) =
    #externalMacro(module: "PocketMacros", type: "GuideMacro")
