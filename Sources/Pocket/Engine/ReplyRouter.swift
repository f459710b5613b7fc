import PocketGrammar
import PocketTokenizer
import PocketTransformer

/// Decides, token by token, whether a reply is an answer or a tool call, and holds each to its
/// grammar: the model's half of a request, apart from the transformer that produces the logits.
///
/// A reply starts in one of two states and ends as an answer or a call:
///
///     undecided  ── text opens with the call opener, or an untagged call ──▶ call
///         │      ── text can no longer open a call ─────────────────────▶ answer
///     firstToken ── the opener's token ──────────────────────────────────▶ call
///                ── a token of the answer's schema ────────────────────────▶ answer
///
/// Free text is *undecided* while its first characters may still open a call (the opener, or
/// with ``SystemLanguageModel/ToolCallHeuristics/recognizesUntaggedCalls`` `{` and `"name"`
/// with any JSON whitespace between): nothing is shown until it is decided, so a call never
/// reaches the caller as answer text. A structured answer decides at its *first token*, which
/// is the schema's or the opener's. A call's text is held to the call grammar (the tools' names
/// and argument schemas) and returned whole; an answer's text is passed on as it arrives.
///
/// The router never sees the transformer: ``choose(_:generated:)`` picks a token from logits,
/// ``accept(_:onText:)`` takes it and says what to evaluate next, ``finish(generatedTokens:onText:)``
/// ends the reply. Tests drive it with scripted logits.
struct ReplyRouter {
    /// Where a reply stands.
    enum State: Equatable {
        /// Free text whose first characters may still open a call.
        case undecided
        /// A structured reply before its first token, which may open a call instead.
        case firstToken
        /// An answer: free text, or the schema's value.
        case answer
        /// A tool call.
        case call
    }

    /// What a request allows, and the heuristics that apply to it.
    struct Rules {
        /// The text that opens a call (the native opener, or Pocket's marker).
        var callOpener: String
        /// The opener as one special token, for templates with a native tool format.
        var nativeOpener: Int?
        /// Whether the reply may be a call.
        var callsAllowed: Bool
        /// Whether the reply must be a call (`ToolCallingMode.required`): it opens with the
        /// opener whatever the logits say.
        var callsRequired = false
        /// Whether `{` … `"name"` without the opener is a call.
        var recognizesUntaggedCalls = false
        /// Whether an untagged call ends the reply with ``UntaggedCallAfterToolOutput`` (the
        /// model is looping after a tool's output; the caller then asks for an answer).
        var restartsOnUntaggedCall = false
        /// Tokens never chosen.
        var bannedTokens: [Int] = []
        /// The only tokens allowed first, if limited.
        var firstTokens: Set<Int>? = nil
    }

    /// Thrown by ``accept(_:onText:)`` when a reply after a tool's output opens as an untagged
    /// call and ``Rules/restartsOnUntaggedCall`` is set. Nothing of the reply was shown.
    struct UntaggedCallAfterToolOutput: Error {}

    /// The reply so far.
    private(set) var state: State
    private let rules: Rules
    private let tokenizer: Tokenizer
    /// The opener's tokens (one for a native opener).
    private let openerTokens: [Int]
    /// Compiles the call grammar when a call begins (most replies never need it).
    private let callGrammar: () throws -> CompiledGrammar
    private let vocabulary: Vocabulary
    private let sampling: SamplingParameters
    private var sampler: Sampler
    /// The grammar the next token must follow: the answer's schema, then a call's.
    private var constrained: ConstrainedDecoding?
    private var detokenizer: StreamingDetokenizer
    /// The answer's text (or the undecided text so far).
    private var text = ""
    /// The call's text.
    private var callText = ""
    /// Tokens to evaluate after the chosen one without choosing (the rest of an opener).
    private var forced: [Int] = []
    /// Tokens accepted since answer text was last passed on (what that text is made of).
    private var unreported = 0

    /// Starts a reply.
    ///
    /// - Parameters:
    ///   - answerGrammar: The answer's schema, or `nil` for free text.
    ///   - callGrammar: The grammar of what follows the opener (compiled only if a call begins).
    init(
        rules: Rules, tokenizer: Tokenizer, vocabulary: Vocabulary, sampling: SamplingParameters,
        answerGrammar: CompiledGrammar?, callGrammar: @escaping () throws -> CompiledGrammar
    ) {
        self.rules = rules
        self.tokenizer = tokenizer
        self.vocabulary = vocabulary
        self.sampling = sampling
        self.callGrammar = callGrammar
        sampler = Sampler(sampling)
        detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
        openerTokens = rules.nativeOpener.map { [$0] } ?? tokenizer.encode(rules.callOpener)
        constrained = answerGrammar.map { ConstrainedDecoding(grammar: $0, vocabulary: vocabulary, sampling: sampling) }
        state = !rules.callsAllowed ? .answer : answerGrammar == nil ? .undecided : .firstToken
    }

