import Foundation

// The initializers of sessions driven by dynamic profiles and dynamic instructions (Apple's
// FoundationModels, iOS/macOS 27), and how a request evaluates its profile (called by
// `LanguageModelSession.run`, which also runs the hooks).

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
        self.init(model: { SystemLanguageModel.default }, profile: AnyDynamicProfile(erasing: profile), history: Array(history))
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
        self.init(model: { model }, profile: AnyDynamicProfile(erasing: Profile { instructions }), history: Array(history))
    }

    /// What one request runs with: the session's own model, tools and transcript, or what its
    /// profile's evaluation for this request chose.
    struct RequestSetup {
        var model: any LanguageModel
        var tools: [any Tool]
        var guardrails: SystemLanguageModel.Guardrails
        /// The tools the model is offered.
        var definitions: [Transcript.ToolDefinition]
        /// What the model reads before the request's own entries.
        var base: [Transcript.Entry]
        /// The evaluated instructions entry to store (`.none` for a session without a profile).
        var instructions: Transcript.Entry??
        /// The profile's evaluation, for a profile session.
        var profile: ResolvedProfile?
    }

    /// Evaluates the profile, if any, for a request that starts from `transcript`.
    ///
    /// - Throws: ``DynamicProfileResolutionError`` when the profile resolves to no profile.
    func requestSetup(for transcript: Transcript) throws -> RequestSetup {
        guard let profile else {
            return RequestSetup(
                model: model, tools: tools, guardrails: guardrails, definitions: Self.toolDefinitions(in: transcript),
                base: Array(transcript), instructions: .none, profile: nil)
        }
        let resolved = try profile.resolvedProfile()
        let content = resolved.instructions?.resolved() ?? ResolvedDynamicInstructions()
        let model = resolved.model ?? self.model
        let instructions = Self.instructionsEntry(for: content, replacing: transcript.entries.first)
        let definitions: [Transcript.ToolDefinition]
        if case .instructions(let entry) = instructions { definitions = entry.toolDefinitions } else { definitions = [] }
        let history = resolved.transformedHistory(SessionPropertyValues.history(of: transcript))
        return RequestSetup(
            model: model, tools: content.tools, guardrails: (model as? SystemLanguageModel)?.guardrails ?? .default,
            definitions: definitions, base: (instructions.map { [$0] } ?? []) + history,
            instructions: .some(instructions), profile: resolved)
    }

    /// The instructions entry of an evaluation of dynamic instructions (`nil` when it has
    /// neither text nor tools); it keeps the identifier of `previous` when that is an
    /// instructions entry.
    static func instructionsEntry(for content: ResolvedDynamicInstructions, replacing previous: Transcript.Entry?) -> Transcript.Entry? {
        // A tool whose arguments' schema cannot be resolved is left out, as for any session.
        let definitions = content.tools.map { Transcript.ToolDefinition(tool: $0) }.filter { $0.parametersError == nil }
        let text = content.text
        guard !text.isEmpty || !definitions.isEmpty else { return nil }
        let segments: [Transcript.Segment] = text.isEmpty ? [] : [.text(.init(content: text))]
        if case .instructions(let old) = previous {
            // An unchanged evaluation leaves the entry as it was (segment identifiers included).
            let oldText = old.segments.map { segment -> String in if case .text(let t) = segment { t.content } else { "" } }
            if oldText == segments.map({ _ in text }) && old.toolDefinitions == definitions { return previous }
            return .instructions(.init(id: old.id, segments: segments, toolDefinitions: definitions))
        }
        return .instructions(.init(segments: segments, toolDefinitions: definitions))
    }
}
