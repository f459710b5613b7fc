/// Instructions that steer the model's behavior for a whole session.
///
/// A `Instructions` is a sequence of text segments. Build one from a string, from any
/// `InstructionsRepresentable` value, or with the `InstructionsBuilder` result builder:
///
/// ```swift
/// let shouldRhyme = true
/// let instructions = Instructions {
///     "Write a short poem about the sea."
///     if shouldRhyme {
///         "It MUST rhyme."
///     }
/// }
/// ```
///
/// When rendered for the model, segments are joined with newlines.
///
/// (Implementations of `InstructionsRepresentable` in Pocket use an explicit `return`: the requirement
/// carries `@InstructionsBuilder`, which would otherwise rewrite an implicit body into a call of the
/// value's own representation, recursing forever.)
public struct Instructions: Sendable {
    /// The text segments, in order.
    var segments: [String]

    init(segments: [String]) {
        self.segments = segments
    }

    /// Creates instructions from the content of a builder closure.
    ///
    /// - Parameter content: A closure that produces the instructions.
    /// - Throws: Whatever `content` throws.
    public init(@InstructionsBuilder _ content: () throws -> Instructions) rethrows {
        self = try content()
    }

    /// Creates instructions from a single representable value, such as a string.
    ///
    /// - Parameter content: The value whose representation becomes the instructions.
    public init(_ content: some InstructionsRepresentable) {
        self = content.instructionsRepresentation
    }

    /// The text given to the model: the segments joined with newlines.
    var text: String {
        segments.joined(separator: "\n")
    }
}

extension Instructions: InstructionsRepresentable {
    /// The instructions itself.
    public var instructionsRepresentation: Instructions {
        return self
    }
}

/// A type whose value can be used as instructions.
///
/// Strings, arrays of representable values, and every `ConvertibleToGeneratedContent` type
/// (as JSON) conform.
public protocol InstructionsRepresentable {
    /// This value as instructions.
    @InstructionsBuilder var instructionsRepresentation: Instructions { get }
}

extension String: InstructionsRepresentable {
    /// The string as one segment.
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: [self])
    }
}

extension Array: InstructionsRepresentable where Element: InstructionsRepresentable {
    /// The segments of every element, in order.
    public var instructionsRepresentation: Instructions {
        return Instructions(segments: flatMap { $0.instructionsRepresentation.segments })
    }
}

/// A result builder that assembles `Instructions` values from representable components.
@resultBuilder
public struct InstructionsBuilder {
    /// Joins the segments of each component of a block.
    public static func buildBlock<each P: InstructionsRepresentable>(_ components: repeat each P) -> Instructions {
        var segments: [String] = []
        for component in repeat each components {
            segments += component.instructionsRepresentation.segments
        }
        return Instructions(segments: segments)
    }

    /// Joins the segments of the values produced by a `for` loop.
    public static func buildArray(_ components: [some InstructionsRepresentable]) -> Instructions {
        Instructions(segments: components.flatMap { $0.instructionsRepresentation.segments })
    }

    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: some InstructionsRepresentable) -> Instructions {
        component.instructionsRepresentation
    }

    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: some InstructionsRepresentable) -> Instructions {
        component.instructionsRepresentation
    }

    /// An optional component: empty when absent.
    public static func buildOptional(_ component: Instructions?) -> Instructions {
        component ?? Instructions(segments: [])
    }

    /// A component guarded by `if #available`.
    public static func buildLimitedAvailability(_ instructions: some InstructionsRepresentable) -> Instructions {
        instructions.instructionsRepresentation
    }

    /// Accepts any representable expression as a component.
    public static func buildExpression<P: InstructionsRepresentable>(_ expression: P) -> P {
        expression
    }

    /// Accepts a `Instructions` expression as a component.
    public static func buildExpression(_ expression: Instructions) -> Instructions {
        expression
    }
}
