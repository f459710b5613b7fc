import Foundation

/// A function the model can call while it answers a prompt.
///
/// The tool's name, description and argument schema go into the session's instructions; when
/// the model decides to call it, the arguments it writes are constrained to ``parameters``, and
/// the output is added to the transcript before the model continues.
public protocol Tool<Arguments, Output>: Sendable {
    /// The arguments' type.
    associatedtype Arguments: ConvertibleFromGeneratedContent
    /// The output's type.
    associatedtype Output: PromptRepresentable

    /// The name the model uses to call the tool.
    var name: String { get }
    /// What the tool does, in natural language.
    var description: String { get }
    /// The schema of the arguments.
    var parameters: GenerationSchema { get }
    /// Whether the argument schema is written into the instructions.
    var includesSchemaInInstructions: Bool { get }

    /// Runs the tool.
    func call(arguments: Arguments) async throws -> Output
}

extension Tool {
    /// The type's name.
    public var name: String { String(describing: Self.self) }
    /// `true`.
    public var includesSchemaInInstructions: Bool { true }
}

extension Tool where Arguments: Generable {
    /// The arguments type's schema.
    public var parameters: GenerationSchema { Arguments.generationSchema }
}

extension Tool {
    /// Converts generated arguments, calls the tool, and renders its output as text.
    func callRendered(_ arguments: GeneratedContent) async throws -> String {
        let output = try await call(arguments: Arguments(arguments))
        return output.promptRepresentation.text
    }
}
