extension LanguageModelSession {
    /// A type that represents a dynamic profile builder, as in Apple's FoundationModels
    /// (iOS/macOS 27).
    ///
    /// A body holds one profile; `if`/`else` and `switch` choose it (an `if` without `else`
    /// does not compile, since a body must resolve to a profile).
    @resultBuilder
    public struct DynamicProfileBuilder {
        /// Creates a builder with a block.
        public static func buildBlock<Content>(_ content: Content) -> Content where Content: LanguageModelSession.DynamicProfile {
            content
        }

        /// Creates a builder with the first component.
        public static func buildEither<TrueContent, FalseContent>(first content: TrueContent) -> LanguageModelSession.ConditionalDynamicProfile<TrueContent, FalseContent>
        where TrueContent: LanguageModelSession.DynamicProfile, FalseContent: LanguageModelSession.DynamicProfile {
            ConditionalDynamicProfile(.trueContent(content))
        }

        /// Creates a builder with the second component.
        public static func buildEither<TrueContent, FalseContent>(second content: FalseContent) -> LanguageModelSession.ConditionalDynamicProfile<TrueContent, FalseContent>
        where TrueContent: LanguageModelSession.DynamicProfile, FalseContent: LanguageModelSession.DynamicProfile {
            ConditionalDynamicProfile(.falseContent(content))
        }

        /// Creates a builder with a profile guarded by `if #available`.
        public static func buildLimitedAvailability<Content>(_ content: Content) -> LanguageModelSession.AnyDynamicProfile
        where Content: LanguageModelSession.DynamicProfile {
            AnyDynamicProfile(erasing: content)
        }
    }

    /// A dynamic profile that selects between two profiles (an `if`/`else` or `switch` in a
    /// ``DynamicProfileBuilder``).
    public struct ConditionalDynamicProfile<TrueContent, FalseContent>: LanguageModelSession.DynamicProfile, PrimitiveDynamicProfile
    where TrueContent: LanguageModelSession.DynamicProfile, FalseContent: LanguageModelSession.DynamicProfile {
        /// An enumeration that represents a condition to evaluate.
        public enum Branch {
            /// The condition held: the first branch.
            case trueContent(TrueContent)
            /// The condition did not hold: the second branch.
            case falseContent(FalseContent)
        }

        /// The branch taken.
        let branch: Branch

        /// Creates a dynamic profile that selects between two conditions.
        ///
        /// - Parameter branch: The condition to evaluate.
        public init(_ branch: Branch) {
            self.branch = branch
        }

        /// Never evaluated: the branch taken is evaluated instead.
        public var body: Never { preconditionFailure("ConditionalDynamicProfile is primitive; Pocket never asks for its body") }

        func resolveProfile(into resolved: inout ResolvedProfile) throws {
            // The branch taken is part of the identity of the profile it resolves to.
            switch branch {
            case .trueContent(let content):
                resolved.path.append("true")
                defer { resolved.path.removeLast() }
                try content.resolveProfile(into: &resolved)
            case .falseContent(let content):
                resolved.path.append("false")
                defer { resolved.path.removeLast() }
                try content.resolveProfile(into: &resolved)
            }
        }
    }

    /// A type-erased dynamic profile.
    ///
    /// The wrapped profile's body is still evaluated at each request.
    public struct AnyDynamicProfile: LanguageModelSession.DynamicProfile, PrimitiveDynamicProfile {
        private let base: any LanguageModelSession.DynamicProfile

        /// Creates an instance from the dynamic profile you specify.
        ///
        /// - Parameter dynamicProfile: The dynamic profile.
        public init(_ dynamicProfile: any LanguageModelSession.DynamicProfile) {
            if let erased = dynamicProfile as? AnyDynamicProfile { self = erased } else { base = dynamicProfile }
        }

        /// Creates an instance from the dynamic profile you specify.
        ///
        /// - Parameter dynamicProfile: The dynamic profile.
        public init(erasing dynamicProfile: some LanguageModelSession.DynamicProfile) {
            self.init(dynamicProfile)
        }

        /// Never evaluated: the wrapped profile is evaluated instead.
        public var body: Never { preconditionFailure("AnyDynamicProfile is primitive; Pocket never asks for its body") }

        func resolveProfile(into resolved: inout ResolvedProfile) throws {
            try base.resolveProfile(into: &resolved)
        }
    }
}
