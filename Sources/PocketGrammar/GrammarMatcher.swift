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
/// parse state byte by byte and pruning every prefix the grammar rejects; inside string
/// content the walk carries a few integers instead of parse stacks (`stringMask`). Inside a
/// pattern-constrained string one walk records, for each token, the least room it needs, so
/// the mask at every later length of the same pattern position is a selection, not a walk.
public struct GrammarMatcher {
    /// The compiled grammar.
    public let grammar: CompiledGrammar
    /// The vocabulary.
    public let vocabulary: Vocabulary
    /// Parse states after each accepted token (the first is the start).
    private var history: [[[Frame]]]
    var cache: MaskCache

    /// Starts matching a document.
    public init(grammar: CompiledGrammar, vocabulary: Vocabulary) {
        self.grammar = grammar
        self.vocabulary = vocabulary
        history = [grammar.initialStacks]
        cache = MaskCache()
    }

    var current: [[Frame]] { history[history.count - 1] }

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
        if current.count == 1, case .patternString(let n, let states, let length, let scalar, let pending, let width)? = current[0].last {
            // Inside a pattern string the state changes with every byte, but the mask depends
            // on the length only through the room left: masks are kept per pattern position.
            // (A document never ends inside a string, so no end token is allowed.)
            mask = patternMask(current[0], node: n, at: .init(states: states, length: length, scalar: scalar, pending: pending, width: width))
            return
        }
        let key = grammar.cacheKey(current, longestToken: vocabulary.longestToken)
        if let cached = cache.masks[key] {
            mask = cached
            return
        }
        var result: TokenMask
        if let strings = stringMask(current) {
            // Inside string content the walk steps a few integers instead of parse stacks.
            result = strings
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

    /// The mask from a walk of the whole trie with the general matcher, whatever the state:
    /// the reference the specialised paths of `fillMask` must agree with (tests use it).
    func fullWalkMask() -> TokenMask {
        var result = TokenMask(count: vocabulary.count)
        walk(vocabulary.trie, from: 0, state: current, into: &result)
        if canEnd {
            result.allowsEnd = true
            for token in vocabulary.endOfGeneration where token < vocabulary.count { result.insert(token) }
        }
        return result
    }

    /// Depth-first walk of a trie from `root` in parse state `state`; each node's state is
    /// derived from its parent's, and a subtree is skipped as soon as the state dies.
    func walk<Sink: TokenSink>(_ trie: FlatTrie, from root: Int32, state: [[Frame]], into result: inout Sink) {
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

/// Where a trie walk puts the tokens it reaches.
protocol TokenSink {
    mutating func insert(_ id: Int)
}

extension TokenMask: TokenSink {}

/// Masks by parse state, shared by copies of a matcher.
final class MaskCache {
    var masks: [[[Frame]]: TokenMask] = [:]
    /// Inside pattern strings: tokens with the room they need, by the stack with the string's
    /// length set to 0.
    var patterns: [[Frame]: PatternMask] = [:]
    /// ASCII transitions of each pattern met (by pattern index).
    var dfas: [Int32: PatternDFA] = [:]
    /// The forced text after each parse state asked about (see `forcedBytes`).
    var forced: [[[Frame]]: [UInt8]] = [:]
}
