// Masks inside pattern-constrained strings.
//
// Such a string's parse state carries its length, so as it grows nearly every step is a new
// state, and a cache keyed by the exact state would miss each time and walk the vocabulary
// again. But the length only matters through the room left, and only as a threshold: each
// token needs some least room (see `CompiledGrammar.patternStep(_:_:_:)`) and is allowed
// exactly when the room left is at least that. So one walk per pattern position (automaton state,
// a partly read character, and the frames below the string) records every token with its
// need, and the mask at any length is the tokens whose need fits.

/// The ASCII transitions of one pattern's automaton between the states met so far, filled in as
/// walks need them: walks over the vocabulary meet few distinct sets, so each transition is
/// computed once and later costs one array read.
struct PatternDFA {
    let nfa: PatternAutomaton
    /// State sets by id.
    private(set) var sets: [UInt64] = []
    /// Fewest bytes from each set to a match.
    private(set) var distances: [Int32] = []
    /// `transitions[id * 128 + byte]`: the id reached, `unknown`, or `dead`.
    private var transitions: [Int32] = []
    private var ids: [UInt64: Int32] = [:]

    static let unknown: Int32 = -1
    /// No transition: the byte is refused, or the pattern could never match after it.
    static let dead: Int32 = -2

    init(_ nfa: PatternAutomaton) { self.nfa = nfa }

    /// The id of state set `set`, added when new.
    mutating func id(_ set: UInt64) -> Int32 {
        if let id = ids[set] { return id }
        let id = Int32(sets.count)
        ids[set] = id
        sets.append(set)
        distances.append(Int32(clamping: nfa.distance(set)))
        transitions += repeatElement(Self.unknown, count: 128)
        return id
    }

    /// The set reached from set `id` by content byte `byte` (< 0x80), or `dead`. JSON's quote,
    /// backslash and control characters are never produced inside a pattern string.
    @inline(__always) mutating func step(_ id: Int32, _ byte: UInt8) -> Int32 {
        let slot = Int(id) &* 128 &+ Int(byte)
        let known = transitions[slot]
        if known != Self.unknown { return known }
        var next = Self.dead
        if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
            let set = nfa.step(sets[Int(id)], UInt32(byte))
            if set != 0 && nfa.distance(set) != Int.max { next = self.id(set) }
        }
        transitions[slot] = next
        return next
    }
}

/// Every token allowed at one pattern position with the least room it needs; masks for
/// particular rooms are selected from it (and kept).
struct PatternMask {
    /// Allowed tokens in increasing order of need.
    let tokens: [Int32]
    /// `countNeeding[r]`: how many of `tokens` need at most `r` bytes of room.
    let countNeeding: [Int32]
    /// The room the walk was made with: tokens needing more were not recorded…
    let walkedRoom: Int
    /// …if there were any.
    let isPruned: Bool
    /// Masks already selected, by room (clamped to the largest need).
    var masks: [Int: TokenMask] = [:]

    /// Sorts `found` by need (a counting sort: needs are small).
    init(_ found: TokensWithNeed, walkedRoom: Int, isPruned: Bool) {
        let largest = Int(found.needs.max() ?? 0)
        var starts = [Int32](repeating: 0, count: largest + 2)
        for need in found.needs { starts[Int(need) + 1] += 1 }
        for r in 0...largest { starts[r + 1] += starts[r] }
        countNeeding = Array(starts.dropFirst())
        var sorted = [Int32](repeating: 0, count: found.tokens.count)
        for (token, need) in zip(found.tokens, found.needs) {
            sorted[Int(starts[Int(need)])] = token
            starts[Int(need)] += 1
        }
        tokens = sorted
        self.walkedRoom = walkedRoom
        self.isPruned = isPruned
    }

    /// Whether the entry holds the mask for `room`.
    func covers(_ room: Int) -> Bool { !isPruned || room <= walkedRoom }

    /// The mask for `room` (one of the rooms `covers` accepts).
    mutating func mask(room: Int, vocabularySize: Int) -> TokenMask {
        let r = min(room, countNeeding.count - 1)
        if let mask = masks[r] { return mask }
        var mask = TokenMask(count: vocabularySize)
        for t in tokens[0..<Int(countNeeding[r])] { mask.insert(Int(t)) }
        masks[r] = mask
        return mask
    }
}

