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
/// A format whose calls have no opener (Llama 3.1's bare `{"name": …, "parameters": …}`,
/// ``Rules/callsAreBareJSON``) opens a call only with `{` and `"name"`.
///
/// A reasoning reply (``Rules/thinking``) starts *thinking*, inside the template's thinking
/// section, which the prompt has opened:
///
///     thinking ── the closer (the model's, or forced) ──▶ the state above
///
/// Its text is reasoning, passed to `onReasoning` and never part of the answer; no grammar
/// applies to it, and a call cannot begin in it. It closes when the model writes the closer (its
/// token, or its text), or when the router writes it: once the model has thought
/// ``Rules/Thinking/budget`` tokens, or when it chooses a stop token while thinking. The
/// separator (`\n\n`) follows the closer, then the answer (or call) begins and the schema, the
/// call grammar and the first-token rules apply from there.
///
/// The router never sees the transformer: ``choose(_:generated:)`` picks a token from logits,
/// ``accept(_:onText:onReasoning:)`` takes it and says what to evaluate next, ``finish(generatedTokens:onText:onReasoning:)``
/// ends the reply. Tests drive it with scripted logits.
struct ReplyRouter {
    /// Where a reply stands.
    enum State: Equatable {
        /// Inside the thinking section: reasoning, under no grammar.
        case thinking
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
        /// Whether a call has no opener: it is a bare JSON object (Llama 3.1's
        /// `{"name": …, "parameters": …}`), recognized by `{` and `"name"`
        /// (``recognizesUntaggedCalls``); ``callOpener`` is then unused. A structured answer
        /// cannot tell such a call from its own first token, so it is only an answer unless
        /// ``callsRequired``.
        var callsAreBareJSON = false
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
        /// The only tokens allowed first, if limited (the answer's first, after any thinking).
        var firstTokens: Set<Int>? = nil
        /// The thinking section the reply opens in (the prompt has opened it), or `nil` when
        /// the reply does not reason.
        var thinking: Thinking? = nil
        /// Whether text the grammar leaves no choice about is appended without choosing it:
        /// the tokens of that text but its last follow the chosen token in the same pass.
        var batchesForcedTokens = false
        /// The most tokens the reply may have (forced text is cut to fit).
        var maximumTokens = Int.max

        /// A reply's thinking section: how it closes, and how long it may be.
        struct Thinking {
            /// The closer's text (`</think>`).
            var closer: String
            /// The closer's tokens: one special token in a vocabulary that has it, else its text's.
            var closerTokens: [Int]
            /// The tokens of what separates the closed section from the answer (`\n\n`).
            var separatorTokens: [Int]
            /// How many tokens the model may think before the router writes the closer.
            var budget: Int
        }
    }

    /// Thrown by ``accept(_:onText:onReasoning:)`` when a reply after a tool's output opens as an untagged
    /// call and ``Rules/restartsOnUntaggedCall`` is set. Nothing of the reply was shown.
    struct UntaggedCallAfterToolOutput: Error {}

