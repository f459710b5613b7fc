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

/// A trie over token bytes in flat arrays (no nested arrays to retain while walking): node
/// `i`'s children are `bytes[edgeStart[i]..<edgeStart[i+1]]` → `targets[…]`, and the tokens
/// that end at it are `tokens[tokenStart[i]..<tokenStart[i+1]]`.
///
/// Nodes are numbered in depth-first order (a node, then its subtrees by byte), so every
/// subtree is one contiguous run: a depth-first walk reads the arrays nearly in order instead
/// of jumping across a few megabytes at each node.
struct FlatTrie: Sendable {
    let edgeStart: [Int32]
    let bytes: [UInt8]
    let targets: [Int32]
    let tokenStart: [Int32]
    let tokens: [Int32]

    /// Flattens a trie given as children (sorted by byte) and terminal tokens per node, node 0
    /// the root.
    init(_ children: [[(byte: UInt8, node: Int32)]], _ terminals: [[Int32]]) {
        // Depth-first numbering: push children in reverse so the smallest byte comes next.
        var order: [Int32] = []
        order.reserveCapacity(children.count)
        var newID = [Int32](repeating: 0, count: children.count)
        var stack: [Int32] = [0]
        while let node = stack.popLast() {
            newID[Int(node)] = Int32(order.count)
            order.append(node)
            for e in children[Int(node)].reversed() { stack.append(e.node) }
        }
        var edgeStart: [Int32] = [0], bytes: [UInt8] = [], targets: [Int32] = []
        var tokenStart: [Int32] = [0], tokens: [Int32] = []
        for node in order {
            for e in children[Int(node)] { bytes.append(e.byte); targets.append(newID[Int(e.node)]) }
            edgeStart.append(Int32(bytes.count))
            tokens += terminals[Int(node)]
            tokenStart.append(Int32(tokens.count))
        }
        self.edgeStart = edgeStart
        self.bytes = bytes
        self.targets = targets
        self.tokenStart = tokenStart
        self.tokens = tokens
    }
}

/// A set of allowed token ids, as a bitset over the vocabulary.
public struct TokenMask: Sendable, Equatable {
    /// 64 tokens per word.
    public private(set) var words: [UInt64]
    /// Whether ending generation is allowed.
    public var allowsEnd = false

    /// An empty mask for `count` tokens.
    public init(count: Int) {
        words = [UInt64](repeating: 0, count: (count + 63) / 64)
    }

    /// Whether token `id` is allowed.
    @inline(__always) public func contains(_ id: Int) -> Bool {
        id >= 0 && id / 64 < words.count && words[id / 64] & (1 << UInt64(id % 64)) != 0
    }

    /// Allows token `id`.
    @inline(__always) public mutating func insert(_ id: Int) {
        words[id / 64] |= 1 << UInt64(id % 64)
    }

    /// Allows every token `other` allows (not the end).
    mutating func formUnion(_ other: TokenMask) {
        for i in words.indices { words[i] |= other.words[i] }
    }

    /// Number of allowed tokens (not counting the end).
    public var count: Int { words.reduce(0) { $0 + $1.nonzeroBitCount } }

    /// The allowed ids in increasing order.
    public var allowedTokens: [Int] {
        var out: [Int] = []
        for (w, word) in words.enumerated() where word != 0 {
            var bits = word
            while bits != 0 {
                out.append(w * 64 + bits.trailingZeroBitCount)
                bits &= bits - 1
            }
        }
        return out
    }
}
