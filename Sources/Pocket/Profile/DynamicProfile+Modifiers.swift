// The built-in profile modifiers. Each sets one value of the evaluation (the one closest to the
// `Profile` wins; `nil` restores the default) or adds a hook or a history transform (all apply,
// the outermost first).

extension LanguageModelSession.DynamicProfile {
    /// Sets the model.
    ///
    /// Switching models between requests keeps each model's executor (and its cache of the
    /// conversation), so switching back continues from what that model had read.
    public func model(_ model: any LanguageModel) -> some LanguageModelSession.DynamicProfile {
        modifier(SettingModifier { $0.model = model })
    }

    /// Sets the sampling mode (a request's own `GenerationOptions.samplingMode`, when set,
    /// takes precedence).
    public func samplingMode(_ samplingMode: GenerationOptions.SamplingMode?) -> some LanguageModelSession.DynamicProfile {
        modifier(SettingModifier { $0.samplingMode = samplingMode })
    }

    /// Sets the model temperature (a request's own `GenerationOptions.temperature`, when set,
    /// takes precedence).
    public func temperature(_ temperature: Double?) -> some LanguageModelSession.DynamicProfile {
        modifier(SettingModifier { $0.temperature = temperature })
    }

    /// Sets the reasoning level (a request's own `ContextOptions.reasoningLevel`, when set,
    /// takes precedence). A level needs a model with the reasoning capability.
    public func reasoningLevel(_ reasoningLevel: ContextOptions.ReasoningLevel?) -> some LanguageModelSession.DynamicProfile {
        modifier(SettingModifier { $0.reasoningLevel = reasoningLevel })
    }

    /// Sets the maximum response tokens (a request's own `GenerationOptions.maximumResponseTokens`,
    /// when set, takes precedence).
    public func maximumResponseTokens(_ maximumResponseTokens: Int?) -> some LanguageModelSession.DynamicProfile {
        modifier(SettingModifier { $0.maximumResponseTokens = maximumResponseTokens })
    }

    /// Sets the tool-calling mode (a request's own `GenerationOptions.toolCallingMode`, when set,
    /// takes precedence).
    public func toolCallingMode(_ toolCallingMode: GenerationOptions.ToolCallingMode?) -> some LanguageModelSession.DynamicProfile {
        modifier(SettingModifier { $0.toolCallingMode = toolCallingMode })
    }

    /// Sets the policy for managing the transcript when errors occur (over the session's
    /// ``LanguageModelSession/transcriptErrorHandlingPolicy``).
    public func transcriptErrorHandlingPolicy(
        _ transcriptErrorHandlingPolicy: TranscriptErrorHandlingPolicy?
    ) -> some LanguageModelSession.DynamicProfile {
        modifier(SettingModifier { $0.transcriptErrorHandlingPolicy = transcriptErrorHandlingPolicy })
    }

    /// Applies a transformation to the history prior to invoking the model.
    ///
    /// The transform receives the conversation before the current request (without the
    /// instructions entry, which the profile defines) and returns what the model reads in its
    /// place; the session's transcript is not changed. The current request's prompt, tool calls
    /// and outputs always follow it.
    ///
    /// ```swift
    /// Profile { Instructions("Be brief.") }
    ///     .historyTransform { Array($0.suffix(20)) }
    /// ```
    public func historyTransform(
        _ transform: @escaping ([Transcript.Entry]) -> [Transcript.Entry]
    ) -> some LanguageModelSession.DynamicProfile {
        let step = ResolvedProfile.HistoryTransform(transform: transform)
        return modifier(SettingModifier { $0.historyTransforms.append(step) })
    }

    /// Runs an action after this dynamic profile produces a response.
    ///
    /// The action runs once the response is in the transcript, before `respond` returns (or a
    /// stream ends). When it throws, the caller's `respond` or `response` propagates that error
    /// (the response stays in the transcript).
    public func onResponse(
        perform action: nonisolated(nonsending) sending @escaping () async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        let hook = ResolvedProfile.Hook(action: action)
        return modifier(SettingModifier { $0.onResponse.append(hook) })
    }

    /// Runs an action before the model is invoked for this dynamic profile.
    ///
    /// The action runs once per request, after the profile is evaluated and before the model's
    /// first round. When it throws, the caller's `respond` or `response` propagates that error
    /// and the model is not invoked.
    public func onPrompt(
        perform action: nonisolated(nonsending) sending @escaping () async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        let hook = ResolvedProfile.Hook(action: action)
        return modifier(SettingModifier { $0.onPrompt.append(hook) })
    }

    /// Runs an action when this dynamic profile becomes active.
    ///
    /// A profile becomes active at the first request whose evaluation reaches it, and again at
    /// the first request that reaches it after one that did not. Pocket tells profiles apart by
    /// where they sit in the body: the custom profile types and `if`/`else` branches that lead
    /// to them.
    public func onActivate(
        perform action: sending @escaping @isolated(any) () async -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        let hook = ResolvedProfile.ActivationHook(action: action)
        return modifier(SettingModifier { $0.onActivate.append(hook) })
    }

    /// Runs an action when this dynamic profile becomes inactive: at the first request whose
    /// evaluation reaches another profile, before that profile's ``onActivate(perform:)``.
    public func onDeactivate(
        perform action: sending @escaping @isolated(any) () async -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        let hook = ResolvedProfile.ActivationHook(action: action)
        return modifier(SettingModifier { $0.onDeactivate.append(hook) })
    }

    /// Runs an action whenever a tool is called within this dynamic profile.
    ///
    /// The action receives each call before the tool runs. When it throws, the caller's
    /// `respond` or `response` propagates that error.
    public func onToolCall(
        perform action: nonisolated(nonsending) sending @escaping (Transcript.ToolCall) async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        let hook = ResolvedProfile.ToolCallHook(action: action)
        return modifier(SettingModifier { $0.onToolCall.append(hook) })
    }

    /// Runs an action whenever a tool is called within this dynamic profile (without the call).
    public func onToolCall(
        perform action: nonisolated(nonsending) sending @escaping () async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        let hook = ResolvedProfile.Hook(action: action)
        return modifier(SettingModifier { resolved in
            resolved.onToolCall.append(ResolvedProfile.ToolCallHook { _ in try await hook.action() })
        })
    }

    /// Runs an action whenever a tool call output is received within this dynamic profile.
    ///
    /// When it throws, the caller's `respond` or `response` propagates that error.
    public func onToolOutput(
        perform action: nonisolated(nonsending) sending @escaping () async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        let hook = ResolvedProfile.Hook(action: action)
        return modifier(SettingModifier { $0.onToolOutput.append(hook) })
    }

    /// Runs an action whenever this dynamic profile produces reasoning (only models with the
    /// reasoning capability produce any).
    ///
    /// When it throws, the caller's `respond` or `response` propagates that error.
    public func onReasoning(
        perform action: nonisolated(nonsending) sending @escaping () async throws -> Void
    ) -> some LanguageModelSession.DynamicProfile {
        let hook = ResolvedProfile.Hook(action: action)
        return modifier(SettingModifier { $0.onReasoning.append(hook) })
    }
}

/// The built-in modifiers: each changes the evaluation with its closure.
struct SettingModifier: LanguageModelSession.DynamicProfileModifier, PrimitiveDynamicProfileModifier {
    let set: (inout ResolvedProfile) -> Void

    /// Never used: the session applies the modifier directly (its content is its body).
    func body(content: Content) -> Content { content }

    func apply(to resolved: inout ResolvedProfile) { set(&resolved) }
}
