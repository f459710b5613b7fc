/// The pieces of a SentencePiece vocabulary with their scores, and the algorithm llama.cpp
/// applies to them for `tokenizer.ggml.model = "llama"` (its "SPM" tokenizer) on one fragment
/// of text (the text between two special tokens).
///
/// Spaces are written as U+2581 "▁" and the fragment starts as one symbol per UTF-8 character.
/// The adjacent pair whose concatenation is a piece with the highest score merges (the leftmost
/// pair on ties), again and again until no adjacent pair forms a piece. A final symbol that is a
/// piece becomes its token; one that is not (a character the vocabulary lacks) becomes one
/// `<0xNN>` byte token per UTF-8 byte ("byte fallback"), or the unknown token for a byte that
/// has no such token.
///
/// ``encode(_:spacePrefix:into:scratch:)`` keeps the symbols (byte ranges of the fragment) in a
/// doubly linked list and the candidate pairs in a ``MergeQueue`` keyed by (score, position),
/// as llama.cpp does, for O(n log n); ``encodeByRescanning(_:spacePrefix:into:)`` is the direct
/// quadratic algorithm, the reference the tests compare with.
struct SentencePieceMerges: Sendable {
    /// U+2581 LOWER ONE EIGHTH BLOCK, SentencePiece's stand-in for a space, in UTF-8.
    static let spaceMarker: [UInt8] = [0xE2, 0x96, 0x81]

    /// Token of every piece text may merge into, keyed by its bytes (slices of one shared buffer,
    /// so the 262,144 keys of a Gemma vocabulary cost no allocation each).
    private let pieceIDs: [ArraySlice<UInt8>: Int32]
    /// Per token id: its merge priority, lower first (see ``priority(ofScore:)``).
    private let priorities: [UInt32]
    /// Byte length of the longest piece: longer pairs need no lookup.
    private let longestPiece: Int
    /// `byteTokens[b]`: the `<0xNN>` token of byte `b`, or -1.
    private let byteTokens: [Int32]
    /// Stands in for a byte without a byte token; -1 when the vocabulary has none.
    private let unknownToken: Int32

    /// Builds the pieces from a vocabulary.
    ///
    /// Only entries that plain text may produce are pieces: control tokens (`<start_of_turn>`)
    /// must never come out of user text, user-defined ones are matched before merging, and a
    /// byte token's text (`<0x41>`) is not what it decodes to (the byte). llama.cpp looks up
    /// every entry; no merge of Gemma 3's vocabulary can reach one of these anyway.
    ///
    /// - Parameters:
    ///   - tokens: Vocabulary entries as stored (spaces written as "▁").
    ///   - types: The kind of each entry.
    ///   - scores: One score per entry; higher merges first.
    ///   - unknownToken: The token for bytes without a `<0xNN>` token, if any.
    init(tokens: [String], types: [Tokenizer.TokenType], scores: [Float], unknownToken: Int?) {
        var storage: [UInt8] = []
        var ranges: [(id: Int, range: Range<Int>)] = []
        var byteTokens = [Int32](repeating: -1, count: 256)
        for (id, token) in tokens.enumerated() {
            switch types[id] {
            case .control, .userDefined, .unknown:
                continue
            case .byte:
                if let byte = Self.byteValue(of: token), byteTokens[Int(byte)] < 0 { byteTokens[Int(byte)] = Int32(id) }
            case .normal, .unused, .undefined:
                let start = storage.count
                storage.append(contentsOf: token.utf8)
                ranges.append((id, start..<storage.count))
            }
        }
        var pieceIDs: [ArraySlice<UInt8>: Int32] = [:]
        pieceIDs.reserveCapacity(ranges.count)
        var longest = 0
        for (id, range) in ranges where !range.isEmpty {
            // The first of duplicate entries wins, as for byte-level vocabularies.
            if pieceIDs[storage[range]] == nil { pieceIDs[storage[range]] = Int32(id) }
            longest = max(longest, range.count)
        }
        self.pieceIDs = pieceIDs
        priorities = scores.map(Self.priority(ofScore:))
        longestPiece = longest
        self.byteTokens = byteTokens
        self.unknownToken = unknownToken.map(Int32.init) ?? -1
    }

