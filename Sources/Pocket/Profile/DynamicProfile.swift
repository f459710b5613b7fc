extension LanguageModelSession {
    /// A dynamic profile that contains one or more profiles, as in Apple's FoundationModels
    /// (iOS/macOS 27).
    ///
    /// A dynamic profile decides which ``LanguageModelSession/Profile`` is active, and with
    /// which configuration (model, temperature, reasoning level, hooks, …). The session
    /// evaluates the body before every request, so the profile can follow the app's state —
    /// typically read through ``LanguageModelSession/SessionProperty``:
    ///
    /// ```swift
    /// struct TutorProfile: LanguageModelSession.DynamicProfile {
    ///     @SessionProperty(\.isExamMode) var isExamMode
    ///
    ///     var body: some LanguageModelSession.DynamicProfile {
    ///         if isExamMode {
    ///             Profile { Instructions("Ask one question at a time. Never give the answer.") }
    ///                 .temperature(0.2)
    ///         } else {
    ///             Profile { Instructions("Explain step by step.") ; SearchNotesTool() }
    ///                 .temperature(0.7)
    ///         }
    ///     }
    /// }
    ///
    /// let session = LanguageModelSession(profile: TutorProfile())
    /// ```
    ///
    /// A body must resolve to a single profile. Modifiers compose: where two set the same value,
    /// the one closest to the `Profile` wins; hooks and history transforms all apply, the
    /// outermost first.
    public protocol DynamicProfile {
        /// The type of dynamic profile that represents this profile.
        associatedtype Body: LanguageModelSession.DynamicProfile

        /// The content of the dynamic profile.
        @LanguageModelSession.DynamicProfileBuilder var body: Body { get }
    }
}

extension LanguageModelSession.DynamicProfile {
    /// The profile type that a dynamic profile activates.
    public typealias Profile = LanguageModelSession.Profile

    /// A property wrapper that provides access to a session property from within a dynamic profile.
    public typealias SessionProperty = LanguageModelSession.SessionProperty
}

/// `Never` is the body of the primitive profiles (``LanguageModelSession/Profile``, modified and
/// erased profiles), which Pocket evaluates without asking for a body.
extension Never: LanguageModelSession.DynamicProfile {}

/// A profile evaluation that did not end in exactly one ``LanguageModelSession/Profile``
/// (a Pocket addition: Apple's documentation only says a body must resolve to one).
///
/// A request of a session whose profile resolves to none (for example, a custom
/// ``LanguageModelSession/DynamicProfileModifier`` whose body drops its `content`) throws this.
public struct DynamicProfileResolutionError: Error, CustomStringConvertible, Sendable {
    /// What was wrong.
    public let description: String
}

/// One evaluation of a dynamic profile: the active profile's instructions and everything its
/// modifiers set.
struct ResolvedProfile {
    /// A hook without arguments (`onResponse`, `onToolOutput`, `onReasoning`).
    struct Hook: @unchecked Sendable {
        // `@unchecked`: Apple's hooks take `sending` closures; the session calls each from the
        // one request that evaluated it, never concurrently with itself.
        let action: () async throws -> Void
    }
    /// A hook that receives a tool call.
    struct ToolCallHook: @unchecked Sendable {
        let action: (Transcript.ToolCall) async throws -> Void
    }
    /// A history transform.
    struct HistoryTransform: @unchecked Sendable {
        let transform: ([Transcript.Entry]) -> [Transcript.Entry]
    }

    /// An activation hook (`onActivate`, `onDeactivate`), which cannot throw.
    struct ActivationHook: @unchecked Sendable {
        let action: () async -> Void
    }

    /// The active profile's dynamic instructions (`nil` until a profile is reached).
    var instructions: AnyDynamicInstructions?
    /// How many profiles the evaluation reached.
    var profileCount = 0
    /// Where the evaluation is in the body: the custom profile types it went through and the
    /// branches it took.
    var path: [String] = []
    /// The active profile's identity: ``path`` where the evaluation reached it. A request whose
    /// identity differs from the previous request's activates another profile.
    var identity = ""
    var model: (any LanguageModel)?
    var samplingMode: GenerationOptions.SamplingMode?
    var temperature: Double?
    var reasoningLevel: ContextOptions.ReasoningLevel?
    var maximumResponseTokens: Int?
    var toolCallingMode: GenerationOptions.ToolCallingMode?
    var transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
    /// Applied in order (outermost first) to the history the model sees.
    var historyTransforms: [HistoryTransform] = []
    var onResponse: [Hook] = []
    var onPrompt: [Hook] = []
    var onActivate: [ActivationHook] = []
    var onDeactivate: [ActivationHook] = []
    var onToolCall: [ToolCallHook] = []
    var onToolOutput: [Hook] = []
    var onReasoning: [Hook] = []

    /// `history` through every transform, outermost first.
    func transformedHistory(_ history: [Transcript.Entry]) -> [Transcript.Entry] {
        historyTransforms.reduce(history) { entries, step in step.transform(entries) }
    }

    /// `options` with the profile's values filling what the caller left `nil`.
    func generationOptions(over options: GenerationOptions) -> GenerationOptions {
        var options = options
        options.samplingMode = options.samplingMode ?? samplingMode
        options.temperature = options.temperature ?? temperature
        options.maximumResponseTokens = options.maximumResponseTokens ?? maximumResponseTokens
        options.toolCallingMode = options.toolCallingMode ?? toolCallingMode
        return options
    }
}

/// A profile type Pocket evaluates itself instead of through its `body`.
protocol PrimitiveDynamicProfile {
    /// Adds this profile's part to `resolved`, outermost first.
    func resolveProfile(into resolved: inout ResolvedProfile) throws
}

extension LanguageModelSession.DynamicProfile {
    /// Evaluates the body (recursively) into `resolved`.
    func resolveProfile(into resolved: inout ResolvedProfile) throws {
        if let primitive = self as? any PrimitiveDynamicProfile {
            try primitive.resolveProfile(into: &resolved)
        } else {
            // A custom profile type is part of the identity of the profile it resolves to.
            resolved.path.append(String(reflecting: Self.self))
            defer { resolved.path.removeLast() }
            try body.resolveProfile(into: &resolved)
        }
    }

    /// One evaluation of the profile.
    ///
    /// - Throws: ``DynamicProfileResolutionError`` when the evaluation reaches no profile or
    ///   more than one.
    func resolvedProfile() throws -> ResolvedProfile {
        var resolved = ResolvedProfile()
        try resolveProfile(into: &resolved)
        guard resolved.profileCount == 1 else {
            throw DynamicProfileResolutionError(description: resolved.profileCount == 0
                ? "the dynamic profile \(type(of: self)) resolved to no Profile; its body must end in exactly one"
                : "the dynamic profile \(type(of: self)) resolved to \(resolved.profileCount) profiles; its body must end in exactly one")
        }
        return resolved
    }
}
