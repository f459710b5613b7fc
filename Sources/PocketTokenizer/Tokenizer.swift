import PocketGGUF

/// A tokenizer built from GGUF metadata: byte-level BPE (`tokenizer.ggml.model = gpt2`) or
/// SentencePiece (`tokenizer.ggml.model = llama`, as llama.cpp's "SPM" tokenizer: Llama 2,
/// Gemma).
///
/// Byte-level BPE splits text with the model's ``PreTokenizer``, then merges byte pairs by rank
/// within each piece (``BytePairMerges``). SentencePiece merges characters by the score of the
/// merged piece, with `<0xNN>` byte tokens for characters the vocabulary lacks
/// (``SentencePieceMerges``).
///
/// Control tokens (`<|im_start|>`, `<start_of_turn>`) are only recognized when the caller asks
/// for it with `parseSpecial: true`; plain user text is always encoded as ordinary tokens, so it
/// can never forge a chat-template marker. User-defined tokens follow the same rule for
/// byte-level BPE; for SentencePiece they are matched in all text, as llama.cpp does, because
/// SentencePiece vocabularies use them for ordinary text (Gemma's runs of spaces, tabs and
/// newlines, and HTML tags such as `<code>`), which their models were trained to see.
///
/// ```swift
/// let tokenizer = try Tokenizer(gguf: file)
/// let ids = tokenizer.encode("Hello world")               // [19556, 905]
/// let text = tokenizer.decode(ids)                         // "Hello world"
/// ```
public final class Tokenizer: Sendable {
    /// Kinds of vocabulary entry (`tokenizer.ggml.token_type`).
    public enum TokenType: Int, Sendable {
        case undefined = 0, normal = 1, unknown = 2, control = 3, userDefined = 4, unused = 5, byte = 6
    }

    /// Number of entries in the vocabulary.
    public var vocabularySize: Int { tokenBytes.count }
    /// The pre-tokenizer in use (byte-level BPE; SentencePiece does not pre-tokenize and
    /// reports `.gpt2`, the `default`).
    public let preTokenizer: PreTokenizer
    /// Beginning-of-sequence token, if the vocabulary has one.
    public let bosToken: Int?
    /// End-of-sequence token, if the vocabulary has one.
    public let eosToken: Int?
    /// End-of-turn token (`tokenizer.ggml.eot_token_id`), if declared.
    public let endOfTurnToken: Int?
    /// Whether the model expects a BOS token before a prompt (`tokenizer.ggml.add_bos_token`;
    /// when the key is absent, `false` for byte-level BPE and `true` for SentencePiece, as llama.cpp).
    /// ``encode(_:parseSpecial:)`` never adds it; callers that build prompts do.
    public let addsBOS: Bool
    /// Tokens that end generation: EOS, EOT, and control tokens that end a turn
    /// (`<|im_end|>`, `<|eot_id|>`, `<|eom_id|>`, `<end_of_turn>`, `<|endoftext|>`).
    public let endOfGenerationTokens: Set<Int>
    /// Whether SentencePiece encoding writes a space before text at the start and after each
    /// special token, and decoding drops it again from the first token
    /// (`tokenizer.ggml.add_space_prefix`; llama.cpp's default `true` when the key is absent).
    /// Always `false` for byte-level BPE.
    public let addsSpacePrefix: Bool

    /// How text becomes tokens: the two families differ in everything after special-token
    /// matching. An enum rather than an existential so each hot loop is direct code.
    private enum Algorithm: Sendable {
        case bytePair(BytePairMerges)
        case sentencePiece(SentencePieceMerges)
    }

