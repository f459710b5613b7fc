/// A type that can be initialized from generated content.
///
/// `@Generable` types conform automatically. Conform other types by reading the values you
/// need from the content:
///
/// ```swift
/// struct Point: ConvertibleFromGeneratedContent {
///     var x, y: Double
///     init(_ content: GeneratedContent) throws {
///         x = try content.value(forProperty: "x")
///         y = try content.value(forProperty: "y")
///     }
/// }
/// ```
public protocol ConvertibleFromGeneratedContent: SendableMetatype {
    /// Creates an instance from generated content.
    ///
    /// - Parameter content: The content to read.
    /// - Throws: ``GeneratedContent/ConversionError`` when the content does not have the shape
    ///   the type expects.
    init(_ content: GeneratedContent) throws
}

/// A type that can describe itself as generated content.
///
/// Conforming types also represent themselves in prompts and instructions: by default as the
/// JSON text of their content.
public protocol ConvertibleToGeneratedContent: InstructionsRepresentable, PromptRepresentable {
    /// This instance as generated content.
    var generatedContent: GeneratedContent { get }
}

extension ConvertibleToGeneratedContent {
    /// The JSON text of ``generatedContent``, as one prompt segment.
    public var promptRepresentation: Prompt {
        return Prompt(segments: [generatedContent.jsonString])
    }

    /// The JSON text of ``generatedContent``, as one instructions segment.
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: [generatedContent.jsonString])
    }
}