/// A trie walk's tokens, each with the room it needs (the `need` current when it was found).
struct TokensWithNeed: TokenSink {
    var tokens: [Int32] = []
    var needs: [Int32] = []
    var need: Int32 = 0

    mutating func insert(_ id: Int) {
        tokens.append(Int32(id))
        needs.append(need)
    }
}

extension GrammarMatcher {
    /// The mask when the only stack is `stack`, inside pattern string `n` at `position`.
    mutating func patternMask(_ stack: [Frame], node n: Int32, at position: CompiledGrammar.PatternPosition) -> TokenMask {
        guard case .pattern(let p, let maximum) = grammar.kinds[Int(n)] else { return TokenMask(count: vocabulary.count) }
        var key = stack
        key[key.count - 1] = .patternString(n, states: position.states, length: 0, scalar: position.scalar,
                                            pending: position.pending, width: position.width)
        let room = Int(maximum - position.length)
        if cache.patterns[key]?.covers(room) != true {
            cache.patterns[key] = walkPattern(stack, pattern: p, at: position, room: room)
        }
        return cache.patterns[key]!.mask(room: room, vocabularySize: vocabulary.count)
    }

    /// Walks the whole trie from a pattern position, recording each allowed token with the
    /// room it needs; paths needing more than `room` are cut. Inside the string the position
    /// is a few integers and ASCII steps are table reads; a token that closes the string
    /// continues with the parse stacks after it, which do not depend on the content.
    private func walkPattern(_ stack: [Frame], pattern p: Int32, at start: CompiledGrammar.PatternPosition, room: Int) -> PatternMask {
        var dfa = cache.dfas.removeValue(forKey: p) ?? PatternDFA(grammar.patterns[Int(p)])
        defer { cache.dfas[p] = dfa }
        let nfa = dfa.nfa
        let trie = vocabulary.trie
        let closed = grammar.closingPatternStrings([stack])
        let room = Int32(clamping: room)
        var found = TokensWithNeed()
        var isPruned = false
        // Positions are relative: `length` counts bytes from the start of the walk.
        struct Item { var node: Int32; var position: CompiledGrammar.PatternPosition; var id: Int32; var need: Int32 }
        var first = start
        first.length = 0
        var pending = [Item(node: 0, position: first, id: start.pending == 0 ? dfa.id(start.states) : PatternDFA.unknown, need: 0)]
        while let item = pending.popLast() {
            let i = Int(item.node)
            found.need = item.need
            for t in trie.tokenStart[i]..<trie.tokenStart[i + 1] { found.insert(Int(trie.tokens[Int(t)])) }
            let k = item.position.length
            for e in Int(trie.edgeStart[i])..<Int(trie.edgeStart[i + 1]) {
                let byte = trie.bytes[e], child = trie.targets[e]
                if item.id >= 0, byte < 0x80, byte != UInt8(ascii: "\"") {
                    let t = dfa.step(item.id, byte)
                    guard t >= 0 else { continue }
                    let need = max(item.need, k + 1 + dfa.distances[Int(t)])
                    guard need <= room else { isPruned = true; continue }
                    pending.append(Item(node: child, position: .init(states: dfa.sets[Int(t)], length: k + 1), id: t, need: need))
                } else if byte == UInt8(ascii: "\"") {
                    guard item.position.pending == 0, nfa.isAccepting(item.position.states), !closed.isEmpty else { continue }
                    found.need = item.need
                    walk(trie, from: child, state: closed, into: &found)
                } else if let (next, step) = CompiledGrammar.patternStep(nfa, item.position, byte) {
                    let need = max(item.need, k + Int32(step))
                    guard need <= room else { isPruned = true; continue }
                    let id = next.pending == 0 ? dfa.id(next.states) : PatternDFA.unknown
                    pending.append(Item(node: child, position: next, id: id, need: need))
                }
            }
        }
        return PatternMask(found, walkedRoom: Int(room), isPruned: isPruned)
    }
}
