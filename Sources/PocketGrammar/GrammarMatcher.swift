/// Follows one structured generation token by token: which tokens may come next, accepting
/// a chosen token, and rolling back.
///
/// ```swift
/// var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
/// var mask = TokenMask(count: vocabulary.count)
/// while !matcher.isComplete {
///     matcher.fillMask(&mask)
///     let token = pick(logits, allowedBy: mask)
///     _ = matcher.accept(token)
/// }
/// ```
///
/// Masks are cached per parse state: inside a long string the state repeats, so most steps
/// cost a dictionary lookup. A cache miss walks the vocabulary's trie once, advancing the
/// parse state byte by byte and pruning every prefix the grammar rejects.
public struct GrammarMatcher {
    /// The compiled grammar.
    public let grammar: CompiledGrammar
    /// The vocabulary.
    public let vocabulary: Vocabulary
    /// Parse states after each accepted token (the first is the start).
    private var history: [[[Frame]]]
    private var cache: MaskCache

    /// Starts matching a document.
    public init(grammar: CompiledGrammar, vocabulary: Vocabulary) {
        self.grammar = grammar
        self.vocabulary = vocabulary
        history = [grammar.initialStacks]
        cache = MaskCache()
    }

    private var current: [[Frame]] { history[history.count - 1] }

    /// Whether the generated text so far is a complete value (generation may end).
    public var canEnd: Bool { grammar.isAccepting(current) }

    /// Whether nothing more may follow: the value is complete and cannot be extended.
    public var isComplete: Bool { current.allSatisfy(\.isEmpty) && !current.isEmpty }

    /// Number of tokens accepted so far.
    public var acceptedCount: Int { history.count - 1 }

    /// Whether `token` may come next.
    public func allows(_ token: Int) -> Bool {
        if vocabulary.endOfGeneration.contains(token) { return canEnd }
        guard token >= 0 && token < vocabulary.count, !vocabulary.tokens[token].isEmpty else { return false }
        return !advanced(current, by: vocabulary.tokens[token]).isEmpty
    }

    /// Accepts `token` if the grammar allows it; returns whether it did.
    @discardableResult
    public mutating func accept(_ token: Int) -> Bool {
        if vocabulary.endOfGeneration.contains(token) {
            guard canEnd else { return false }
            history.append([[]])
            return true
        }
        guard token >= 0 && token < vocabulary.count, !vocabulary.tokens[token].isEmpty else { return false }
        let next = advanced(current, by: vocabulary.tokens[token])
        guard !next.isEmpty else { return false }
        history.append(next)
        return true
    }

    /// Accepts raw bytes (e.g. forced text); returns whether they were all allowed.
    @discardableResult
    public mutating func accept(bytes: [UInt8]) -> Bool {
        let next = advanced(current, by: bytes)
        guard !next.isEmpty else { return false }
        history.append(next)
        return true
    }

    /// Index of the first byte of `bytes` the grammar rejects from the current state, or nil.
    public func firstRejectedByte(_ bytes: [UInt8]) -> Int? {
        var stacks = current
        for (i, b) in bytes.enumerated() {
            stacks = grammar.advance(stacks, b)
            if stacks.isEmpty { return i }
        }
        return nil
    }

    /// Undoes the last `tokens` accepted tokens.
    public mutating func rollback(tokens: Int) {
        let n = min(tokens, history.count - 1)
        history.removeLast(n)
    }

    private func advanced(_ stacks: [[Frame]], by bytes: [UInt8]) -> [[Frame]] {
        var stacks = stacks
        for b in bytes {
            stacks = grammar.advance(stacks, b)
            if stacks.isEmpty { break }
        }
        return stacks
    }

