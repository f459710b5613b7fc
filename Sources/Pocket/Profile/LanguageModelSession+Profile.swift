// The initializers of sessions driven by dynamic profiles and dynamic instructions (Apple's
// FoundationModels, iOS/macOS 27). How a request evaluates the profile is in
// `LanguageModelSession.run`.

extension LanguageModelSession {
    /// Creates a session with a profile.
    ///
    /// The profile is evaluated before every request: its active ``Profile``'s instructions and
    /// tools, model, options, hooks and history transforms apply to that request. The
    /// transcript's instructions entry shows the latest evaluation.
    ///
    /// ```swift
    /// let session = LanguageModelSession(profile: TutorProfile())
    /// session.properties.isExamMode = true
    /// let answer = try await session.respond(to: "Quiz me on fractions.")
    /// ```
    ///
    /// - Parameters:
    ///   - profile: The profile to use for this session.
    ///   - history: Transcript entries without the initial instructions, since that's defined
    ///     by the profile (a leading instructions entry is dropped).
    public convenience init(
        profile: sending some LanguageModelSession.DynamicProfile, history: some Collection<Transcript.Entry> = []
    ) {
        self.init(model: SystemLanguageModel.default, profile: AnyDynamicProfile(erasing: profile), history: Array(history))
    }

    /// Creates a session with dynamic instructions, evaluated before every request.
    ///
    /// - Parameters:
    ///   - model: The model.
    ///   - dynamicInstructions: The instructions to use for this session.
    ///   - history: Transcript entries without the initial instructions (a leading instructions
    ///     entry is dropped).
    public convenience init(
        model: some LanguageModel = SystemLanguageModel.default, dynamicInstructions: sending some DynamicInstructions,
        history: some Collection<Transcript.Entry> = []
    ) {
        let instructions = AnyDynamicInstructions(erasing: dynamicInstructions)
        self.init(model: model, profile: AnyDynamicProfile(erasing: Profile { instructions }), history: Array(history))
    }
}
