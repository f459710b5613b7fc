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
