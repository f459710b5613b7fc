extension LanguageModelSession {
    /// A profile that contains dynamic instructions, as in Apple's FoundationModels (iOS/macOS 27).
    ///
    /// A profile binds ``DynamicInstructions`` (what the model reads and which tools it may
    /// call) to session configuration, which its modifiers set:
    ///
    /// ```swift
    /// Profile {
    ///     Instructions("You write poems about the sky.")
    ///     StarChartTool()
    /// }
    /// .temperature(likesPoetry ? 0.8 : 0.1)
    /// .maximumResponseTokens(200)
    /// ```
    ///
    /// The instructions are evaluated again at every request, with the rest of the profile.
    public struct Profile: LanguageModelSession.DynamicProfile, PrimitiveDynamicProfile {
        /// The dynamic instructions.
        let instructions: AnyDynamicInstructions

        /// Creates a profile that contains dynamic instructions.
        ///
        /// - Parameter dynamicInstructions: The dynamic instructions.
        public init(@DynamicInstructionsBuilder _ dynamicInstructions: () -> some DynamicInstructions) {
            instructions = AnyDynamicInstructions(erasing: dynamicInstructions())
        }

        /// Never evaluated: a profile is primitive.
        public var body: Never { preconditionFailure("Profile is primitive; Pocket never asks for its body") }

        func resolveProfile(into resolved: inout ResolvedProfile) throws {
            resolved.instructions = instructions
            resolved.identity = resolved.path.joined(separator: "/")
            resolved.profileCount += 1
        }
    }
}
