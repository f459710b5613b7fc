/// A prompt from a person to the model.
///
/// A `Prompt` is a sequence of text segments. Build one from a string, from any
/// `PromptRepresentable` value, or with the `PromptBuilder` result builder:
///
/// ```swift
/// let shouldRhyme = true
/// let prompt = Prompt {
///     "Write a short poem about the sea."
///     if shouldRhyme {
///         "It MUST rhyme."
///     }
/// }
/// ```
///
/// When rendered for the model, segments are joined with newlines; an image ``Attachment`` is
/// kept as an attachment segment of the transcript's prompt entry (a model without `.vision`
/// refuses the request).
///
/// (Implementations of `PromptRepresentable` in Pocket use an explicit `return`: the requirement
/// carries `@PromptBuilder`, which would otherwise rewrite an implicit body into a call of the
/// value's own representation, recursing forever.)
public struct Prompt: Sendable {
    /// The parts, in order: text, or an attachment.
    var parts: [Transcript.Segment]

    init(parts: [Transcript.Segment]) {
        self.parts = parts
    }

    init(segments: [String]) {
        parts = segments.map { .text(.init(content: $0)) }
    }

    /// The parts as text (an attachment as its placeholder, `[image: label]`).
    var segments: [String] { parts.map(\.description) }

    /// Whether the prompt holds an attachment.
    var hasAttachments: Bool {
        parts.contains { if case .attachment = $0 { true } else { false } }
    }

    /// The prompt entry's segments: one text segment (the parts joined with newlines), or, with
    /// attachments, the attachments between texts that join the text parts around them.
    var transcriptSegments: [Transcript.Segment] {
        guard hasAttachments else { return [.text(.init(content: text))] }
        var result: [Transcript.Segment] = []
        var texts: [String] = []
        func flush() {
            if !texts.isEmpty { result.append(.text(.init(content: texts.joined(separator: "\n")))) }
            texts = []
        }
        for part in parts {
            if case .text(let text) = part { texts.append(text.content) } else { flush(); result.append(part) }
        }
        flush()
        return result
    }

    /// Creates prompt from the content of a builder closure.
    ///
    /// - Parameter content: A closure that produces the prompt.
    /// - Throws: Whatever `content` throws.
    public init(@PromptBuilder _ content: () throws -> Prompt) rethrows {
        self = try content()
    }

    /// Creates prompt from a single representable value, such as a string.
    ///
    /// - Parameter content: The value whose representation becomes the prompt.
    public init(_ content: some PromptRepresentable) {
        self = content.promptRepresentation
    }

    /// The text given to the model: the segments joined with newlines.
    var text: String {
        segments.joined(separator: "\n")
    }
}

extension Prompt: PromptRepresentable {
    /// The prompt itself.
    public var promptRepresentation: Prompt {
        return self
    }
}

/// A type whose value can be used as prompt.
///
/// Strings, arrays of representable values, and every `ConvertibleToGeneratedContent` type
/// (as JSON) conform.
public protocol PromptRepresentable {
    /// This value as prompt.
    @PromptBuilder var promptRepresentation: Prompt { get }
}

extension String: PromptRepresentable {
    /// The string as one segment.
    public var promptRepresentation: Prompt {
        return Prompt(segments: [self])
    }
}

extension Array: PromptRepresentable where Element: PromptRepresentable {
    /// The segments of every element, in order.
    public var promptRepresentation: Prompt {
        return Prompt(parts: flatMap { $0.promptRepresentation.parts })
    }
}

/// A result builder that assembles `Prompt` values from representable components.
@resultBuilder
public struct PromptBuilder {
    /// Joins the segments of each component of a block.
    public static func buildBlock<each P: PromptRepresentable>(_ components: repeat each P) -> Prompt {
        var parts: [Transcript.Segment] = []
        for component in repeat each components {
            parts += component.promptRepresentation.parts
        }
        return Prompt(parts: parts)
    }

    /// Joins the segments of the values produced by a `for` loop.
    public static func buildArray(_ components: [some PromptRepresentable]) -> Prompt {
        Prompt(parts: components.flatMap { $0.promptRepresentation.parts })
    }

    /// The first branch of an `if`/`else` or `switch`.
    public static func buildEither(first component: some PromptRepresentable) -> Prompt {
        component.promptRepresentation
    }

    /// The second branch of an `if`/`else` or `switch`.
    public static func buildEither(second component: some PromptRepresentable) -> Prompt {
        component.promptRepresentation
    }

    /// An optional component: empty when absent.
    public static func buildOptional(_ component: Prompt?) -> Prompt {
        component ?? Prompt(segments: [])
    }

    /// A component guarded by `if #available`.
    public static func buildLimitedAvailability(_ prompt: some PromptRepresentable) -> Prompt {
        prompt.promptRepresentation
    }

    /// Accepts any representable expression as a component.
    public static func buildExpression<P: PromptRepresentable>(_ expression: P) -> P {
        expression
    }

    /// Accepts a `Prompt` expression as a component.
    public static func buildExpression(_ expression: Prompt) -> Prompt {
        expression
    }
}