    /// Computes the set of tokens allowed next (and whether ending is allowed).
    public mutating func fillMask(_ mask: inout TokenMask) {
        let key = grammar.cacheKey(current, longestToken: vocabulary.longestToken)
        if let cached = cache.masks[key] {
            mask = cached
            return
        }
        var result: TokenMask
        if let room = grammar.roomInStringContent(current) {
            // Every plain token that fits continues the string; only the others (quotes,
            // escapes, partial characters) can leave it, and only they need the parse state.
            result = vocabulary.plainStringTokens[min(room, vocabulary.longestToken)]
            walk(vocabulary.otherTrie, from: 0, state: current, into: &result)
        } else if current.count == 1, case .patternString(let n, let states, let length, let scalar, let pending, let width)? = current[0].last,
                  case .pattern(_, let maximum) = grammar.kinds[Int(n)] {
            // Plain tokens from this pattern position, ranked by the room each needs, do not
            // depend on how long the string already is: computed once per position, then the
            // mask for any remaining room is a prefix of the ranking. Only the other tokens
            // (quotes, escapes, partial characters) are walked each time.
            let start = CompiledGrammar.PatternPosition(states: states, length: 0, scalar: scalar, pending: pending, width: width)
            let key = PatternTableKey(node: n, start: start)
            let table = cache.patternTables[key] ?? patternTable(n, from: start)
            cache.patternTables[key] = table
            result = TokenMask(count: vocabulary.count)
            let room = Int(maximum - length)
            for i in table.tokens.indices {
                if table.requiredRoom[i] > room { break }
                result.insert(Int(table.tokens[i]))
            }
            walkPattern(n, .init(states: states, length: length, scalar: scalar, pending: pending, width: width),
                        trie: vocabulary.otherTrie, into: &result)
        } else {
            result = TokenMask(count: vocabulary.count)
            walk(vocabulary.trie, from: 0, state: current, into: &result)
        }
        if canEnd {
            result.allowsEnd = true
            for token in vocabulary.endOfGeneration where token < vocabulary.count { result.insert(token) }
        }
        cache.masks[key] = result
        mask = result
    }

    /// Walk of the full trie inside a pattern-constrained string: the pattern position is a
    /// few integers, so no parse stacks are built until a token closes the string; from there
    /// the ordinary walk takes over.
    private func walkPattern(
        _ n: Int32, _ start: CompiledGrammar.PatternPosition, trie: FlatTrie, into result: inout TokenMask
    ) {
        guard case .pattern(let p, let maximum) = grammar.kinds[Int(n)] else { return }
        let nfa = grammar.patterns[Int(p)]
        // Visited nodes as (byte, parent) so a token's bytes are rebuilt only when it closes the string.
        var visited: [(byte: UInt8, parent: Int32)] = [(0, -1)]
        var pending: [(node: Int32, position: CompiledGrammar.PatternPosition, visit: Int32)] = [(0, start, 0)]
        func bytes(to visit: Int32) -> [UInt8] {
            var out: [UInt8] = []
            var v = visit
            while v > 0 { out.append(visited[Int(v)].byte); v = visited[Int(v)].parent }
            return out.reversed()
        }
        var steps = ASCIISteps(nfa)
        while let (node, position, visit) = pending.popLast() {
            let i = Int(node)
            if visit > 0 {
                for t in trie.tokenStart[i]..<trie.tokenStart[i + 1] { result.insert(Int(trie.tokens[Int(t)])) }
            }
            let t = position.pending == 0 ? steps.table(position.states) : -1
            let room = Int(maximum - position.length) - 1
            for e in Int(trie.edgeStart[i])..<Int(trie.edgeStart[i + 1]) {
                let byte = trie.bytes[e], child = trie.targets[e]
                if t >= 0, byte < 0x80, byte != UInt8(ascii: "\"") {
                    let next = steps.nextStates[t * 128 + Int(byte)]
                    if next != 0, steps.distances[t * 128 + Int(byte)] <= room {
                        visited.append((byte, visit))
                        pending.append((child, .init(states: next, length: position.length + 1), Int32(visited.count - 1)))
                    }
                } else if byte == UInt8(ascii: "\""), position.pending == 0 {
                    // The token closes the string: continue with full parse stacks.
                    let closed = advanced(current, by: bytes(to: visit) + [byte])
                    if !closed.isEmpty { walk(trie, from: child, state: closed, into: &result) }
                } else if let next = CompiledGrammar.patternStep(nfa, maximum, position, byte) {
                    visited.append((byte, visit))
                    pending.append((child, next, Int32(visited.count - 1)))
                }
            }
        }
    }

