import Foundation
import PocketGrammar
import PocketTokenizer
import PocketTransformer

/// A session's state on a GGUF model: the conversation's ``PrefixCache``, the grammars its
/// requests compiled, and the model's ``SystemLanguageModel/ToolCallHeuristics``.
///
/// A request is rendered to tokens (``ChatRendering``), the cache is extended to them, and the
/// reply is decoded with a ``ReplyRouter`` choosing each token.
final class TransformerContext {
    private let model: SystemLanguageModel.Loaded
    private let cache: PrefixCache
    private let heuristics: SystemLanguageModel.ToolCallHeuristics
    private let shortcuts: SystemLanguageModel.DecodingShortcuts
    /// The grammar's view of the vocabulary (special tokens are never part of values).
    private lazy var vocabulary = Vocabulary(
        tokens: (0..<model.tokenizer.vocabularySize).map {
            model.tokenizer.isSpecial($0) ? [] : model.tokenizer.bytes(of: $0)
        },
        endOfGeneration: model.tokenizer.endOfGenerationTokens)
    /// What ``SystemLanguageModel/ToolCallHeuristics/bansCallTextInForcedAnswers`` bans.
    private lazy var callTextTokens = SystemLanguageModel.ToolCallHeuristics.callTextTokens(model.tokenizer)
    /// Compiled grammars, by schema (sessions reuse their tools and schemas across turns).
    private var grammars: [GrammarKey: CompiledGrammar] = [:]

    private struct GrammarKey: Hashable {
        let schema: GrammarSchema
        let whitespace: CompiledGrammar.Whitespace
    }

    /// Whitespace a call may have between its JSON tokens: whatever a model pretty-printing the
    /// call writes (a newline and indentation after `{`), bounded so that it cannot pad forever.
    static let callWhitespace = CompiledGrammar.Whitespace.bounded(maximumRun: 256)

    init(
        model: SystemLanguageModel.Loaded, contextSize: Int, heuristics: SystemLanguageModel.ToolCallHeuristics,
        shortcuts: SystemLanguageModel.DecodingShortcuts = .default
    ) throws {
        self.model = model
        self.heuristics = heuristics
        self.shortcuts = shortcuts
        cache = PrefixCache(transformer: try Transformer(file: model.file, contextLength: contextSize))
    }

    /// How the model's chat template renders requests.
    private var rendering: ChatRendering { model.rendering }

    func tokenCount(of request: RenderedRequest) -> Int {
        rendering.tokens(request, addGenerationPrompt: true).count
    }

    func prefill(_ request: RenderedRequest) throws {
        _ = try cache.extend(to: rendering.tokens(request, addGenerationPrompt: false), needsLogits: false)
    }

    /// `schema` compiled, once per session.
    ///
    /// - Throws: ``LanguageModelSession/GenerationError/unsupportedGuide(_:)`` when the grammar
    ///   sampler cannot enforce it.
    private func grammar(_ schema: () throws -> GrammarSchema, whitespace: CompiledGrammar.Whitespace = .compact) throws -> CompiledGrammar {
        do {
            let key = GrammarKey(schema: try schema(), whitespace: whitespace)
            if let grammar = grammars[key] { return grammar }
            let grammar = try CompiledGrammar(key.schema, whitespace: whitespace)
            grammars[key] = grammar
            return grammar
        } catch {
            throw LanguageModelError.unsupportedGenerationGuide(.init(
                debugDescription: "the schema cannot be enforced by the grammar sampler: \(error)"))
        }
    }

    /// Generates the reply to `request`, passing answer text to `onText` and the reasoning of a
    /// template's thinking section to `onReasoning` as they are decoded, with the number of tokens
    /// each piece is made of.
    func generate(
        _ request: RenderedRequest, onText: (String, Int) throws -> Void, onReasoning: (String, Int) throws -> Void = { _, _ in }
    ) throws -> RenderedReply {
        do {
            return try generate(request, answerOnly: false, onText: onText, onReasoning: onReasoning)
        } catch is ReplyRouter.UntaggedCallAfterToolOutput {
            // Nothing of the answer was shown yet (the reply was undecided); answer instead. The
            // reasoning before the untagged call was shown: the retry's, the same request thought
            // over, is not shown a second time.
            return try generate(request, answerOnly: true, onText: onText, onReasoning: { _, _ in })
        }
    }