    private let algorithm: Algorithm
    /// What each token decodes to.
    private let tokenBytes: [[UInt8]]
    private let tokenTypes: [TokenType]
    /// Byte-level BPE: token of each byte sequence (empty for SentencePiece).
    private let idForBytes: ByteSequenceTable
    /// Byte-level BPE: token of each single byte, or -1 (empty for SentencePiece).
    private let byteTokens: [Int32]
    /// Control and user-defined tokens, matched with `parseSpecial: true`.
    private let specialTokens: SpecialTokenMatcher
    /// Tokens matched in all text, `parseSpecial` or not: SentencePiece's user-defined ones.
    private let textTokens: SpecialTokenMatcher
    private let ignoresMerges: Bool
    /// Stands in for a byte that has no token (`tokenizer.ggml.unknown_token_id`).
    private let unknownToken: Int?

    /// Builds the tokenizer of a GGUF model.
    ///
    /// A `tokenizer.ggml.*` key that is present must have its expected type (a mistyped key
    /// is an error, never a default), and every `tokenizer.ggml.*_token_id` key (BOS, EOS,
    /// padding, …) must be an id inside the vocabulary.
    ///
    /// - Throws: ``TokenizerError`` when the metadata is missing, inconsistent or describes a
    ///   tokenizer Pocket does not implement; ``TokenizerError/invalidMetadata(key:found:expected:)``
    ///   names a mistyped key or an out-of-range token id.
    public convenience init(gguf file: GGUFFile) throws(TokenizerError) {
        let m = file.metadata
        func read<T>(_ key: String, _ expected: String, _ accessor: (String) throws(GGUFError) -> T?) throws(TokenizerError) -> T? {
            do { return try accessor(key) } catch {
                throw .invalidMetadata(key: key, found: m[key]?.summary ?? "absent", expected: expected)
            }
        }
        let model = try read("tokenizer.ggml.model", "a string", m.optionalString) ?? "gpt2"
        guard model == "gpt2" || model == "llama" else { throw .unsupportedModel(model) }
        guard let tokens = try read("tokenizer.ggml.tokens", "an array of strings", m.optionalStrings) else {
            throw .missingMetadata("tokenizer.ggml.tokens")
        }
        let types = try read("tokenizer.ggml.token_type", "an array of integers", m.optionalIntegers)
            ?? [Int](repeating: 1, count: tokens.count)
        for key in m.keys where key.hasPrefix("tokenizer.ggml.") {
            if key.hasSuffix("_token_id") {
                let id = try read(key, "a token id in 0..<\(tokens.count)", m.optionalInteger)
                if let id, !tokens.indices.contains(id) {
                    throw .invalidMetadata(key: key, found: "\(id)", expected: "a token id in 0..<\(tokens.count)")
                }
            } else if key.hasPrefix("tokenizer.ggml.add_") {
                _ = try read(key, "a bool", m.optionalBool)
            }
        }
        if model == "llama" {
            // llama.cpp scores every token 0 when the key is absent.
            let key = "tokenizer.ggml.scores"
            var scores = [Float](repeating: 0, count: tokens.count)
            if let value = m[key] {
                guard let numbers = m.floats(key) else {
                    throw .invalidMetadata(key: key, found: value.summary, expected: "an array of numbers")
                }
                guard numbers.count == tokens.count else {
                    throw .invalidMetadata(key: key, found: "\(numbers.count) scores", expected: "one per token (\(tokens.count))")
                }
                scores = numbers.map { Float($0) }
            }
            try self.init(
                tokens: tokens, tokenTypes: types, scores: scores,
                bosToken: m.integer("tokenizer.ggml.bos_token_id"), eosToken: m.integer("tokenizer.ggml.eos_token_id"),
                endOfTurnToken: m.integer("tokenizer.ggml.eot_token_id"),
                unknownToken: m.integer("tokenizer.ggml.unknown_token_id"),
                addsBOS: m.bool("tokenizer.ggml.add_bos_token") ?? true,
                addsSpacePrefix: m.bool("tokenizer.ggml.add_space_prefix") ?? true)
            return
        }
        guard let merges = try read("tokenizer.ggml.merges", "an array of strings", m.optionalStrings) else {
            throw .missingMetadata("tokenizer.ggml.merges")
        }
        try self.init(
            tokens: tokens, tokenTypes: types, merges: merges,
            preTokenizer: try read("tokenizer.ggml.pre", "a string", m.optionalString) ?? "default",
            bosToken: m.integer("tokenizer.ggml.bos_token_id"), eosToken: m.integer("tokenizer.ggml.eos_token_id"),
            endOfTurnToken: m.integer("tokenizer.ggml.eot_token_id"),
            unknownToken: m.integer("tokenizer.ggml.unknown_token_id"),
            addsBOS: m.bool("tokenizer.ggml.add_bos_token") ?? false)
    }