    /// The plain string tokens (``Vocabulary/plainStringTokens``) the pattern of string `n`
    /// accepts from `start`, each with the room it needs: the most, over the token's prefixes,
    /// of bytes consumed plus the shortest completion of the pattern after them (the checks
    /// ``CompiledGrammar/patternStep`` makes against the length limit). Sorted by that room.
    private func patternTable(_ n: Int32, from start: CompiledGrammar.PatternPosition) -> PatternTable {
        guard case .pattern(let p, let maximum) = grammar.kinds[Int(n)] else { return PatternTable(tokens: [], requiredRoom: []) }
        let nfa = grammar.patterns[Int(p)]
        let plain = vocabulary.plainStringTokens[vocabulary.longestToken]
        let trie = vocabulary.trie
        // Tokens needing more than the whole length limit never fit: the walk stops there, and
        // the rooms, all at most `maximum`, are sorted by counting.
        var byRoom = [[Int32]](repeating: [], count: Int(maximum) + 1)
        var steps = ASCIISteps(nfa)
        var pending: [(node: Int32, position: CompiledGrammar.PatternPosition, room: Int32)] = [(0, start, 0)]
        while let (node, position, room) = pending.popLast() {
            let i = Int(node)
            if node != 0 && position.pending == 0 {
                for t in trie.tokenStart[i]..<trie.tokenStart[i + 1] where plain.contains(Int(trie.tokens[Int(t)])) {
                    byRoom[Int(room)].append(trie.tokens[Int(t)])
                }
            }
            let t = position.pending == 0 ? steps.table(position.states) : -1
            for e in Int(trie.edgeStart[i])..<Int(trie.edgeStart[i + 1]) {
                let byte = trie.bytes[e]
                if t >= 0, byte < 0x80 {
                    // The table's fast path: same checks as patternStep for one ASCII byte.
                    let states = steps.nextStates[t * 128 + Int(byte)]
                    let distance = steps.distances[t * 128 + Int(byte)]
                    guard states != 0, distance <= Int(maximum) else { continue }
                    let needed = max(room, position.length + 1 + Int32(distance))
                    if needed <= maximum {
                        pending.append((trie.targets[e], .init(states: states, length: position.length + 1), needed))
                    }
                } else if let next = CompiledGrammar.patternStep(nfa, maximum, position, byte) {
                    let needed = next.pending == 0 ? next.length + Int32(nfa.distance(next.states)) : next.length
                    pending.append((trie.targets[e], next, max(room, needed)))
                }
            }
        }
        var table = PatternTable(tokens: [], requiredRoom: [])
        for (room, tokens) in byRoom.enumerated() {
            table.tokens += tokens
            table.requiredRoom += repeatElement(room, count: tokens.count)
        }
        return table
    }

    /// Depth-first walk of a trie from `root` in parse state `state`; each node's state is
    /// derived from its parent's, and a subtree is skipped as soon as the state dies.
    private func walk(_ trie: FlatTrie, from root: Int32, state: [[Frame]], into result: inout TokenMask) {
        var stack: [(node: Int32, state: [[Frame]])] = [(root, state)]
        while let (node, state) = stack.popLast() {
            let i = Int(node)
            for t in trie.tokenStart[i]..<trie.tokenStart[i + 1] { result.insert(Int(trie.tokens[Int(t)])) }
            for e in Int(trie.edgeStart[i])..<Int(trie.edgeStart[i + 1]) {
                let next = grammar.advance(state, trie.bytes[e])
                if !next.isEmpty { stack.append((trie.targets[e], next)) }
            }
        }
    }
}

/// ASCII transitions of the NFA state sets met on a walk, with the shortest remaining match
/// after each: a walk meets few distinct sets, so each is computed once. Quote, backslash and
/// control bytes are never string content, so their entries stay dead.
struct ASCIISteps {
    let nfa: RegexNFA
    private var index: [UInt64: Int] = [:]
    /// `nextStates[128 t + b]`: the set after byte `b` from table `t`'s set (0: dead).
    private(set) var nextStates: [UInt64] = []
    /// `distances[128 t + b]`: the shortest match still needed after that byte.
    private(set) var distances: [Int] = []

    init(_ nfa: RegexNFA) { self.nfa = nfa }

    /// The table number of `states`, computing it on first use.
    mutating func table(_ states: UInt64) -> Int {
        if let t = index[states] { return t }
        let t = nextStates.count / 128
        nextStates += [UInt64](repeating: 0, count: 128)
        distances += [Int](repeating: .max, count: 128)
        for b in 0x20..<0x80 where b != 0x22 && b != 0x5C {
            let next = nfa.step(states, UInt32(b))
            nextStates[t * 128 + b] = next
            if next != 0 { distances[t * 128 + b] = nfa.distance(next) }
        }
        index[states] = t
        return t
    }
}

/// Masks by parse state, shared by copies of a matcher.
final class MaskCache {
    var masks: [[[Frame]]: TokenMask] = [:]
    /// Plain tokens accepted from each pattern position (see `patternTable`).
    var patternTables: [PatternTableKey: PatternTable] = [:]
}

/// A pattern-constrained string node and a position in its pattern, length set to zero.
struct PatternTableKey: Hashable {
    var node: Int32
    var start: CompiledGrammar.PatternPosition
}

/// Plain tokens a pattern accepts from one position, sorted by the room each needs.
struct PatternTable {
    var tokens: [Int32]
    var requiredRoom: [Int]
}
