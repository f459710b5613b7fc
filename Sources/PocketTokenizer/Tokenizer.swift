import PocketGGUF

/// A byte-level BPE tokenizer (`tokenizer.ggml.model = gpt2`), built from GGUF metadata.
///
/// Encoding splits text with the model's ``PreTokenizer``, then merges byte pairs by rank
/// within each piece. Special tokens (control and user-defined entries such as `<|im_start|>`)
/// are only recognized when the caller asks for it with `parseSpecial: true`; plain user text
/// is always encoded as ordinary tokens, so it can never forge a chat-template marker.
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
    /// The pre-tokenizer in use.
    public let preTokenizer: PreTokenizer
    /// Beginning-of-sequence token, if the vocabulary has one.
    public let bosToken: Int?
    /// End-of-sequence token, if the vocabulary has one.
    public let eosToken: Int?
    /// End-of-turn token (`tokenizer.ggml.eot_token_id`), if declared.
    public let endOfTurnToken: Int?
    /// Whether the model expects a BOS token before a prompt (`tokenizer.ggml.add_bos_token`).
    /// ``encode(_:parseSpecial:)`` never adds it; callers that build prompts do.
    public let addsBOS: Bool
    /// Tokens that end generation: EOS, EOT, and control tokens that end a turn
    /// (`<|im_end|>`, `<|eot_id|>`, `<|eom_id|>`, `<end_of_turn>`, `<|endoftext|>`).
    public let endOfGenerationTokens: Set<Int>

    private let tokenBytes: [[UInt8]]
    private let tokenTypes: [TokenType]
    private let idForBytes: [[UInt8]: Int]
    private let byteTokens: [Int32]
    private let merges: BytePairMerges
    private let specialTokens: [(bytes: [UInt8], id: Int)]
    /// `startsSpecial[b]`: some special token begins with byte `b` (a fast pre-check).
    private let startsSpecial: [Bool]
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
        guard model == "gpt2" else { throw .unsupportedModel(model) }
        guard let tokens = try read("tokenizer.ggml.tokens", "an array of strings", m.optionalStrings) else {
            throw .missingMetadata("tokenizer.ggml.tokens")
        }
        guard let merges = try read("tokenizer.ggml.merges", "an array of strings", m.optionalStrings) else {
            throw .missingMetadata("tokenizer.ggml.merges")
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
        guard !tokens.isEmpty, tokens.count < Int(Int32.max) else { throw .invalidVocabulary("\(tokens.count) tokens") }
        guard tokenTypes.count == tokens.count else {
            throw .invalidVocabulary("\(tokenTypes.count) token types for \(tokens.count) tokens")
        }
        guard let style = PreTokenizer(ggufName: preTokenizer) else { throw .unsupportedPreTokenizer(preTokenizer) }
        self.preTokenizer = style
        ignoresMerges = style == .llama3
        for (name, id) in [("BOS", bosToken), ("EOS", eosToken), ("EOT", endOfTurnToken), ("unknown", unknownToken)] {
            if let id, !tokens.indices.contains(id) { throw .invalidVocabulary("\(name) token id \(id) out of range") }
        }
        self.bosToken = bosToken
        self.eosToken = eosToken
        self.endOfTurnToken = endOfTurnToken
        self.unknownToken = unknownToken
        self.addsBOS = addsBOS

        var bytes: [[UInt8]] = []
        var types: [TokenType] = []
        var idForBytes: [[UInt8]: Int] = [:]
        var specials: [(bytes: [UInt8], id: Int)] = []
        bytes.reserveCapacity(tokens.count)
        idForBytes.reserveCapacity(tokens.count)
        for (id, token) in tokens.enumerated() {
            let type = TokenType(rawValue: tokenTypes[id]) ?? .normal
            types.append(type)
            if type == .control || type == .userDefined {
                let text = Array(token.utf8)
                bytes.append(text)
                if !text.isEmpty { specials.append((text, id)) }
            } else if let decoded = ByteLevelEncoding.bytes(of: token) {
                bytes.append(decoded)
                if idForBytes[decoded] == nil { idForBytes[decoded] = id }
            } else {
                bytes.append(Array(token.utf8))
            }
        }
        // Some vocabularies lack tokens for a few bytes that never occur in text (controls).
        var byteTokens = [Int32](repeating: -1, count: 256)
        for b in 0..<256 {
            if let id = idForBytes[[UInt8(b)]] { byteTokens[b] = Int32(id) }
        }
        guard byteTokens[Int(UInt8(ascii: "a"))] >= 0, byteTokens[Int(UInt8(ascii: " "))] >= 0 else {
            throw .invalidVocabulary("no tokens for single bytes: not a byte-level vocabulary")
        }
        var table: [UInt64: BytePairMerges.Merge] = [:]
        table.reserveCapacity(merges.count)
        for (rank, line) in merges.enumerated() {
            let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let left = ByteLevelEncoding.bytes(of: String(parts[0])),
                  let right = ByteLevelEncoding.bytes(of: String(parts[1])) else {
                throw .invalidVocabulary("merge #\(rank) '\(line)' is not two byte-level tokens")
            }
            guard let l = idForBytes[left], let r = idForBytes[right], let result = idForBytes[left + right] else {
                continue  // a rule whose parts or result are not tokens can never apply
            }
            let key = BytePairMerges.key(Int32(l), Int32(r))
            if table[key] == nil { table[key] = BytePairMerges.Merge(rank: Int32(rank), result: Int32(result)) }
        }
        var endOfGeneration = Set([eosToken, endOfTurnToken].compactMap { $0 })
        let turnEnders: Set<String> = ["<|im_end|>", "<|eot_id|>", "<|eom_id|>", "<end_of_turn>", "<|endoftext|>", "<|end|>"]
        for (id, token) in tokens.enumerated() where types[id] == .control && turnEnders.contains(token) {
            endOfGeneration.insert(id)
        }
        tokenBytes = bytes
        self.tokenTypes = types
        self.idForBytes = idForBytes
        self.byteTokens = byteTokens
        self.merges = BytePairMerges(rules: table)
        // Longest first, so "<|im_start|>" wins over any shorter special token it contains.
        specialTokens = specials.sorted { $0.bytes.count > $1.bytes.count }
        var starts = [Bool](repeating: false, count: 256)
        for special in specials { starts[Int(special.bytes[0])] = true }
        startsSpecial = starts
        endOfGenerationTokens = endOfGeneration
    }

    /// The token ids of `text`.
    ///
    /// - Parameters:
    ///   - text: The text to encode. No BOS or EOS is added.
    ///   - parseSpecial: Whether special-token strings in `text` (such as `<|im_start|>`) become
    ///     their single ids. Leave `false` for anything a user or tool wrote: the strings are
    ///     then split like any other text.
    ///
    /// - Complexity: O(n log n) in the length of the longest pre-token, linear otherwise.
    public func encode(_ text: String, parseSpecial: Bool = false) -> [Int] {
        encode(text, parseSpecial: parseSpecial, mergingByRescanning: false)
    }

    /// ``encode(_:parseSpecial:)`` with a choice of merge algorithm: `mergingByRescanning`
    /// uses the quadratic reference (``BytePairMerges/applyByRescanning(to:)``), for tests.
    func encode(_ text: String, parseSpecial: Bool, mergingByRescanning: Bool) -> [Int] {
        var ids: [Int] = []
        ids.reserveCapacity(text.utf8.count / 3)
        var scratch: BytePairMerges.Scratch? = mergingByRescanning ? nil : BytePairMerges.Scratch()
        guard parseSpecial, !specialTokens.isEmpty else {
            encodeText(text, into: &ids, scratch: &scratch)
            return ids
        }
        let utf8 = Array(text.utf8)
        var fragmentStart = 0, i = 0
        scan: while i < utf8.count {
            if startsSpecial[Int(utf8[i])] {
                for special in specialTokens where special.bytes.count <= utf8.count - i {
                    if utf8[i..<(i + special.bytes.count)].elementsEqual(special.bytes) {
                        if fragmentStart < i { encodeText(String(decoding: utf8[fragmentStart..<i], as: UTF8.self), into: &ids, scratch: &scratch) }
                        ids.append(special.id)
                        i += special.bytes.count
                        fragmentStart = i
                        continue scan
                    }
                }
            }
            i += 1
        }
        if fragmentStart < utf8.count { encodeText(String(decoding: utf8[fragmentStart...], as: UTF8.self), into: &ids, scratch: &scratch) }
        return ids
    }

    /// Pre-tokenizes and byte-pair encodes text that contains no special tokens; without
    /// `scratch`, with the quadratic reference merge.
    private func encodeText(_ text: String, into ids: inout [Int], scratch: inout BytePairMerges.Scratch?) {
        var symbols: [Int32] = []
        for piece in preTokenizer.split(text) {
            let bytes = Array(String(piece).utf8)
            if ignoresMerges, let id = idForBytes[bytes] {
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
    /// special tokens are rendered as their text.
    public func decode(_ ids: [Int]) -> String {
        var bytes: [UInt8] = []
        for id in ids where tokenBytes.indices.contains(id) { bytes += tokenBytes[id] }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The bytes token `id` stands for (for special tokens, the UTF-8 of their text); empty for
    /// an id outside the vocabulary.
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
        let bytes = Array(text.utf8)
        return specialTokens.first { $0.bytes == bytes }?.id
    }
}
