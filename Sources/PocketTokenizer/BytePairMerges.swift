/// The merge rules of a byte-level BPE vocabulary and the algorithm that applies them to one
/// pre-token.
///
/// A pre-token starts as one symbol per byte; the adjacent pair whose rule has the lowest rank
/// is merged (the leftmost such pair on ties), again and again until no rule applies. Done
/// naively, each step rescans the whole piece: O(n²) for a piece of n bytes, which a long
/// run of one character (80,000 `[`) makes take seconds. ``apply(to:scratch:)`` keeps the symbols in
/// a doubly linked list and the candidate pairs in a ``MergeQueue`` keyed by (rank, position),
/// as llama.cpp does, for O(n log n); ``applyByRescanning(to:)`` is the direct algorithm,
/// kept as the reference the tests compare with.
struct BytePairMerges: Sendable {
    /// The rule for one pair: its priority and the token the pair becomes.
    struct Merge: Sendable {
        /// Position of the rule in `tokenizer.ggml.merges`; lower merges first.
        var rank: Int32
        /// The id of the merged token.
        var result: Int32
    }

    private let rules: [UInt64: Merge]

    /// Creates the rule set from `(left id, right id) → merge`, keyed by ``key(_:_:)``.
    init(rules: [UInt64: Merge]) {
        self.rules = rules
    }

    /// The dictionary key of a pair of token ids. A byte without a token is -1, whose bit
    /// pattern matches no rule.
    static func key(_ left: Int32, _ right: Int32) -> UInt64 {
        UInt64(UInt32(bitPattern: left)) << 32 | UInt64(UInt32(bitPattern: right))
    }

    /// The rule for `left` followed by `right`, if there is one.
    func merge(_ left: Int32, _ right: Int32) -> Merge? { rules[Self.key(left, right)] }

    /// One pair in the queue: merging the symbols in slots `left` and `right`, which held the
    /// tokens `leftToken` and `rightToken` when the candidate was pushed.
    struct Candidate: MergeCandidate {
        /// `rank << 32 | left`: the lowest rank first, then the leftmost position.
        var order: UInt64
        var right: Int32
        var leftToken: Int32
        var rightToken: Int32
        var result: Int32
    }

    /// Working memory for ``apply(to:scratch:)``, reused across the pieces of one text.
    struct Scratch {
        fileprivate var tokens: [Int32] = []
        fileprivate var previous: [Int32] = []
        fileprivate var next: [Int32] = []
        fileprivate var queue = MergeQueue<Candidate>()

        /// Empty working memory.
        init() {}
    }

    /// Merges `symbols` (token ids, one per byte of the piece) in place.
    ///
    /// Every adjacent pair with a rule is a candidate in the queue. Popping the best one merges
    /// its right symbol into its left slot, unlinks the right slot and pushes the two pairs the
    /// new token forms with its neighbours. A candidate whose slots no longer hold the tokens
    /// it was pushed with (one of them merged since) is stale and skipped. The queue always
    /// holds every current pair that has a rule, and slots keep their text order, so the pair
    /// popped is exactly the lowest-rank, leftmost one the direct algorithm would pick.
    ///
    /// - Complexity: O(n log n) for n symbols.
    func apply(to symbols: inout [Int32], scratch: inout Scratch) {
        let count = symbols.count
        guard count > 1 else { return }
        precondition(count < Int(Int32.max), "a pre-token of \(count) bytes is too long")
        let removed = Int32.min
        scratch.tokens.removeAll(keepingCapacity: true)
        scratch.tokens.append(contentsOf: symbols)
        scratch.previous.removeAll(keepingCapacity: true)
        scratch.next.removeAll(keepingCapacity: true)
        for i in 0..<Int32(count) {
            scratch.previous.append(i - 1)
            scratch.next.append(i + 1 < count ? i + 1 : -1)
        }
        scratch.queue.removeAll()
        func pushPair(_ left: Int32, _ right: Int32, _ s: inout Scratch) {
            let l = s.tokens[Int(left)], r = s.tokens[Int(right)]
            guard let merge = merge(l, r) else { return }
            s.queue.push(Candidate(
                order: UInt64(UInt32(merge.rank)) << 32 | UInt64(UInt32(left)),
                right: right, leftToken: l, rightToken: r, result: merge.result))
        }
        for i in 0..<Int32(count - 1) { pushPair(i, i + 1, &scratch) }

        while let candidate = scratch.queue.popFirst() {
            let left = Int(candidate.left), right = Int(candidate.right)
            guard scratch.next[left] == candidate.right,
                  scratch.tokens[left] == candidate.leftToken,
                  scratch.tokens[right] == candidate.rightToken else { continue }
            scratch.tokens[left] = candidate.result
            scratch.tokens[right] = removed
            let after = scratch.next[right]
            scratch.next[left] = after
            if after >= 0 { scratch.previous[Int(after)] = candidate.left }
            let before = scratch.previous[left]
            if before >= 0 { pushPair(before, candidate.left, &scratch) }
            if after >= 0 { pushPair(candidate.left, after, &scratch) }
        }

        // Slot 0 is never merged away: it is always the leftmost symbol.
        symbols.removeAll(keepingCapacity: true)
        var slot: Int32 = 0
        while slot >= 0 {
            symbols.append(scratch.tokens[Int(slot)])
            slot = scratch.next[Int(slot)]
        }
    }

    /// The direct algorithm: rescan every adjacent pair, merge the lowest-rank one (leftmost
    /// on ties), repeat. The reference for ``apply(to:scratch:)``.
    ///
    /// - Complexity: O(n²) for n symbols.
    func applyByRescanning(to symbols: inout [Int32]) {
        while symbols.count > 1 {
            var best = Int32.max, at = -1, result: Int32 = 0
            for i in 0..<(symbols.count - 1) {
                if let merge = merge(symbols[i], symbols[i + 1]), merge.rank < best {
                    best = merge.rank; at = i; result = merge.result
                }
            }
            guard at >= 0 else { break }
            symbols[at] = result
            symbols.remove(at: at + 1)
        }
    }
}
