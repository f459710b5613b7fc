import Foundation
import PocketGrammar
import PocketTokenizer
import PocketTransformer

/// A session's state on a GGUF model: a transformer whose KV cache holds the tokens of the
/// conversation so far.
///
/// Every request renders the whole conversation and evaluates only what differs from the
/// cached tokens (the longest common prefix is kept). A follow-up turn therefore prefills only
/// its new messages; a session restored from a transcript, or one whose last request failed,
/// rebuilds or repairs its cache on the next request without any bookkeeping.
final class TransformerContext {
    private let model: SystemLanguageModel.Loaded
    private let transformer: Transformer
    /// The tokens whose keys and values are in the cache, in order.
    private var cached: [Int] = []
    /// The grammar's view of the vocabulary (special tokens are never part of values).
    private lazy var vocabulary = Vocabulary(
        tokens: (0..<model.tokenizer.vocabularySize).map {
            model.tokenizer.isSpecial($0) ? [] : model.tokenizer.bytes(of: $0)
        },
        endOfGeneration: model.tokenizer.endOfGenerationTokens)
    /// Tokens containing `{`, `<` or a backtick: what a tool call dumped as an answer (JSON,
    /// XML, a code fence) is made of.
    private lazy var braceTokens: [Int] = (0..<model.tokenizer.vocabularySize).filter { id in
        let bytes = model.tokenizer.bytes(of: id)
        return !model.tokenizer.isSpecial(id)
            && (bytes.contains(UInt8(ascii: "{")) || bytes.contains(UInt8(ascii: "`")) || bytes.contains(UInt8(ascii: "<")))
    }

    /// Tokens that are a whole word of the latest tool outputs (with or without a leading
    /// space), or `nil` when there are none.
    private func groundedFirstTokens(_ messages: [RenderedMessage]) -> Set<Int>? {
        let outputs = messages.reversed().prefix { $0.role == .tool }.map(\.content)
        let words = Set(outputs.flatMap { $0.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { Array($0.utf8) } })
        guard !words.isEmpty else { return nil }
        var allowed: Set<Int> = []
        for id in 0..<model.tokenizer.vocabularySize where !model.tokenizer.isSpecial(id) {
            var bytes = model.tokenizer.bytes(of: id)[...]
            if bytes.first == 0x20 { bytes = bytes.dropFirst() }
            guard !bytes.isEmpty, bytes.count <= 24 else { continue }
            if words.contains(where: { $0.elementsEqual(bytes) }) { allowed.insert(id) }
        }
        return allowed.isEmpty ? nil : allowed
    }

    /// Compiled grammars of tool-call schemas, by schema text (sessions reuse them across turns).
    private var grammars: [String: CompiledGrammar] = [:]
    /// Compiled grammars of answer schemas (sessions reuse one schema across turns).
    private var schemaGrammars: [GrammarSchema: CompiledGrammar] = [:]

    init(model: SystemLanguageModel.Loaded, contextSize: Int) throws {
        self.model = model
        transformer = try Transformer(file: model.file, contextLength: contextSize)
    }

    /// How the model's chat template renders requests.
    private var rendering: ChatRendering { model.rendering }

    func tokenCount(of request: RenderedRequest) -> Int {
        rendering.tokens(request, addGenerationPrompt: true).count
    }

    func prefill(_ request: RenderedRequest) throws {
        _ = try extend(to: rendering.tokens(request, addGenerationPrompt: false), needsLogits: false)
    }

    /// Makes the cache hold exactly `target`, evaluating only the part after the common prefix.
    /// Returns the logits of the last token (when asked) and how many tokens were reused.
    private func extend(to target: [Int], needsLogits: Bool) throws -> (logits: [Float], reused: Int) {
        guard target.count <= transformer.contextLength else {
            throw TransformerContextError.contextFull(needed: target.count, capacity: transformer.contextLength)
        }
        var common = 0
        let limit = min(cached.count, target.count)
        while common < limit && cached[common] == target[common] { common += 1 }
        // The last token must be evaluated again to get its logits.
        if needsLogits && common == target.count { common -= 1 }
        common = max(0, common)
        transformer.truncate(to: common)
        cached.removeSubrange(common...)
        var logits: [Float] = []
        let rest = Array(target[common...])
        if !rest.isEmpty {
            do {
                try transformer.evaluate(rest, logits: needsLogits ? .last : .none) { _, row in logits = Array(row) }
            } catch {
                // A cancelled prefill leaves some batches in the cache; forget them.
                transformer.truncate(to: common)
                throw error
            }
            cached += rest
        }
        return (logits, common)
    }