    /// The rules of `request`'s reply: what it may be, and which heuristics apply.
    private func rules(_ request: RenderedRequest, answerOnly: Bool) -> ReplyRouter.Rules {
        let tokenizer = model.tokenizer
        let nativeOpener = model.template.nativeTools.flatMap { tokenizer.specialToken($0.callOpener) }
        let mode = request.options.toolCallingMode?.kind ?? .allowed
        // A forced answer: tools are offered but the session asks for an answer (the model
        // repeated a call, or opened an untagged one after a tool's output).
        let forcedAnswer = !request.tools.isEmpty && (!request.allowsToolCalls || answerOnly)
        let callsAllowed = !request.tools.isEmpty && !forcedAnswer && mode != .disallowed
        var rules = ReplyRouter.Rules(callOpener: rendering.callOpener, nativeOpener: nativeOpener, callsAllowed: callsAllowed)
        rules.callsRequired = callsAllowed && mode == .required
        rules.batchesForcedTokens = shortcuts.batchesForcedTokens
        rules.maximumTokens = request.options.maximumResponseTokens ?? Int.max
        if rendering.callsAreBareJSON {
            // Llama 3.1's calls are JSON objects with no opener: `{` … `"name"` is the format itself.
            rules.callsAreBareJSON = true
            rules.recognizesUntaggedCalls = true
        }
        if let budget = rendering.reasoningBudget(request)?.capped(byMaximumResponseTokens: request.options.maximumResponseTokens),
           budget.thinks, let format = model.template.thinking {
            rules.thinking = .init(
                closer: format.closer,
                closerTokens: tokenizer.specialToken(format.closer).map { [$0] } ?? tokenizer.encode(format.closer),
                separatorTokens: tokenizer.encode(format.separator), budget: budget.tokens)
        }
        // The heuristics answer habits of small models with a native tool format.
        guard nativeOpener != nil else { return rules }
        rules.recognizesUntaggedCalls = heuristics.recognizesUntaggedCalls
        rules.restartsOnUntaggedCall = heuristics.answersInsteadOfUntaggedCallsAfterToolOutput
            && request.messages.last?.role == .tool && !rules.callsRequired
        if request.schema == nil && forcedAnswer {
            if heuristics.bansCallTextInForcedAnswers { rules.bannedTokens = callTextTokens }
            if heuristics.groundsForcedAnswersInToolOutputs {
                let outputs = request.messages.reversed().prefix { $0.role == .tool }.map(\.content)
                rules.firstTokens = SystemLanguageModel.ToolCallHeuristics.groundedFirstTokens(outputs, tokenizer)
            }
        }
        return rules
    }

    private func generate(
        _ request: RenderedRequest, answerOnly: Bool, onText: (String, Int) throws -> Void, onReasoning: (String, Int) throws -> Void
    ) throws -> RenderedReply {
        let started = ContinuousClock.now
        let prompt = rendering.tokens(request, addGenerationPrompt: true)
        let (logits, reused) = try cache.extend(to: prompt, needsLogits: true)
        var usage = Usage(inputTokens: prompt.count - reused, cachedTokens: reused)

        let (temperature, topK, topP, seed) = request.options.resolved
        let sampling = SamplingParameters(temperature: temperature, topK: topK, topP: topP, seed: seed)
        let answerGrammar = try request.schema.map { schema in try grammar { try schema.grammarSchema() } }
        let rendering = self.rendering
        var router = ReplyRouter(
            rules: rules(request, answerOnly: answerOnly), tokenizer: model.tokenizer, vocabulary: vocabulary, sampling: sampling,
            answerGrammar: answerGrammar,
            callGrammar: { [unowned self] in try grammar({ try rendering.callSchema(request.tools) }, whitespace: Self.callWhitespace) })

        let statistics = try cache.transformer.decode(
            from: logits, startedAt: started, maximumTokens: request.options.maximumResponseTokens ?? Int.max,
            stopTokens: model.tokenizer.endOfGenerationTokens, penalty: request.options.resolvedPenalty,
            lookup: shortcuts.promptLookupDraftLength > 0
                ? PromptLookup(context: prompt, maximumDraft: shortcuts.promptLookupDraftLength) : nil,
            choose: { buffer, generated in try router.choose(buffer, generated: generated.count) },
            next: { token in
                guard let step = try router.accept(token, onText: onText, onReasoning: onReasoning) else { return .stop(.stoppedByCaller) }
                guard cache.fits(step.count) else {
                    throw TransformerContextError.contextFull(needed: cache.transformer.position + step.count, capacity: cache.capacity)
                }
                return .feed(step)
            },
            evaluated: { cache.append($0) })
        usage.outputTokens = statistics.generatedTokens
        usage.timeToFirstToken = .seconds(statistics.promptSeconds)
        usage.tokensPerSecond = statistics.generationTokensPerSecond
        usage.draftedTokens = statistics.draftedTokens
        usage.acceptedDraftTokens = statistics.acceptedDraftTokens
        let reply = try router.finish(generatedTokens: statistics.generatedTokens, onText: onText, onReasoning: onReasoning)
        return RenderedReply(
            text: reply.text, isToolCall: reply.isToolCall, reasoning: router.reasoning, reasoningTokens: router.reasoningTokens, usage: usage)
    }
}