    /// Builds a tokenizer from its parts.
    ///
    /// - Parameters:
    ///   - tokens: Vocabulary entries in GPT-2's byte-level text form (`"Ġthe"`), or literal
    ///     text for control and user-defined tokens.
    ///   - tokenTypes: One ``TokenType`` raw value per entry.
    ///   - merges: Merge rules `"left right"` in priority order.
    ///   - preTokenizer: A `tokenizer.ggml.pre` name (`smollm`, `llama-bpe`, `qwen2`, `gpt-2`…).
    public init(
        tokens: [String], tokenTypes: [Int], merges: [String], preTokenizer: String,
        bosToken: Int?, eosToken: Int?, endOfTurnToken: Int? = nil, unknownToken: Int? = nil, addsBOS: Bool = false
    ) throws(TokenizerError) {
        let types = try Self.validate(tokens: tokens, tokenTypes: tokenTypes, ids: [
            ("BOS", bosToken), ("EOS", eosToken), ("EOT", endOfTurnToken), ("unknown", unknownToken)])
        guard let style = PreTokenizer(ggufName: preTokenizer) else { throw .unsupportedPreTokenizer(preTokenizer) }
        self.preTokenizer = style
        ignoresMerges = style == .llama3
        self.bosToken = bosToken
        self.eosToken = eosToken
        self.endOfTurnToken = endOfTurnToken
        self.unknownToken = unknownToken
        self.addsBOS = addsBOS
        addsSpacePrefix = false

        var bytes: [[UInt8]] = []
        var idForBytes = ByteSequenceTable(capacity: tokens.count)
        var specials: [(bytes: [UInt8], id: Int)] = []
        bytes.reserveCapacity(tokens.count)
        for (id, token) in tokens.enumerated() {
            let type = types[id]
            if type == .control || type == .userDefined {
                let text = Array(token.utf8)
                bytes.append(text)
                if !text.isEmpty { specials.append((text, id)) }
            } else if let decoded = ByteLevelEncoding.bytes(of: token) {
                bytes.append(decoded)
                decoded.withUnsafeBufferPointer { idForBytes.insertIfAbsent($0, token: id) }
            } else {
                bytes.append(Array(token.utf8))
            }
        }
        // Some vocabularies lack tokens for a few bytes that never occur in text (controls).
        var byteTokens = [Int32](repeating: -1, count: 256)
        for b in 0..<256 {
            if let id = idForBytes.token(of: [UInt8(b)]) { byteTokens[b] = Int32(id) }
        }
        guard byteTokens[Int(UInt8(ascii: "a"))] >= 0, byteTokens[Int(UInt8(ascii: " "))] >= 0 else {
            throw .invalidVocabulary("no tokens for single bytes: not a byte-level vocabulary")
        }
        var table: [UInt64: BytePairMerges.Merge] = [:]
        table.reserveCapacity(merges.count)
        // Each rule's two parts decoded one after the other into one buffer: the parts and
        // their concatenation are then three ranges of it, looked up without allocating.
        var pair = [UInt8](repeating: 0, count: 256)
        for (rank, line) in merges.enumerated() {
            guard let (leftCount, count) = ByteLevelEncoding.decodePair(line, into: &pair) else {
                throw .invalidVocabulary("merge #\(rank) '\(line)' is not two byte-level tokens")
            }
            let ids = pair.withUnsafeBufferPointer { all in
                (idForBytes.token(of: UnsafeBufferPointer(rebasing: all[0..<leftCount])),
                 idForBytes.token(of: UnsafeBufferPointer(rebasing: all[leftCount..<count])),
                 idForBytes.token(of: UnsafeBufferPointer(rebasing: all[0..<count])))
            }
            guard let l = ids.0, let r = ids.1, let result = ids.2 else {
                continue  // a rule whose parts or result are not tokens can never apply
            }
            let key = BytePairMerges.key(Int32(l), Int32(r))
            if table[key] == nil { table[key] = BytePairMerges.Merge(rank: Int32(rank), result: Int32(result)) }
        }
        tokenBytes = bytes
        self.tokenTypes = types
        self.idForBytes = idForBytes
        self.byteTokens = byteTokens
        algorithm = .bytePair(BytePairMerges(rules: table))
        specialTokens = SpecialTokenMatcher(specials)
        textTokens = SpecialTokenMatcher([])
        endOfGenerationTokens = Self.endOfGeneration(tokens: tokens, types: types, eosToken: eosToken, endOfTurnToken: endOfTurnToken)
    }

