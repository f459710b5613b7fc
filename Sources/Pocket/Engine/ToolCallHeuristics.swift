import PocketTokenizer

extension SystemLanguageModel {
    /// The rules that keep a small model's tool use on track (a Pocket addition).
    ///
    /// Models of a few hundred million parameters use tools in ways a grammar alone does not
    /// fix: they drop the template's call tags and write the call's JSON as the reply, and after
    /// a tool's output they often call the same tool again instead of answering. Each rule here
    /// answers one of those habits, measured on SmolLM2-135M and Qwen2.5-0.5B; a larger model
    /// that follows its template can turn them off (``none``). They apply only to templates
    /// with a native tool format (Qwen's `<tool_call>`), where these habits were seen.
    public struct ToolCallHeuristics: Sendable, Equatable {
        /// A reply that opens like a call's JSON (`{`, any whitespace, `"name"`) without the
        /// template's opening tag is a call, so its JSON never reaches the user as the answer.
        public var recognizesUntaggedCalls: Bool

        /// After a tool's output, a reply that opens as an untagged call is the model looping:
        /// the reply is generated again as an answer (nothing of it was shown yet).
        public var answersInsteadOfUntaggedCallsAfterToolOutput: Bool

        /// When a reply may not call (the model repeated a call it has the output of), tokens
        /// containing `{`, `<` or a backtick are banned: what a call dumped as text (JSON, XML,
        /// a code fence) is made of.
        public var bansCallTextInForcedAnswers: Bool

        /// When a reply may not call, its first token is a whole word of the latest tool
        /// outputs, so the answer starts from what the tools returned.
        public var groundsForcedAnswersInToolOutputs: Bool

        /// Creates a set of rules.
        public init(
            recognizesUntaggedCalls: Bool, answersInsteadOfUntaggedCallsAfterToolOutput: Bool,
            bansCallTextInForcedAnswers: Bool, groundsForcedAnswersInToolOutputs: Bool
        ) {
            self.recognizesUntaggedCalls = recognizesUntaggedCalls
            self.answersInsteadOfUntaggedCallsAfterToolOutput = answersInsteadOfUntaggedCallsAfterToolOutput
            self.bansCallTextInForcedAnswers = bansCallTextInForcedAnswers
            self.groundsForcedAnswersInToolOutputs = groundsForcedAnswersInToolOutputs
        }

        /// Every rule on: the default, for the small models Pocket ships with.
        public static let smallModels = ToolCallHeuristics(
            recognizesUntaggedCalls: true, answersInsteadOfUntaggedCallsAfterToolOutput: true,
            bansCallTextInForcedAnswers: true, groundsForcedAnswersInToolOutputs: true)

        /// No rule: the model's replies are taken as its template says.
        public static let none = ToolCallHeuristics(
            recognizesUntaggedCalls: false, answersInsteadOfUntaggedCallsAfterToolOutput: false,
            bansCallTextInForcedAnswers: false, groundsForcedAnswersInToolOutputs: false)
    }
}

extension SystemLanguageModel.ToolCallHeuristics {
    /// Whether `text` (leading whitespace already dropped) opens like an untagged call:
    /// `.yes` once it reads `{` then `"name"` (with any JSON whitespace between), `.maybe`
    /// while it is still a prefix of that, `.no` otherwise.
    static func opensUntaggedCall(_ text: Substring) -> Decision {
        // Bytes, not characters: "\r\n" is one Character.
        let bytes = text.utf8
        guard let first = bytes.first else { return .maybe }
        guard first == UInt8(ascii: "{") else { return .no }
        let rest = bytes.dropFirst().drop(while: { [0x20, 0x0A, 0x0D, 0x09].contains($0) })
        let key = #""name""#.utf8
        if rest.starts(with: key) { return .yes }
        return key.starts(with: rest) ? .maybe : .no
    }

    /// A three-way answer for text that is still arriving.
    enum Decision {
        case yes, maybe, no
    }

    /// Tokens containing `{`, `<` or a backtick (never special tokens): what
    /// ``bansCallTextInForcedAnswers`` bans.
    static func callTextTokens(_ tokenizer: Tokenizer) -> [Int] {
        let banned: Set<UInt8> = [UInt8(ascii: "{"), UInt8(ascii: "`"), UInt8(ascii: "<")]
        return (0..<tokenizer.vocabularySize).filter { id in
            !tokenizer.isSpecial(id) && tokenizer.bytes(of: id).contains(where: banned.contains)
        }
    }

    /// Tokens that are a whole word of `outputs` (with or without a leading space), or `nil`
    /// when there are none: what ``groundsForcedAnswersInToolOutputs`` allows first.
    static func groundedFirstTokens(_ outputs: [String], _ tokenizer: Tokenizer) -> Set<Int>? {
        let words = Set(outputs.flatMap { $0.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map { Array($0.utf8) } })
        guard !words.isEmpty else { return nil }
        var allowed: Set<Int> = []
        for id in 0..<tokenizer.vocabularySize where !tokenizer.isSpecial(id) {
            var bytes = tokenizer.bytes(of: id)[...]
            if bytes.first == 0x20 { bytes = bytes.dropFirst() }
            guard !bytes.isEmpty, bytes.count <= 24 else { continue }
            if words.contains(where: { $0.elementsEqual(bytes) }) { allowed.insert(id) }
        }
        return allowed.isEmpty ? nil : allowed
    }
}