    /// Chooses the next token from `logits` (which it may change: bans, masks).
    ///
    /// - Parameter generated: How many tokens the reply has so far.
    mutating func choose(_ logits: UnsafeMutableBufferPointer<Float>, generated: Int) throws -> Int {
        // A native opener is a call only where a call may begin.
        if let opener = rules.nativeOpener, state == .answer || state == .call { logits[opener] = -.infinity }
        for t in rules.bannedTokens { logits[t] = -.infinity }
        if generated == 0, let first = rules.firstTokens {
            for i in logits.indices where !first.contains(i) { logits[i] = -.infinity }
        }
        let scores = UnsafeBufferPointer(logits)
        if generated == 0 && rules.callsRequired && (state == .undecided || state == .firstToken) {
            forced = Array(openerTokens.dropFirst())
            try beginCall(after: "")
            return openerTokens[0]
        }
        if state == .firstToken, var c = constrained {
            // The schema's first token, or the opener's.
            let token = c.next(scores, orAlternative: openerTokens[0], using: &sampler)
            if token == openerTokens[0] {
                forced = Array(openerTokens.dropFirst())
                try beginCall(after: "")
            } else {
                constrained = c
                state = .answer
            }
            return token
        }
        if var c = constrained {
            let token = c.next(scores)
            constrained = c
            return token
        }
        return sampler.sample(scores)
    }

    /// Takes the chosen token (not a stop token): passes answer text on to `onText` (with the
    /// number of tokens it is made of) and returns the tokens to evaluate next, or `nil` when the
    /// reply is complete (its grammar allows nothing more).
    mutating func accept(_ token: Int, onText: (String, Int) throws -> Void) throws -> [Int]? {
        unreported += 1
        let piece = detokenizer.append(token)
        // The opener's own text is not part of a call (a structured reply that chose it has
        // already switched).
        if !(state == .call && token == openerTokens[0] && callText.isEmpty) {
            try emit(piece, onText: onText)
        }
        if let c = constrained, c.isComplete { return nil }
        defer { forced = [] }
        return [token] + forced
    }

    /// Ends the reply: the answer's text or the call's JSON.
    ///
    /// - Parameter generatedTokens: The reply's length, for the error of a cut-off value.
    /// - Throws: ``TransformerContextError/decodingFailure(_:)`` when a structured value or a
    ///   call is incomplete.
    mutating func finish(generatedTokens: Int, onText: (String, Int) throws -> Void) throws -> (text: String, isToolCall: Bool) {
        try emit(detokenizer.finish(), onText: onText)
        if state == .undecided {
            state = .answer
            try pass(text, onText)
        }
        if let c = constrained, !c.canEnd {
            throw TransformerContextError.decodingFailure(
                "the response reached \(generatedTokens) tokens (maximumResponseTokens) before the \(state == .call ? "tool call" : "structured value") was complete")
        }
        return state == .call ? (callText, true) : (text, false)
    }

    /// Passes answer text on, with the tokens accepted since the last.
    private mutating func pass(_ text: String, _ onText: (String, Int) throws -> Void) throws {
        defer { unreported = 0 }
        try onText(text, unreported)
    }

    /// Adds decoded text to the reply, deciding an undecided one when its start allows.
    private mutating func emit(_ piece: String, onText: (String, Int) throws -> Void) throws {
        guard !piece.isEmpty else { return }
        switch state {
        case .answer, .firstToken:
            text += piece
            try pass(piece, onText)
        case .call:
            callText += piece
        case .undecided:
            text += piece
            let start = text.drop(while: \.isWhitespace)
            let untagged = rules.recognizesUntaggedCalls
                ? SystemLanguageModel.ToolCallHeuristics.opensUntaggedCall(start) : .no
            if start.hasPrefix(rules.callOpener) {
                let after = String(start.dropFirst(rules.callOpener.count))
                text = ""
                try beginCall(after: after)
            } else if untagged == .yes {
                if rules.restartsOnUntaggedCall { throw UntaggedCallAfterToolOutput() }
                let call = String(start)
                text = ""
                try beginCall(after: call)
            } else if !rules.callOpener.hasPrefix(String(start)) && untagged == .no {
                state = .answer
                try pass(text, onText)
            }
        }
    }

    /// Switches to a tool call whose text so far is `after`: what follows is held to the call
    /// grammar.
    private mutating func beginCall(after: String) throws {
        state = .call
        var matcher = GrammarMatcher(grammar: try callGrammar(), vocabulary: vocabulary)
        guard matcher.accept(bytes: Array(after.utf8)) else {
            throw TransformerContextError.decodingFailure("a tool call began with '\(after)'")
        }
        callText = after
        // Native templates put the call's JSON on its own line.
        if rules.nativeOpener != nil && after.isEmpty { forced += tokenizer.encode("\n") }
        constrained = ConstrainedDecoding(matcher: matcher, sampling: sampling)
    }
}