    /// The reply so far.
    private(set) var state: State
    private let rules: Rules
    private let tokenizer: Tokenizer
    /// The opener's tokens (one for a native opener, none for a bare JSON call).
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
    /// The state the reply takes when its thinking section closes.
    private let stateAfterThinking: State
    /// The tokens that end a reply (chosen while thinking, they close the section instead).
    private let endOfGeneration: Set<Int>
    /// The reasoning passed on so far.
    private(set) var reasoning = ""
    /// Tokens accepted inside the thinking section, the closer's token excluded: the
    /// reasoning's length, never above the budget.
    private(set) var reasoningTokens = 0
    /// Reasoning text held back: trailing whitespace, and what may be the closer's beginning.
    private var heldThought = ""
    /// Reasoning tokens accepted since reasoning was last passed on.
    private var unreportedThought = 0
    /// Tokens chosen while thinking (the closer's included): the answer starts after them.
    private var chosenWhileThinking = 0
    /// Set when the router chose the closer itself.
    private var closing = false
    /// Whether whitespace at the start of the answer is dropped (after a thinking section).
    private var dropsLeadingWhitespace = false
    /// Tokens of the reply so far: accepted, and forced after them.
    private var replyTokens = 0

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
        openerTokens = rules.callsAreBareJSON ? [] : rules.nativeOpener.map { [$0] } ?? tokenizer.encode(rules.callOpener)
        constrained = answerGrammar.map { ConstrainedDecoding(grammar: $0, vocabulary: vocabulary, sampling: sampling) }
        stateAfterThinking = !rules.callsAllowed ? .answer
            : answerGrammar == nil ? .undecided : rules.callsAreBareJSON ? .answer : .firstToken
        state = rules.thinking == nil ? stateAfterThinking : .thinking
        endOfGeneration = tokenizer.endOfGenerationTokens
    }

    /// Chooses the next token from `logits` (which it may change: bans, masks).
    ///
    /// - Parameter generated: How many tokens the reply has so far.
    mutating func choose(_ logits: UnsafeMutableBufferPointer<Float>, generated: Int) throws -> Int {
        // A native opener is a call only where a call may begin.
        if let opener = rules.nativeOpener, state == .answer || state == .call || state == .thinking { logits[opener] = -.infinity }
        for t in rules.bannedTokens { logits[t] = -.infinity }
        if state == .thinking, let thinking = rules.thinking {
            chosenWhileThinking += 1
            if reasoningTokens < thinking.budget {
                let token = sampler.sample(UnsafeBufferPointer(logits))
                if !endOfGeneration.contains(token) { return token }
            }
            // The budget is spent, or the model would end its reply inside the section.
            closing = true
            forced = Array(thinking.closerTokens.dropFirst()) + thinking.separatorTokens
            return thinking.closerTokens[0]
        }
        let answerStarts = generated - chosenWhileThinking == 0
        if answerStarts, let first = rules.firstTokens {
            for i in logits.indices where !first.contains(i) { logits[i] = -.infinity }
        }
        let scores = UnsafeBufferPointer(logits)
        // (A bare JSON format starts a structured reply as an answer: see `Rules.callsAreBareJSON`.)
        let mayOpenCall = state == .undecided || state == .firstToken || (rules.callsAreBareJSON && state == .answer)
        if answerStarts && rules.callsRequired && mayOpenCall {
            try beginCall(after: "")
            // A bare JSON call is the reply itself: its grammar chooses from the first token (below).
            if let opener = openerTokens.first {
                forced = Array(openerTokens.dropFirst())
                return opener
            }
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

    /// Takes the chosen token (not a stop token): passes answer text on to `onText` and
    /// reasoning to `onReasoning` (each with the number of tokens it is made of) and returns the
    /// tokens to evaluate next, or `nil` when the reply is complete (its grammar allows nothing
    /// more).
    mutating func accept(
        _ token: Int, onText: (String, Int) throws -> Void, onReasoning: (String, Int) throws -> Void = { _, _ in }
    ) throws -> [Int]? {
        defer {
            replyTokens += 1 + forced.count
            forced = []
        }
        if state == .thinking {
            try think(token, onText: onText, onReasoning: onReasoning)
            return [token] + forced
        }
        unreported += 1
        let piece = detokenizer.append(token)
        // The opener's own text is not part of a call (a structured reply that chose it has
        // already switched).
        if !(state == .call && token == openerTokens.first && callText.isEmpty) {
            try emit(piece, onText: onText)
        }
        if let c = constrained, c.isComplete { return nil }
        if forced.isEmpty && rules.batchesForcedTokens { try forceGrammarText(onText: onText) }
        return [token] + forced
    }

    /// Appends the tokens of the text the grammar leaves no choice about to ``forced``, but the
    /// last (``ConstrainedDecoding/acceptForcedTokens(tokenizer:limit:)``), and passes their text on.
    private mutating func forceGrammarText(onText: (String, Int) throws -> Void) throws {
        guard state == .answer || state == .call, var c = constrained else { return }
        let tokens = c.acceptForcedTokens(tokenizer: tokenizer, limit: rules.maximumTokens - replyTokens - 1)
        constrained = c
        for token in tokens {
            forced.append(token)
            unreported += 1
            try emit(detokenizer.append(token), onText: onText)
        }
    }

    /// Ends the reply: the answer's text or the call's JSON.
    ///
    /// - Parameter generatedTokens: The reply's length, for the error of a cut-off value.
    /// - Throws: ``TransformerContextError/decodingFailure(_:)`` when a structured value or a
    ///   call is incomplete.
    mutating func finish(
        generatedTokens: Int, onText: (String, Int) throws -> Void, onReasoning: (String, Int) throws -> Void = { _, _ in }
    ) throws -> (text: String, isToolCall: Bool) {
        if state == .thinking {
            // The reply ran out of tokens inside the section: its reasoning is all there is.
            heldThought += detokenizer.finish()
            try passThought(final: true, onReasoning)
            state = stateAfterThinking
        }
        try emit(detokenizer.finish(), onText: onText)
        if state == .undecided {
            state = .answer
            try pass(text, onText)
        }
        if let c = constrained, !c.canEnd {
            let thought = reasoningTokens > 0 ? ", \(reasoningTokens) of them reasoning," : ""
            throw TransformerContextError.decodingFailure(
                "the response reached \(generatedTokens) tokens\(thought) (maximumResponseTokens) before the \(state == .call ? "tool call" : "structured value") was complete")
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
        var piece = piece
        if dropsLeadingWhitespace && state != .call {
            // The answer after a thinking section starts at its first visible character.
            piece = String(piece.drop(while: \.isWhitespace))
            if !piece.isEmpty { dropsLeadingWhitespace = false }
        }
        guard !piece.isEmpty else { return }
        switch state {
        case .thinking:
            break  // never reached: thinking text goes through `think`
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
            if !rules.callsAreBareJSON && start.hasPrefix(rules.callOpener) {
                let after = String(start.dropFirst(rules.callOpener.count))
                text = ""
                try beginCall(after: after)
            } else if untagged == .yes {
                if rules.restartsOnUntaggedCall { throw UntaggedCallAfterToolOutput() }
                let call = String(start)
                text = ""
                try beginCall(after: call)
            } else if (rules.callsAreBareJSON || !rules.callOpener.hasPrefix(String(start))) && untagged == .no {
                state = .answer
                try pass(text, onText)
            }
        }
    }

    /// Takes a token of the thinking section: reasoning text, or the closer.
    private mutating func think(
        _ token: Int, onText: (String, Int) throws -> Void, onReasoning: (String, Int) throws -> Void
    ) throws {
        guard let thinking = rules.thinking else { return }
        if closing || (thinking.closerTokens.count == 1 && token == thinking.closerTokens[0]) {
            // The closer's token, the router's or the model's: the separator follows.
            if !closing { forced = thinking.separatorTokens }
            closing = false
            heldThought += detokenizer.finish()
            try passThought(final: true, onReasoning)
            endThinking()
            return
        }
        reasoningTokens += 1
        unreportedThought += 1
        heldThought += detokenizer.append(token)
        guard let range = heldThought.firstRange(of: thinking.closer) else {
            return try passThought(final: false, onReasoning)
        }
        // The model wrote the closer as text.
        let after = String(heldThought[range.upperBound...])
        heldThought = String(heldThought[..<range.lowerBound])
        try passThought(final: true, onReasoning)
        endThinking()
        let start = after.drop(while: \.isWhitespace)
        if after.isEmpty {
            forced = thinking.separatorTokens
        } else if !start.isEmpty {
            // Text after the closer in the same token: the answer's beginning.
            if var c = constrained {
                guard c.accept(bytes: Array(start.utf8)) else {
                    throw TransformerContextError.decodingFailure("the reply after its reasoning began with '\(start)', which its schema does not allow")
                }
                constrained = c
                if state == .firstToken { state = .answer }
            }
            unreported = 1
            try emit(String(start), onText: onText)
        }
    }

    /// Passes reasoning on: all of it when the section closes (`final`, trailing whitespace
    /// dropped), else all but what may be the closer's beginning and trailing whitespace.
    private mutating func passThought(final: Bool, _ onReasoning: (String, Int) throws -> Void) throws {
        if reasoning.isEmpty, heldThought.first?.isWhitespace == true {
            heldThought = String(heldThought.drop(while: \.isWhitespace))
        }
        let cut = final
            ? Self.trailingWhitespaceStart(heldThought[...]) : Self.heldSuffixStart(heldThought, closer: rules.thinking?.closer ?? "")
        let piece = String(heldThought[..<cut])
        heldThought = final ? "" : String(heldThought[cut...])
        // At the close, tokens of dropped whitespace are reported without text.
        guard !piece.isEmpty || (final && unreportedThought > 0) else { return }
        reasoning += piece
        defer { unreportedThought = 0 }
        try onReasoning(piece, unreportedThought)
    }

    /// Where `text`'s trailing whitespace starts.
    static func trailingWhitespaceStart(_ text: Substring) -> String.Index {
        var cut = text.endIndex
        while cut > text.startIndex {
            let before = text.index(before: cut)
            guard text[before].isWhitespace else { break }
            cut = before
        }
        return cut
    }

    /// Where the part of `text` that reasoning holds back starts: a suffix that may be the
    /// beginning of `closer`, with the whitespace before it.
    static func heldSuffixStart(_ text: String, closer: String) -> String.Index {
        var end = text.endIndex
        var length = min(closer.count - 1, text.count)
        while length > 0 {
            let start = text.index(text.endIndex, offsetBy: -length)
            if closer.hasPrefix(text[start...]) { end = start; break }
            length -= 1
        }
        return trailingWhitespaceStart(text[..<end])
    }

    /// Leaves the thinking section for the state the reply started in.
    private mutating func endThinking() {
        state = stateAfterThinking
        dropsLeadingWhitespace = true
        unreported = 0
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