    /// The compiled grammar of the tool-call schema `schema` (JSON Schema text); `whitespace`
    /// lets calls keep the spacing of the template's `tojson` (`{"name": "f", "arguments": {…}}`),
    /// which small models follow.
    private func grammar(for schema: String, whitespace: CompiledGrammar.Whitespace = .compact) throws -> CompiledGrammar {
        let key = whitespace == .compact ? schema : "ws:" + schema
        if let grammar = grammars[key] { return grammar }
        do {
            // Schemas here come from GenerationSchema: guide patterns match whole strings (Apple's
            // `@Guide(.pattern)`), unlike JSON Schema's searching `pattern`.
            let grammar = try CompiledGrammar(
                JSONSchemaImport.schema(fromJSON: schema, patterns: .wholeString), whitespace: whitespace)
            grammars[key] = grammar
            return grammar
        } catch {
            throw LanguageModelSession.GenerationError.unsupportedGuide(.init(
                debugDescription: "the schema cannot be enforced by the grammar sampler: \(error)"))
        }
    }

    /// The compiled grammar of an answer's schema, lowered straight to the grammar's schema.
    private func grammar(for schema: GenerationSchema) throws -> CompiledGrammar {
        do {
            let lowered = try schema.grammarSchema()
            if let grammar = schemaGrammars[lowered] { return grammar }
            let grammar = try CompiledGrammar(lowered)
            schemaGrammars[lowered] = grammar
            return grammar
        } catch {
            throw LanguageModelSession.GenerationError.unsupportedGuide(.init(
                debugDescription: "the schema cannot be enforced by the grammar sampler: \(error)"))
        }
    }

    func generate(_ request: RenderedRequest, onText: (String) throws -> Void) throws -> RenderedReply {
        do {
            return try generate(request, breakingLoop: false, onText: onText)
        } catch is BareCallAfterToolOutput {
            // Nothing was shown yet (the reply was undecided); answer instead.
            return try generate(request, breakingLoop: true, onText: onText)
        }
    }

    /// Thrown when a reply after tool outputs opens like a bare call.
    private struct BareCallAfterToolOutput: Error {}