    /// The byte a byte token stands for: `<0x0A>` → 10; `nil` for any other text.
    static func byteValue(of token: String) -> UInt8? {
        let utf8 = Array(token.utf8)
        guard utf8.count == 6, utf8.starts(with: Array("<0x".utf8)), utf8[5] == UInt8(ascii: ">") else { return nil }
        return UInt8(String(decoding: utf8[3..<5], as: UTF8.self), radix: 16)
    }

    /// The bytes a piece decodes to: its text with every "▁" turned back into a space.
    static func unescape(_ token: String) -> [UInt8] {
        let utf8 = Array(token.utf8)
        guard utf8.contains(spaceMarker[0]) else { return utf8 }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var i = 0
        while i < utf8.count {
            if utf8[i...].starts(with: spaceMarker) {
                bytes.append(UInt8(ascii: " "))
                i += 3
            } else {
                bytes.append(utf8[i])
                i += 1
            }
        }
        return bytes
    }

    /// A merge priority that orders like the score, highest score first, as an unsigned integer
    /// (the IEEE 754 bits made monotonic, then inverted): no sort of the vocabulary needed.
    static func priority(ofScore score: Float) -> UInt32 {
        let bits = (score == 0 ? 0 : score).bitPattern  // -0 ties with +0, as float comparison does
        let ascending = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        return ~ascending
    }

    /// One pair in the queue: merging the symbols in slots `left` and `right`, which were
    /// `leftLength` and `rightLength` bytes long when the candidate was pushed.
    struct Candidate: MergeCandidate {
        /// `priority << 32 | left`: the highest score first, then the leftmost position.
        var order: UInt64
        var right: Int32
        var leftLength: Int32
        var rightLength: Int32
        var result: Int32
    }

    /// Working memory for ``encode(_:spacePrefix:into:scratch:)``, reused across fragments.
    struct Scratch {
        fileprivate var text: [UInt8] = []
        fileprivate var start: [Int32] = []
        fileprivate var length: [Int32] = []
        fileprivate var token: [Int32] = []
        fileprivate var previous: [Int32] = []
        fileprivate var next: [Int32] = []
        fileprivate var queue = MergeQueue<Candidate>()

        /// Empty working memory.
        init() {}
    }

    /// Writes `fragment` with every space as "▁", after a "▁" when `spacePrefix`.
    private static func escape(_ fragment: ArraySlice<UInt8>, spacePrefix: Bool, into text: inout [UInt8]) {
        text.removeAll(keepingCapacity: true)
        if spacePrefix { text += spaceMarker }
        for byte in fragment {
            if byte == UInt8(ascii: " ") { text += spaceMarker } else { text.append(byte) }
        }
    }

    /// Length of the UTF-8 sequence a byte starts (1 for a stray continuation byte, as llama.cpp).
    private static func sequenceLength(_ lead: UInt8) -> Int {
        lead < 0xC0 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
    }

    /// The piece `text[range]` is, or -1.
    private func piece(_ text: [UInt8], _ range: Range<Int>) -> Int32 {
        range.count <= longestPiece ? pieceIDs[text[range]] ?? -1 : -1
    }