    /// Builds a SentencePiece tokenizer (llama.cpp's `llama` model) from its parts.
    ///
    /// - Parameters:
    ///   - tokens: Vocabulary entries as stored: spaces written as "▁" (`"▁world"`), bytes as
    ///     `<0xNN>`, control and user-defined tokens as their literal text.
    ///   - tokenTypes: One ``TokenType`` raw value per entry.
    ///   - scores: One score per entry; pieces with higher scores merge first.
    ///   - addsSpacePrefix: Whether text gets a leading space at the start and after each
    ///     special token (`tokenizer.ggml.add_space_prefix`).
    /// - Throws: ``TokenizerError/invalidVocabulary(_:)`` when the arrays disagree in length or a
    ///   token id is outside the vocabulary.
    public init(
        tokens: [String], tokenTypes: [Int], scores: [Float],
        bosToken: Int?, eosToken: Int?, endOfTurnToken: Int? = nil, unknownToken: Int? = nil,
        addsBOS: Bool = true, addsSpacePrefix: Bool = true
    ) throws(TokenizerError) {
        let types = try Self.validate(tokens: tokens, tokenTypes: tokenTypes, ids: [
            ("BOS", bosToken), ("EOS", eosToken), ("EOT", endOfTurnToken), ("unknown", unknownToken)])
        guard scores.count == tokens.count else {
            throw .invalidVocabulary("\(scores.count) scores for \(tokens.count) tokens")
        }
        preTokenizer = .gpt2
        ignoresMerges = false
        self.bosToken = bosToken
        self.eosToken = eosToken
        self.endOfTurnToken = endOfTurnToken
        self.unknownToken = unknownToken
        self.addsBOS = addsBOS
        self.addsSpacePrefix = addsSpacePrefix

        var bytes: [[UInt8]] = []
        var specials: [(bytes: [UInt8], id: Int)] = []
        var userDefined: [(bytes: [UInt8], id: Int)] = []
        bytes.reserveCapacity(tokens.count)
        for (id, token) in tokens.enumerated() {
            switch types[id] {
            case .control, .userDefined:
                // Rendered literally: llama.cpp does not turn "▁" back into a space in them.
                let text = Array(token.utf8)
                bytes.append(text)
                specials.append((text, id))
                if types[id] == .userDefined { userDefined.append((text, id)) }
            case .unknown:
                bytes.append(Array(token.utf8))
            case .byte:
                bytes.append(SentencePieceMerges.byteValue(of: token).map { [$0] } ?? Array(token.utf8))
            case .normal, .unused, .undefined:
                bytes.append(SentencePieceMerges.unescape(token))
            }
        }
        tokenBytes = bytes
        self.tokenTypes = types
        idForBytes = ByteSequenceTable(capacity: 0)
        byteTokens = []
        algorithm = .sentencePiece(SentencePieceMerges(tokens: tokens, types: types, scores: scores, unknownToken: unknownToken))
        specialTokens = SpecialTokenMatcher(specials)
        textTokens = SpecialTokenMatcher(userDefined)
        endOfGenerationTokens = Self.endOfGeneration(tokens: tokens, types: types, eosToken: eosToken, endOfTurnToken: endOfTurnToken)
    }

