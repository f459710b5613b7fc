/// Finds special tokens (whole vocabulary entries matched by their text, such as
/// `<|im_start|>` or Gemma's `<start_of_turn>`) in UTF-8 text, longest first.
///
/// A Gemma vocabulary has over 6,000 control tokens beginning with `<` (`<unused0>` …), so
/// matching tries each distinct length that starts with the byte at hand, with one hash
/// lookup each, rather than comparing every token.
struct SpecialTokenMatcher: Sendable {
    private let ids: [ArraySlice<UInt8>: Int]
    /// `lengths[b]`: the byte lengths of the tokens that begin with byte `b`, longest first.
    private let lengths: [[Int]]
    /// `startsPair[b0 << 8 | b1]`: some token begins with bytes `b0 b1`. Rejects most positions
    /// with one load: in Gemma, a space (30 run lengths) is rarely followed by another.
    private let startsPair: [Bool]

    /// Whether there is no token to match.
    var isEmpty: Bool { ids.isEmpty }

    /// A matcher for `tokens` (UTF-8 text and id); empty texts are ignored and the first of
    /// duplicate texts wins.
    init(_ tokens: [(bytes: [UInt8], id: Int)]) {
        var ids: [ArraySlice<UInt8>: Int] = [:]
        var lengths = [Set<Int>](repeating: [], count: 256)
        var startsPair = [Bool](repeating: false, count: 65536)
        for token in tokens where !token.bytes.isEmpty && ids[token.bytes[...]] == nil {
            ids[token.bytes[...]] = token.id
            lengths[Int(token.bytes[0])].insert(token.bytes.count)
            if token.bytes.count > 1 { startsPair[Int(token.bytes[0]) << 8 | Int(token.bytes[1])] = true }
        }
        self.ids = ids
        self.startsPair = startsPair
        self.lengths = lengths.map { $0.sorted(by: >) }
    }

    /// The longest token that `utf8` holds at `offset`: its id and byte length.
    func match(_ utf8: [UInt8], at offset: Int) -> (id: Int, length: Int)? {
        let first = Int(utf8[offset])
        let pairs = offset + 1 < utf8.count && startsPair[first << 8 | Int(utf8[offset + 1])]
        for length in lengths[first] where length <= utf8.count - offset && (length == 1 || pairs) {
            if let id = ids[utf8[offset..<(offset + length)]] { return (id, length) }
        }
        return nil
    }
}

extension SpecialTokenMatcher {
    /// The id of the token whose text is exactly `bytes`.
    func id(of bytes: [UInt8]) -> Int? { ids[bytes[...]] }

    /// Calls `text` with each run of `utf8` between matched tokens and `token` with each
    /// matched token's id, in order; matching scans left to right, longest token first.
    func split(_ utf8: [UInt8], text: (ArraySlice<UInt8>) -> Void, token: (Int) -> Void) {
        var fragmentStart = 0, i = 0
        while i < utf8.count {
            if let (id, length) = match(utf8, at: i) {
                if fragmentStart < i { text(utf8[fragmentStart..<i]) }
                token(id)
                i += length
                fragmentStart = i
            } else {
                i += 1
            }
        }
        if fragmentStart < utf8.count { text(utf8[fragmentStart...]) }
    }
}
