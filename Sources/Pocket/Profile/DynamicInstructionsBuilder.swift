/// A result builder that combines instructions, tools and other dynamic instructions, as in
/// Apple's FoundationModels (iOS/macOS 27).
///
/// A block may list any number of components; `if` with or without `else`, `switch`,
/// `for` loops and `if #available` work as they do in SwiftUI's builders.
@resultBuilder
public struct DynamicInstructionsBuilder {
    /// Creates a builder with an empty block.
    public static func buildBlock() -> EmptyDynamicInstructions {
        EmptyDynamicInstructions()
    }

    /// Creates a builder with a block of one component.
    public static func buildBlock<T>(_ content: T) -> T where T: DynamicInstructions {
        content
    }

    /// Creates a builder with a block of several components.
    public static func buildBlock<each Content: DynamicInstructions>(_ content: repeat each Content) -> TupleDynamicInstructions<repeat each Content> {
        TupleDynamicInstructions(repeat each content)
    }

    /// Accepts any dynamic instructions (``Instructions`` among them) as a component.
    public static func buildExpression<Content: DynamicInstructions>(_ content: Content) -> Content {
        content
    }

    /// Accepts a tool as a component: the model may call it in requests this evaluation serves.
    public static func buildExpression(_ tool: some Tool) -> some DynamicInstructions {
        ToolsDynamicInstructions(tools: [tool])
    }

    /// Creates a builder with a list of tools expression.
    public static func buildExpression(_ tools: [any Tool]) -> some DynamicInstructions {
        ToolsDynamicInstructions(tools: tools)
    }

    /// Creates a builder with the first component.
    public static func buildEither<TrueContent, FalseContent>(first content: TrueContent) -> ConditionalDynamicInstructions<TrueContent, FalseContent>
    where TrueContent: DynamicInstructions, FalseContent: DynamicInstructions {
        ConditionalDynamicInstructions(.trueContent(content))
    }

    /// Creates a builder with the second component.
    public static func buildEither<TrueContent, FalseContent>(second content: FalseContent) -> ConditionalDynamicInstructions<TrueContent, FalseContent>
    where TrueContent: DynamicInstructions, FalseContent: DynamicInstructions {
        ConditionalDynamicInstructions(.falseContent(content))
    }

    /// Creates a builder with an optional component (an `if` without `else`).
    public static func buildOptional<Content>(_ content: Content?) -> Content? where Content: DynamicInstructions {
        content
    }

    /// Creates a builder with a component guarded by `if #available`.
    public static func buildLimitedAvailability<Content: DynamicInstructions>(_ content: Content) -> AnyDynamicInstructions {
        AnyDynamicInstructions(erasing: content)
    }

    /// Creates a builder with the components of a `for` loop, in order (a Pocket addition).
    public static func buildArray<Content: DynamicInstructions>(_ content: [Content]) -> some DynamicInstructions {
        ArrayDynamicInstructions(elements: content.map { AnyDynamicInstructions(erasing: $0) })
    }
}

/// A dynamic instructions type that represents a tuple: its elements, in order.
public struct TupleDynamicInstructions<each Content>: DynamicInstructions, PrimitiveDynamicInstructions where repeat each Content: DynamicInstructions {
    private let contents: (repeat each Content)

    /// Creates a dynamic instructions instance that represents a tuple.
    ///
    /// - Parameter contents: The elements of the tuple.
    public init(_ contents: repeat each Content) {
        self.contents = (repeat each contents)
    }

    /// Never evaluated: the elements are evaluated instead.
    public var body: Never { preconditionFailure("TupleDynamicInstructions is primitive; Pocket never asks for its body") }

    func resolve(into resolved: inout ResolvedDynamicInstructions) {
        for content in repeat each contents {
            content.resolve(into: &resolved)
        }
    }
}

/// The elements of a `for` loop in a builder, in order.
struct ArrayDynamicInstructions: DynamicInstructions, PrimitiveDynamicInstructions {
    let elements: [AnyDynamicInstructions]

    var body: Never { preconditionFailure("ArrayDynamicInstructions is primitive") }

    func resolve(into resolved: inout ResolvedDynamicInstructions) {
        for element in elements { element.resolve(into: &resolved) }
    }
}

/// A dynamic instructions type that conditionally selects between two conditions (an
/// `if`/`else` or `switch` in a builder).
public struct ConditionalDynamicInstructions<TrueContent, FalseContent>: DynamicInstructions, PrimitiveDynamicInstructions
where TrueContent: DynamicInstructions, FalseContent: DynamicInstructions {
    /// An enumeration that represents a condition to evaluate.
    public enum Branch {
        /// The condition held: the first branch.
        case trueContent(TrueContent)
        /// The condition did not hold: the second branch.
        case falseContent(FalseContent)
    }

    /// The branch taken.
    let branch: Branch

    /// Creates a dynamic instructions instance that selects between two conditions.
    ///
    /// - Parameter branch: The condition to evaluate.
    public init(_ branch: Branch) {
        self.branch = branch
    }

    /// Never evaluated: the branch taken is evaluated instead.
    public var body: Never { preconditionFailure("ConditionalDynamicInstructions is primitive; Pocket never asks for its body") }

    func resolve(into resolved: inout ResolvedDynamicInstructions) {
        switch branch {
        case .trueContent(let content): content.resolve(into: &resolved)
        case .falseContent(let content): content.resolve(into: &resolved)
        }
    }
}

/// An absent optional contributes nothing; a present one, its content (an `if` without `else`).
extension Optional: DynamicInstructions where Wrapped: DynamicInstructions {
    /// Never evaluated: the wrapped value, if any, is evaluated instead.
    public var body: Never { preconditionFailure("Optional is a primitive DynamicInstructions; Pocket never asks for its body") }
}

extension Optional: PrimitiveDynamicInstructions where Wrapped: DynamicInstructions {
    func resolve(into resolved: inout ResolvedDynamicInstructions) {
        if let self { self.resolve(into: &resolved) }
    }
}