    /// The checks both families share: a non-empty vocabulary, one type per token, token ids
    /// inside it. Returns the types (an unknown raw value counts as normal).
    private static func validate(
        tokens: [String], tokenTypes: [Int], ids: [(name: String, id: Int?)]
    ) throws(TokenizerError) -> [TokenType] {
        guard !tokens.isEmpty, tokens.count < Int(Int32.max) else { throw .invalidVocabulary("\(tokens.count) tokens") }
        guard tokenTypes.count == tokens.count else {
            throw .invalidVocabulary("\(tokenTypes.count) token types for \(tokens.count) tokens")
        }
        for (name, id) in ids {
            if let id, !tokens.indices.contains(id) { throw .invalidVocabulary("\(name) token id \(id) out of range") }
        }
        return tokenTypes.map { TokenType(rawValue: $0) ?? .normal }
    }

    /// EOS, EOT, and the control tokens that end a turn in known chat formats (Gemma's
    /// `<end_of_turn>` has no `eot_token_id` key: llama.cpp finds it by name too).
    private static func endOfGeneration(tokens: [String], types: [TokenType], eosToken: Int?, endOfTurnToken: Int?) -> Set<Int> {
        var endOfGeneration = Set([eosToken, endOfTurnToken].compactMap { $0 })
        let turnEnders: Set<String> = ["<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<end_of_turn>", "<|endoftext|>", "<|end|>"]
        for (id, token) in tokens.enumerated() where types[id] == .control && turnEnders.contains(token) {
            endOfGeneration.insert(id)
        }
        return endOfGeneration
    }

    /// `ids` as the start of a sequence: with BOS in front when the model expects it
    /// (``addsBOS`` and a ``bosToken``), as llama.cpp tokenizes prompts and texts by default;
    /// unchanged otherwise (SmolLM2, Qwen).
    ///
    /// ```swift
    /// tokenizer.startingSequence(tokenizer.encode("Hello"))   // Gemma: [2, …]; SmolLM2: no BOS
    /// ```
    public func startingSequence(_ ids: [Int]) -> [Int] {
        guard addsBOS, let bosToken else { return ids }
        return [bosToken] + ids
    }

    /// The token ids of `text`.
    ///
    /// - Parameters:
    ///   - text: The text to encode. No BOS or EOS is added.
    ///   - parseSpecial: Whether special-token strings in `text` (such as `<|im_start|>`) become
    ///     their single ids. Leave `false` for anything a user or tool wrote: the strings are
    ///     then split like any other text (SentencePiece still matches user-defined tokens,
    ///     which are ordinary text there; see the type's documentation).
    ///
    /// - Complexity: O(n log n) in the length of the longest pre-token (byte-level BPE) or of
    ///   the longest run between special tokens (SentencePiece), linear otherwise.
    public func encode(_ text: String, parseSpecial: Bool = false) -> [Int] {
        encode(text, parseSpecial: parseSpecial, mergingByRescanning: false)
    }

