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
final class TransformerContext: LanguageModelContext {
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
    /// Compiled grammars by schema text (sessions reuse one schema across turns).
    private var grammars: [String: CompiledGrammar] = [:]

    init(model: SystemLanguageModel.Loaded, contextSize: Int) throws {
        self.model = model
        transformer = try Transformer(file: model.file, contextLength: contextSize)
    }

    /// The conversation as tokens: template markers as special tokens, text never parsed.
    private func tokens(_ messages: [LanguageModelMessage], addGenerationPrompt: Bool) -> [Int] {
        let chat = messages.map { ChatMessage(role: ChatMessage.Role(rawValue: $0.role.rawValue) ?? .user, content: $0.content) }
        return model.template.encode(chat, addGenerationPrompt: addGenerationPrompt, with: model.tokenizer)
    }

    func tokenCount(of messages: [LanguageModelMessage], addGenerationPrompt: Bool) -> Int {
        tokens(messages, addGenerationPrompt: addGenerationPrompt).count
    }

    func prefill(_ messages: [LanguageModelMessage]) throws {
        _ = try extend(to: tokens(messages, addGenerationPrompt: false), needsLogits: false)
    }

    /// Makes the cache hold exactly `target`, evaluating only the part after the common prefix.
    /// Returns the logits of the last token (when asked) and how many tokens were reused.
    private func extend(to target: [Int], needsLogits: Bool) throws -> (logits: [Float], reused: Int) {
        guard target.count <= transformer.contextLength else {
            throw LanguageModelContextError.contextFull(needed: target.count, capacity: transformer.contextLength)
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

    private func grammar(for schema: String) throws -> CompiledGrammar {
        if let grammar = grammars[schema] { return grammar }
        do {
            let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: schema, patterns: .wholeString))  // guide patterns match whole strings
            grammars[schema] = grammar
            return grammar
        } catch {
            throw LanguageModelSession.GenerationError.unsupportedGuide(.init(
                debugDescription: "the schema cannot be enforced by the grammar sampler: \(error)"))
        }
    }

    func generate(_ request: LanguageModelRequest, onText: (String) throws -> Void) throws -> LanguageModelReply {
        let clock = ContinuousClock()
        let started = clock.now
        let prompt = tokens(request.messages, addGenerationPrompt: true)
        var (logits, reused) = try extend(to: prompt, needsLogits: true)
        var usage = Usage(inputTokens: prompt.count - reused, cachedTokens: reused)

        let (temperature, topK, topP, seed) = request.options.resolved
        var sampler = Sampler(SamplingParameters(temperature: temperature, topK: topK, topP: topP, seed: seed))
        let constrainedParameters = ConstrainedSampler.Parameters(temperature: temperature, topK: topK, topP: topP, seed: seed)
        var constrained: (matcher: GrammarMatcher, sampler: ConstrainedSampler)?
        if let schema = request.schema {
            constrained = (GrammarMatcher(grammar: try grammar(for: schema), vocabulary: vocabulary),
                           ConstrainedSampler(constrainedParameters))
        }
        // Tool calls: free text until the reply shows whether it starts with the marker.
        var toolState: ToolState = request.toolCalls == nil || request.schema != nil ? .answer : .undecided
        let maximum = request.options.maximumResponseTokens ?? Int.max
        var detokenizer = StreamingDetokenizer(tokenizer: model.tokenizer)
        var text = ""
        var callText = ""
        var decodeStart = clock.now
        let stopTokens = model.tokenizer.endOfGenerationTokens

        func emit(_ piece: String) throws {
            guard !piece.isEmpty else { return }
            switch toolState {
            case .answer:
                text += piece
                try onText(piece)
            case .call:
                callText += piece
            case .undecided:
                text += piece
                let format = request.toolCalls!
                let trimmed = text.drop(while: \.isWhitespace)
                if trimmed.hasPrefix(format.marker) {
                    toolState = .call
                    let after = String(trimmed.dropFirst(format.marker.count))
                    text = ""
                    var matcher = GrammarMatcher(grammar: try grammar(for: format.schema), vocabulary: vocabulary)
                    guard matcher.accept(bytes: Array(after.utf8)) else {
                        throw LanguageModelContextError.decodingFailure("a tool call began with '\(after)'")
                    }
                    callText = after
                    constrained = (matcher, ConstrainedSampler(constrainedParameters))
                } else if !format.marker.hasPrefix(String(trimmed)) {
                    toolState = .answer
                    try onText(text)
                }
            }
        }

        while usage.outputTokens < maximum {
            try Task.checkCancellation()
            let token: Int
            if var c = constrained {
                token = logits.withUnsafeMutableBufferPointer { c.sampler.sample(logits: $0, matcher: &c.matcher) }
                constrained = c
            } else {
                token = sampler.sample(logits)
            }
            usage.outputTokens += 1
            if usage.outputTokens == 1 {
                decodeStart = clock.now
                usage.timeToFirstToken = decodeStart - started
            }
            if stopTokens.contains(token) { break }
            try emit(detokenizer.append(token))
            if let c = constrained, c.matcher.isComplete { break }
            guard transformer.position < transformer.contextLength else {
                throw LanguageModelContextError.contextFull(needed: transformer.position + 1, capacity: transformer.contextLength)
            }
            logits = try transformer.evaluate([token])
            cached.append(token)
        }
        try emit(detokenizer.finish())
        if toolState == .undecided {
            toolState = .answer
            try onText(text)
        }
        if let c = constrained, !c.matcher.canEnd {
            throw LanguageModelContextError.decodingFailure(
                "the response reached \(usage.outputTokens) tokens (maximumResponseTokens) before the structured value was complete")
        }
        let seconds = (clock.now - decodeStart)
        let s = Double(seconds.components.seconds) + Double(seconds.components.attoseconds) * 1e-18
        usage.tokensPerSecond = s > 0 && usage.outputTokens > 1 ? Double(usage.outputTokens - 1) / s : 0
        return LanguageModelReply(text: toolState == .call ? callText : text, isToolCall: toolState == .call, usage: usage)
    }

    private enum ToolState { case undecided, answer, call }
}
