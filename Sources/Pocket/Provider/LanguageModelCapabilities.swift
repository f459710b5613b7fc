/// A set of capabilities a language model provides.
///
/// Text generation and streaming are not capabilities: every model has them.
public struct LanguageModelCapabilities: Sendable, Equatable {
    /// A capability a language model may or may not have.
    public struct Capability: Sendable, Hashable, CustomStringConvertible {
        let name: String

        /// Output strictly constrained to a JSON schema (``LanguageModelExecutorGenerationRequest/schema``).
        public static let guidedGeneration = Capability(name: "guidedGeneration")
        /// Calling the tools of ``LanguageModelExecutorGenerationRequest/enabledToolDefinitions``.
        public static let toolCalling = Capability(name: "toolCalling")
        /// Reasoning before answering.
        public static let reasoning = Capability(name: "reasoning")
        /// Image input.
        public static let vision = Capability(name: "vision")

        /// The capability's name.
        public var description: String { name }
    }

    private let capabilities: Set<Capability>

    /// Creates a set of capabilities.
    ///
    /// ```swift
    /// var capabilities: LanguageModelCapabilities {
    ///     LanguageModelCapabilities([.guidedGeneration, .toolCalling])
    /// }
    /// ```
    ///
    /// - Parameter capabilities: What the model can do.
    public init(_ capabilities: [Capability]) {
        self.capabilities = Set(capabilities)
    }

    /// Creates a set of capabilities (Pocket's spelling before Apple's 27 SDK settled on
    /// ``init(_:)``).
    ///
    /// - Parameter capabilities: What the model can do.
    @available(*, deprecated, renamed: "init(_:)")
    public init(capabilities: some Sequence<Capability> = []) {
        self.capabilities = Set(capabilities)
    }

    /// Whether the model has `capability`.
    public func contains(_ capability: Capability) -> Bool {
        capabilities.contains(capability)
    }
}