    /// ``encode(_:parseSpecial:)`` with a choice of merge algorithm: `mergingByRescanning`
    /// uses the quadratic reference (``BytePairMerges/applyByRescanning(to:)``,
    /// ``SentencePieceMerges/encodeByRescanning(_:spacePrefix:into:)``), for tests.
    func encode(_ text: String, parseSpecial: Bool, mergingByRescanning: Bool) -> [Int] {
        var ids: [Int] = []
        ids.reserveCapacity(text.utf8.count / 3)
        switch algorithm {
        case .bytePair(let merges):
            var scratch: BytePairMerges.Scratch? = mergingByRescanning ? nil : BytePairMerges.Scratch()
            guard parseSpecial, !specialTokens.isEmpty else {
                encodeText(text, merges: merges, into: &ids, scratch: &scratch)
                return ids
            }
            specialTokens.split(Array(text.utf8), text: { fragment in
                encodeText(String(decoding: fragment, as: UTF8.self), merges: merges, into: &ids, scratch: &scratch)
            }, token: { ids.append($0) })
        case .sentencePiece(let pieces):
            var scratch = SentencePieceMerges.Scratch()
            // llama.cpp writes a space before the first fragment and before every fragment that
            // follows a special token (user-defined ones included).
            var afterSpecial = true
            (parseSpecial ? specialTokens : textTokens).split(Array(text.utf8), text: { fragment in
                let prefix = addsSpacePrefix && afterSpecial
                if mergingByRescanning {
                    pieces.encodeByRescanning(fragment, spacePrefix: prefix, into: &ids)
                } else {
                    pieces.encode(fragment, spacePrefix: prefix, into: &ids, scratch: &scratch)
                }
                afterSpecial = false
            }, token: { id in
                ids.append(id)
                afterSpecial = true
            })
        }
        return ids
    }

    /// Pre-tokenizes and byte-pair encodes text that contains no special tokens; without
    /// `scratch`, with the quadratic reference merge.
    private func encodeText(_ text: String, merges: BytePairMerges, into ids: inout [Int], scratch: inout BytePairMerges.Scratch?) {
        var symbols: [Int32] = []
        for piece in preTokenizer.split(text) {
            let bytes = Array(String(piece).utf8)
            if ignoresMerges, let id = idForBytes.token(of: bytes) {
                ids.append(id)
                continue
            }
            symbols.removeAll(keepingCapacity: true)
            for b in bytes { symbols.append(byteTokens[Int(b)]) }
            if scratch != nil {
                merges.apply(to: &symbols, scratch: &scratch!)
            } else {
                merges.applyByRescanning(to: &symbols)
            }
            for s in symbols {
                if s >= 0 { ids.append(Int(s)) } else if let unknownToken { ids.append(unknownToken) }
            }
        }
    }

    /// The text of `ids`. Invalid UTF-8 (a character cut between tokens) becomes U+FFFD;
    /// special tokens are rendered as their text. With ``addsSpacePrefix``, the space the
    /// encoder wrote before the text is dropped from the first token, as llama.cpp does (not
    /// when that token is BOS: its text has no space to drop).
    public func decode(_ ids: [Int]) -> String {
        var bytes: [UInt8] = []
        for id in ids where tokenBytes.indices.contains(id) { bytes += tokenBytes[id] }
        if addsSpacePrefix, let first = ids.first, tokenBytes.indices.contains(first),
           tokenBytes[first].first == UInt8(ascii: " ") {
            bytes.removeFirst()
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes token `id` stands for (for special tokens, the UTF-8 of their text; for
    /// SentencePiece, "▁" as a space and `<0xNN>` as its byte); empty for an id outside the
    /// vocabulary.
    public func bytes(of id: Int) -> [UInt8] {
        tokenBytes.indices.contains(id) ? tokenBytes[id] : []
    }

    /// The kind of vocabulary entry `id` is.
    public func type(of id: Int) -> TokenType {
        tokenTypes.indices.contains(id) ? tokenTypes[id] : .undefined
    }

    /// Whether `id` is a control or user-defined token (one that plain text never produces).
    public func isSpecial(_ id: Int) -> Bool {
        let type = type(of: id)
        return type == .control || type == .userDefined
    }

    /// The id of the special token whose text is exactly `text`, such as `"<|im_start|>"`.
    public func specialToken(_ text: String) -> Int? {
        specialTokens.id(of: Array(text.utf8))
    }
}
