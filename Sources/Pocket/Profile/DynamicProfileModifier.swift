extension LanguageModelSession {
    /// A protocol for creating reusable wrappers around dynamic profile content, as in Apple's
    /// FoundationModels (iOS/macOS 27).
    ///
    /// ```swift
    /// struct Careful: LanguageModelSession.DynamicProfileModifier {
    ///     func body(content: Content) -> some DynamicProfile {
    ///         content
    ///             .temperature(0.1)
    ///             .transcriptErrorHandlingPolicy(.revertTranscript)
    ///     }
    /// }
    ///
    /// Profile { Instructions("Fill in the form.") }.modifier(Careful())
    /// ```
    ///
    /// The modifier's body is evaluated at every request, with the profile it wraps.
    public protocol DynamicProfileModifier {
        /// The type of dynamic profile modifier that represents this modifier.
        associatedtype Body: LanguageModelSession.DynamicProfile

        /// The content of the dynamic profile modifier.
        @LanguageModelSession.DynamicProfileBuilder func body(content: Self.Content) -> Self.Body
    }

    /// A type that represents the dynamic profile a modifier applies to.
    public struct DynamicProfileModifierContent<Modifier>: LanguageModelSession.DynamicProfile, PrimitiveDynamicProfile
    where Modifier: LanguageModelSession.DynamicProfileModifier {
        /// Evaluates the wrapped profile.
        let resolveContent: (inout ResolvedProfile) throws -> Void

        /// Never evaluated: the wrapped profile is evaluated instead.
        public var body: Never { preconditionFailure("DynamicProfileModifierContent is primitive; Pocket never asks for its body") }

        func resolveProfile(into resolved: inout ResolvedProfile) throws {
            try resolveContent(&resolved)
        }
    }

    /// A dynamic profile with a modifier applied to it.
    public struct ModifiedDynamicProfile<Content, Modifier>: LanguageModelSession.DynamicProfile, PrimitiveDynamicProfile
    where Content: LanguageModelSession.DynamicProfile, Modifier: LanguageModelSession.DynamicProfileModifier {
        /// The profile the modifier applies to.
        let content: Content
        /// The modifier.
        let modifier: Modifier

        /// Never evaluated: the modifier and its content are evaluated instead.
        public var body: Never { preconditionFailure("ModifiedDynamicProfile is primitive; Pocket never asks for its body") }

        func resolveProfile(into resolved: inout ResolvedProfile) throws {
            // The modifier acts first, so that what its content sets (closer to the Profile) wins.
            if let primitive = modifier as? any PrimitiveDynamicProfileModifier {
                primitive.apply(to: &resolved)
                try content.resolveProfile(into: &resolved)
            } else {
                let content = self.content
                let placeholder = DynamicProfileModifierContent<Modifier> { try content.resolveProfile(into: &$0) }
                try modifier.body(content: placeholder).resolveProfile(into: &resolved)
            }
        }
    }
}

extension LanguageModelSession.DynamicProfileModifier {
    /// The type of dynamic profile content that this modifier wraps.
    public typealias Content = LanguageModelSession.DynamicProfileModifierContent<Self>
    /// The dynamic profile type that a modifier's body returns.
    public typealias DynamicProfile = LanguageModelSession.DynamicProfile
    /// A property wrapper that provides access to a session property from within a modifier.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

/// A built-in modifier: sets values of the resolution directly.
protocol PrimitiveDynamicProfileModifier {
    /// Sets this modifier's values in `resolved`.
    func apply(to resolved: inout ResolvedProfile)
}

extension LanguageModelSession.DynamicProfile {
    /// Applies a modifier to the dynamic profile.
    ///
    /// - Parameter modifier: The modifier.
    /// - Returns: The profile with the modifier applied.
    public func modifier<Modifier>(_ modifier: Modifier) -> some LanguageModelSession.DynamicProfile
    where Modifier: LanguageModelSession.DynamicProfileModifier {
        LanguageModelSession.ModifiedDynamicProfile(content: self, modifier: modifier)
    }
}