    private func generate(
        _ request: RenderedRequest, breakingLoop: Bool, onText: (String) throws -> Void
    ) throws -> RenderedReply {
        let started = ContinuousClock.now
        let tokenizer = model.tokenizer
        let prompt = rendering.tokens(request, addGenerationPrompt: true)
        let (logits, reused) = try extend(to: prompt, needsLogits: true)
        var usage = Usage(inputTokens: prompt.count - reused, cachedTokens: reused)

        let (temperature, topK, topP, seed) = request.options.resolved
        let penalty = request.options.resolvedPenalty
        let sampling = SamplingParameters(temperature: temperature, topK: topK, topP: topP, seed: seed)
        var sampler = Sampler(sampling)
        var constrained: ConstrainedDecoding?
        if let schema = request.schema {
            constrained = ConstrainedDecoding(grammar: try grammar(for: schema), vocabulary: vocabulary, sampling: sampling)
        }
        // The reply is an answer or a tool call. Free text decides by its first characters
        // (does it start with the opener?); a structured answer decides at its first token,
        // which may be the schema's or the opener's.
        let opener = rendering.callOpener
        let nativeOpener = model.template.nativeTools.flatMap { tokenizer.specialToken($0.callOpener) }
        let openerTokens = nativeOpener.map { [$0] } ?? tokenizer.encode(opener)
        let callsAllowed = !request.tools.isEmpty && request.allowsToolCalls && !breakingLoop
        var toolState: ToolState = !callsAllowed ? .answer : request.schema == nil ? .undecided : .firstToken
        // Small native models loop on tools: after a tool output they write the call again,
        // as bare JSON, instead of answering. A model that repeated a call it has the output of
        // (the session then sets `allowsToolCalls = false`), or that opens a bare call after a
        // tool output (tagged calls still work there), gets an answer-only reply: it may not
        // contain `{`, `<` or backticks (no call dumped as text), and its first word is one of the
        // tool outputs' words, so it starts from what the tools returned.
        let followsToolOutput = request.messages.last?.role == .tool
        let breaksLoop = nativeOpener != nil && request.schema == nil && !request.tools.isEmpty && !callsAllowed
        let bannedTokens = breaksLoop ? braceTokens : []
        let firstTokens = breaksLoop ? groundedFirstTokens(request.messages) : nil
        // Small native models often write the call's JSON without its tags; with tools
        // offered, a reply that opens like a call is one.
        let bareCall: String? = nativeOpener == nil ? nil : "{\"name\""
        let maximum = request.options.maximumResponseTokens ?? Int.max
        var detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
        var text = ""
        var callText = ""
        /// Tokens to evaluate after the sampled one, without sampling (the rest of an opener).
        var forced: [Int] = []
        let stopTokens = tokenizer.endOfGenerationTokens

        /// Switches to a tool call: what follows is constrained to the call schema.
        func beginCall(after: String) throws {
            toolState = .call
            let callGrammar = try grammar(for: rendering.callSchema(request.tools), whitespace: nativeOpener == nil ? .compact : .bounded(maximumRun: 1))
            var matcher = GrammarMatcher(grammar: callGrammar, vocabulary: vocabulary)
            guard matcher.accept(bytes: Array(after.utf8)) else {
                throw TransformerContextError.decodingFailure("a tool call began with '\(after)'")
            }
            callText = after
            // Native templates put the call's JSON on its own line.
            if nativeOpener != nil && after.isEmpty { forced += tokenizer.encode("\n") }
            constrained = ConstrainedDecoding(matcher: matcher, sampling: sampling)
        }

        func emit(_ piece: String) throws {
            guard !piece.isEmpty else { return }
            switch toolState {
            case .answer, .firstToken:
                text += piece
                try onText(piece)
            case .call:
                callText += piece
            case .undecided:
                text += piece
                let trimmed = text.drop(while: \.isWhitespace)
                if trimmed.hasPrefix(opener) {
                    let after = String(trimmed.dropFirst(opener.count))
                    text = ""
                    try beginCall(after: after)
                } else if let bareCall, trimmed.hasPrefix(bareCall) {
                    if followsToolOutput { throw BareCallAfterToolOutput() }
                    let call = String(trimmed)
                    text = ""
                    try beginCall(after: call)
                } else if !opener.hasPrefix(String(trimmed)) && bareCall?.hasPrefix(String(trimmed)) != true {
                    toolState = .answer
                    try onText(text)
                }
            }
        }

        let statistics = try transformer.decode(
            from: logits, startedAt: started, maximumTokens: maximum, stopTokens: stopTokens, penalty: penalty,
            choose: { buffer, generated in
                // A native opener is a call only where a call may begin.
                if let nativeOpener, toolState != .undecided && toolState != .firstToken { buffer[nativeOpener] = -.infinity }
                for t in bannedTokens { buffer[t] = -.infinity }
                if generated.isEmpty, let firstTokens {
                    for i in buffer.indices where !firstTokens.contains(i) { buffer[i] = -.infinity }
                }
                let logits = UnsafeBufferPointer(buffer)
                if toolState == .firstToken, var c = constrained {
                    // The schema's first tokens, or the opener's.
                    let token = c.next(logits, orAlternative: openerTokens[0], using: &sampler)
                    if token == openerTokens[0] {
                        forced = Array(openerTokens.dropFirst())
                        try beginCall(after: "")
                    } else {
                        constrained = c
                        toolState = .answer
                    }
                    return token
                } else if var c = constrained {
                    let token = c.next(logits)
                    constrained = c
                    return token
                }
                return sampler.sample(logits)
            },
            next: { token in
                // The opener's own text is not part of a call: a structured reply that chose it
                // has already switched.
                if !(toolState == .call && token == openerTokens[0] && callText.isEmpty) {
                    try emit(detokenizer.append(token))
                } else {
                    _ = detokenizer.append(token)
                }
                if let c = constrained, c.isComplete { return .stop(.stoppedByCaller) }
                let step = [token] + forced
                forced = []
                guard transformer.position + step.count <= transformer.contextLength else {
                    throw TransformerContextError.contextFull(needed: transformer.position + step.count, capacity: transformer.contextLength)
                }
                return .feed(step)
            },
            evaluated: { cached += $0 })
        usage.outputTokens = statistics.generatedTokens
        usage.timeToFirstToken = .seconds(statistics.promptSeconds)
        try emit(detokenizer.finish())
        if toolState == .undecided {
            toolState = .answer
            try onText(text)
        }
        if let c = constrained, !c.canEnd {
            throw TransformerContextError.decodingFailure(
                "the response reached \(usage.outputTokens) tokens (maximumResponseTokens) before the \(toolState == .call ? "tool call" : "structured value") was complete")
        }
        usage.tokensPerSecond = statistics.generationTokensPerSecond
        return RenderedReply(text: toolState == .call ? callText : text, isToolCall: toolState == .call, usage: usage)
    }

    /// Where a reply stands between answering and calling a tool.
    private enum ToolState {
        /// A free-text reply whose first characters may still open a call.
        case undecided
        /// A structured reply before its first token, which may open a call instead.
        case firstToken
        case answer
        case call
    }
}
