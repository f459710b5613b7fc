/// The model's vocabulary as the grammar sees it: the bytes of each token, and which tokens
/// end generation. Tokens with no bytes (special tokens) are never allowed inside a value.
///
/// Building a vocabulary also builds a trie over the token bytes, which lets the mask be
/// computed by walking shared prefixes once instead of matching every token separately.
public final class Vocabulary: Sendable {
    /// Bytes of each token id.
    public let tokens: [[UInt8]]
    /// Tokens that end generation; allowed only when the value is complete.
    public let endOfGeneration: Set<Int>
    /// Number of tokens.
    public var count: Int { tokens.count }
    /// Length of the longest token in bytes.
    public let longestToken: Int

    /// The trie over all tokens.
    let trie: FlatTrie
    /// Tokens that are plain string content: printable ASCII other than `"` and `\`, and
    /// whole UTF-8 characters. Inside a string, far from its length limit, every one of them is
    /// allowed, whatever the rest of the parse state.
    /// `plainStringTokens[n]`: the plain tokens of at most `n` bytes (`n` up to the longest).
    let plainStringTokens: [TokenMask]
    /// A trie over the other tokens, walked when only string content is open.
    let otherTrie: FlatTrie
    /// Tokens that continue a string right after `\`: a one-byte escape (`"\/bfnrt`) then plain
    /// content. With `room` bytes left such a token is allowed exactly when it has at most
    /// `max(room, 1)` bytes (the escape byte was paid for with the backslash), whatever the
    /// rest of the state. Sorted by length; `escapeTailCount[n]`: how many have at most `n` bytes.
    let escapeTails: [Int32]
    /// See `escapeTails`.
    let escapeTailCount: [Int32]
    /// A trie over the other tokens that start with an escape byte (`u` included), walked
    /// after `\`; tokens starting with any other byte are refused there.
    let escapeOtherTrie: FlatTrie

    /// Creates a vocabulary.
    ///
    /// - Parameters:
    ///   - tokens: The bytes each token id stands for; pass `[]` for tokens that must never
    ///     appear inside structured output (control tokens).
    ///   - endOfGeneration: Ids that end generation.
    public init(tokens: [[UInt8]], endOfGeneration: Set<Int>) {
        self.tokens = tokens
        self.endOfGeneration = endOfGeneration
        let spellable = tokens.enumerated().filter { !$0.element.isEmpty && !endOfGeneration.contains($0.offset) }
        let (children, terminals) = Self.trie(spellable.map { ($0.offset, $0.element) })
        trie = FlatTrie(children, terminals)
        longestToken = tokens.map(\.count).max() ?? 0

        var plainByLength = [[Int]](repeating: [], count: longestToken + 1)
        var others: [(Int, [UInt8])] = []
        for (id, bytes) in spellable {
            if Self.isPlainStringContent(bytes) { plainByLength[bytes.count].append(id) } else { others.append((id, bytes)) }
        }
        var masks: [TokenMask] = []
        var running = TokenMask(count: tokens.count)
        for ids in plainByLength {
            for id in ids { running.insert(id) }
            masks.append(running)
        }
        plainStringTokens = masks
        let (otherChildren, otherTerminals) = Self.trie(others)
        otherTrie = FlatTrie(otherChildren, otherTerminals)

        var tailsByLength = [[Int32]](repeating: [], count: longestToken + 1)
        var escapeOthers: [(Int, [UInt8])] = []
        let escapeBytes = Array(#""\/bfnrtu"#.utf8)
        for (id, bytes) in spellable where escapeBytes.contains(bytes[0]) {
            if bytes[0] != UInt8(ascii: "u") && Self.isPlainStringContent(Array(bytes.dropFirst())) {
                tailsByLength[bytes.count].append(Int32(id))
            } else {
                escapeOthers.append((id, bytes))
            }
        }
        escapeTails = tailsByLength.flatMap { $0 }
        var counts: [Int32] = []
        var total: Int32 = 0
        for ids in tailsByLength {
            total += Int32(ids.count)
            counts.append(total)
        }
        escapeTailCount = counts
        let (escapeChildren, escapeTerminals) = Self.trie(escapeOthers)
        escapeOtherTrie = FlatTrie(escapeChildren, escapeTerminals)
    }

    /// Builds a trie over `(id, bytes)` pairs.
    static func trie(_ entries: [(Int, [UInt8])]) -> ([[(byte: UInt8, node: Int32)]], [[Int32]]) {
        var children: [[UInt8: Int32]] = [[:]]
        var terminals: [[Int32]] = [[]]
        for (id, bytes) in entries {
            var node = 0
            for b in bytes {
                if let next = children[node][b] {
                    node = Int(next)
                } else {
                    children.append([:])
                    terminals.append([])
                    children[node][b] = Int32(children.count - 1)
                    node = children.count - 1
                }
            }
            terminals[node].append(Int32(id))
        }
        return (children.map { $0.sorted { $0.key < $1.key }.map { (byte: $0.key, node: $0.value) } }, terminals)
    }

    /// Whether the bytes are printable ASCII (no `"` or `\`) and complete, valid UTF-8.
    static func isPlainStringContent(_ bytes: [UInt8]) -> Bool {
        for b in bytes where b < 0x20 || b == 0x22 || b == 0x5C { return false }
        return String(validating: bytes, as: UTF8.self) != nil
    }
}
