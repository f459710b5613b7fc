/// Instructions and tools that a ``LanguageModelSession`` evaluates before every request, as in
/// Apple's FoundationModels (iOS/macOS 27).
///
/// The body is declarative: it lists ``Instructions``, tools and other dynamic instructions,
/// and may choose among them with `if`/`else` on the app's current state. Because the session
/// evaluates the body again for each request, a change of state shows in the next request.
///
/// ```swift
/// struct EditorInstructions: DynamicInstructions {
///     var isEditingImage: Bool
///
///     var body: some DynamicInstructions {
///         Instructions("Help people improve their presentation.")
///         ListPhotosTool()
///         if isEditingImage {
///             Instructions("The person is editing an image; prefer the image tools.")
///             CropTool()
///         }
///     }
/// }
/// ```
///
/// The instructions' texts reach the model in the order they are declared; tools are offered
/// in declaration order too. Declaring what rarely changes first keeps the rendered prompt's
/// prefix stable, so the model's cache of it is reused across requests.
public protocol DynamicInstructions {
    /// The type of dynamic instructions that represent these instructions.
    associatedtype Body: DynamicInstructions

    /// The content of the dynamic instructions.
    @DynamicInstructionsBuilder var body: Body { get }
}

/// What an evaluation of dynamic instructions produced: the instruction texts and the tools.
struct ResolvedDynamicInstructions {
    /// Each ``Instructions`` value's text, in declaration order.
    var texts: [String] = []
    /// The tools, in declaration order.
    var tools: [any Tool] = []

    /// The instruction texts as the one text the transcript's instructions entry holds.
    var text: String { texts.joined(separator: "\n") }
}

/// A dynamic instructions type Pocket evaluates itself instead of through its `body`.
protocol PrimitiveDynamicInstructions {
    /// Adds this value's texts and tools to `resolved`.
    func resolve(into resolved: inout ResolvedDynamicInstructions)
}

extension DynamicInstructions {
    /// Evaluates the body (recursively) into texts and tools.
    func resolve(into resolved: inout ResolvedDynamicInstructions) {
        if let primitive = self as? any PrimitiveDynamicInstructions {
            primitive.resolve(into: &resolved)
        } else {
            body.resolve(into: &resolved)
        }
    }

    /// The texts and tools of one evaluation.
    func resolved() -> ResolvedDynamicInstructions {
        var resolved = ResolvedDynamicInstructions()
        resolve(into: &resolved)
        return resolved
    }
}

/// `Never` is the body of the primitive dynamic instructions (``Instructions``,
/// ``EmptyDynamicInstructions``, …), which Pocket evaluates without asking for a body.
extension Never: DynamicInstructions {
    /// `Never` has no values, so this is never evaluated.
    public var body: Never { self }
}

extension Instructions: DynamicInstructions, PrimitiveDynamicInstructions {
    /// Instructions are primitive: their text is their content, and this body is never evaluated.
    public var body: Never { preconditionFailure("Instructions is a primitive DynamicInstructions; Pocket never asks for its body") }

    func resolve(into resolved: inout ResolvedDynamicInstructions) {
        let text = self.text
        if !text.isEmpty { resolved.texts.append(text) }
    }
}

/// An empty dynamic instructions type: no instructions, no tools.
public struct EmptyDynamicInstructions: DynamicInstructions, PrimitiveDynamicInstructions, Sendable {
    /// Creates an empty instance.
    public init() {}

    /// Never evaluated.
    public var body: Never { preconditionFailure("EmptyDynamicInstructions is primitive; Pocket never asks for its body") }

    func resolve(into resolved: inout ResolvedDynamicInstructions) {}
}

/// A type-erased dynamic instructions value.
///
/// The wrapped value's body is still evaluated at each request, so erasing keeps the value
/// dynamic.
public struct AnyDynamicInstructions: DynamicInstructions, PrimitiveDynamicInstructions {
    private let base: any DynamicInstructions

    /// Creates an instance from the dynamic instructions you specify.
    ///
    /// - Parameter dynamicInstructions: The dynamic instructions.
    public init(_ dynamicInstructions: any DynamicInstructions) {
        // Erasing an erased value keeps one level of wrapping.
        if let erased = dynamicInstructions as? AnyDynamicInstructions { self = erased } else { base = dynamicInstructions }
    }

    /// Creates an instance from the dynamic instructions you specify.
    ///
    /// - Parameter dynamicInstructions: The dynamic instructions.
    public init(erasing dynamicInstructions: some DynamicInstructions) {
        self.init(dynamicInstructions)
    }

    /// Never evaluated: the wrapped value is evaluated instead.
    public var body: Never { preconditionFailure("AnyDynamicInstructions is primitive; Pocket never asks for its body") }

    func resolve(into resolved: inout ResolvedDynamicInstructions) {
        base.resolve(into: &resolved)
    }
}

/// Tools listed in a dynamic instructions body (made by ``DynamicInstructionsBuilder``'s
/// `buildExpression` for a tool or an array of tools).
struct ToolsDynamicInstructions: DynamicInstructions, PrimitiveDynamicInstructions {
    let tools: [any Tool]

    var body: Never { preconditionFailure("tools are primitive dynamic instructions") }

    func resolve(into resolved: inout ResolvedDynamicInstructions) {
        resolved.tools += tools
    }
}
