/// A type the model can generate, guided by the type's ``generationSchema``.
///
/// Usually you attach the `@Generable` macro, which writes the conformance. Conforming by hand
/// means providing the schema and both conversions:
///
/// ```swift
/// struct Cat: Generable {
///     var name: String
///     var age: Int
///     static var generationSchema: GenerationSchema {
///         GenerationSchema(type: Cat.self, properties: [
///             .init(name: "name", type: String.self),
///             .init(name: "age", type: Int.self, guides: [.range(0...20)]),
///         ])
///     }
///     init(_ content: GeneratedContent) throws {
///         name = try content.value(forProperty: "name")
///         age = try content.value(forProperty: "age")
///     }
///     var generatedContent: GeneratedContent {
///         GeneratedContent(properties: ["name": name, "age": age])
///     }
/// }
/// ```
public protocol Generable: ConvertibleFromGeneratedContent, ConvertibleToGeneratedContent {
    /// The type used for snapshots of a value while it is being generated.
    ///
    /// Generated structures use a companion type whose properties are all optional, so that a
    /// partial response can be read before every property has arrived.
    associatedtype PartiallyGenerated: ConvertibleFromGeneratedContent = Self

    /// The schema that describes this type to the model.
    static var generationSchema: GenerationSchema { get }

    /// This value as a partially generated snapshot (all of it present).
    func asPartiallyGenerated() -> PartiallyGenerated
}

extension Generable {
    /// Converts the value through its ``ConvertibleToGeneratedContent/generatedContent``.
    ///
    /// A complete value always fits its partial type, whose properties are all optional; a
    /// conversion failure therefore means the type's two conversions disagree, a programming
    /// error reported with the type's name and the conversion error.
    public func asPartiallyGenerated() -> PartiallyGenerated {
        if let same = self as? PartiallyGenerated { return same }
        do {
            return try PartiallyGenerated(generatedContent)
        } catch {
            preconditionFailure(
                "\(Self.self).PartiallyGenerated cannot read \(Self.self).generatedContent: \(error)")
        }
    }
}