    /// Appends the tokens of `fragment` (UTF-8 text containing no special token) to `ids`.
    ///
    /// Every adjacent pair that forms a piece is a candidate in the queue. Popping the best one
    /// merges its right symbol into its left slot and pushes the pairs the longer symbol forms
    /// with its neighbours; a candidate whose slots changed length since it was pushed is stale
    /// and skipped. The queue always holds every current pair that forms a piece, so the pair
    /// popped is the highest-score, leftmost one the direct algorithm would pick.
    ///
    /// - Parameter spacePrefix: Whether to add a leading space first (`add_space_prefix`).
    /// - Complexity: O(n log n) for n characters.
    func encode(_ fragment: ArraySlice<UInt8>, spacePrefix: Bool, into ids: inout [Int], scratch s: inout Scratch) {
        Self.escape(fragment, spacePrefix: spacePrefix, into: &s.text)
        let count = s.text.count
        guard count > 0 else { return }
        precondition(count < Int(Int32.max), "a fragment of \(count) bytes is too long")
        s.start.removeAll(keepingCapacity: true)
        s.length.removeAll(keepingCapacity: true)
        s.token.removeAll(keepingCapacity: true)
        s.previous.removeAll(keepingCapacity: true)
        s.next.removeAll(keepingCapacity: true)
        var offset = 0
        while offset < count {
            let length = min(Self.sequenceLength(s.text[offset]), count - offset)
            s.previous.append(Int32(s.start.count) - 1)
            s.start.append(Int32(offset))
            s.length.append(Int32(length))
            s.token.append(piece(s.text, offset..<(offset + length)))
            offset += length
            s.next.append(offset < count ? Int32(s.start.count) : -1)
        }
        s.queue.removeAll()
        func pushPair(_ left: Int32, _ right: Int32, _ s: inout Scratch) {
            let l = Int(left), r = Int(right)
            let start = Int(s.start[l]), length = Int(s.length[l] + s.length[r])
            let id = piece(s.text, start..<(start + length))
            guard id >= 0 else { return }
            s.queue.push(Candidate(
                order: UInt64(priorities[Int(id)]) << 32 | UInt64(UInt32(left)),
                right: right, leftLength: s.length[l], rightLength: s.length[r], result: id))
        }
        for i in 0..<Int32(s.start.count - 1) { pushPair(i, i + 1, &s) }

        while let candidate = s.queue.popFirst() {
            let left = Int(candidate.left), right = Int(candidate.right)
            guard s.next[left] == candidate.right,
                  s.length[left] == candidate.leftLength,
                  s.length[right] == candidate.rightLength else { continue }
            s.length[left] += s.length[right]
            s.token[left] = candidate.result
            s.length[right] = 0  // removed: no candidate can match a length of 0
            let after = s.next[right]
            s.next[left] = after
            if after >= 0 { s.previous[Int(after)] = candidate.left }
            let before = s.previous[left]
            if before >= 0 { pushPair(before, candidate.left, &s) }
            if after >= 0 { pushPair(candidate.left, after, &s) }
        }

        // Slot 0 is never merged away: it is always the leftmost symbol.
        var slot: Int32 = 0
        while slot >= 0 {
            let i = Int(slot)
            append(s.token[i], bytes: s.text[Int(s.start[i])..<Int(s.start[i] + s.length[i])], to: &ids)
            slot = s.next[i]
        }
    }

    /// Appends a final symbol: its token, or its bytes' tokens when it is not a piece.
    private func append(_ token: Int32, bytes: ArraySlice<UInt8>, to ids: inout [Int]) {
        if token >= 0 {
            ids.append(Int(token))
            return
        }
        for byte in bytes {
            let id = byteTokens[Int(byte)]
            if id >= 0 { ids.append(Int(id)) } else if unknownToken >= 0 { ids.append(Int(unknownToken)) }
        }
    }

    /// The direct algorithm: rescan every adjacent pair, merge the one whose piece has the
    /// highest score (leftmost on ties), repeat. The reference for
    /// ``encode(_:spacePrefix:into:scratch:)``.
    ///
    /// - Complexity: O(n²) for n characters.
    func encodeByRescanning(_ fragment: ArraySlice<UInt8>, spacePrefix: Bool, into ids: inout [Int]) {
        var text: [UInt8] = []
        Self.escape(fragment, spacePrefix: spacePrefix, into: &text)
        var symbols: [Range<Int>] = []
        var offset = 0
        while offset < text.count {
            let length = min(Self.sequenceLength(text[offset]), text.count - offset)
            symbols.append(offset..<(offset + length))
            offset += length
        }
        while symbols.count > 1 {
            var best = UInt32.max, at = -1
            for i in 0..<(symbols.count - 1) {
                let id = piece(text, symbols[i].lowerBound..<symbols[i + 1].upperBound)
                if id >= 0, priorities[Int(id)] < best { best = priorities[Int(id)]; at = i }
            }
            guard at >= 0 else { break }
            symbols[at] = symbols[at].lowerBound..<symbols[at + 1].upperBound
            symbols.remove(at: at + 1)
        }
        for range in symbols { append(piece(text, range), bytes: text[range], to: &ids) }
    }
}
