// Masks inside plain (unpatterned) string content, without the general matcher.
//
// A stack whose top is string content depends, until the closing quote, only on the string's
// length and a small `StringState`; the frames below matter only after the quote, and then
// not through the content. So the trie is walked with a few integers per node (no stacks to
// build), and only a subtree under a closing quote falls back to the general walk, from the
// stacks after the string (computed once).

extension GrammarMatcher {
    /// Adds to `result` every token of `trie` that string-topped stack `stack` accepts.
    ///
    /// Stacks advance independently, so for several stacks the allowed set is the union of
    /// each one's; callers walk them one at a time.
    func walkString<Sink: TokenSink>(_ trie: FlatTrie, stack: [Frame], into result: inout Sink) {
        guard case .string(let n, let length, let state)? = stack.last else { return }
        let (minimum, maximum) = grammar.stringBounds(n)
        var closed: [[Frame]]?
        var pending: [StringWalkItem] = []
        pending.reserveCapacity(64)
        pending.append(StringWalkItem(node: 0, length: length, state: state))
        while let item = pending.popLast() {
            let i = Int(item.node)
            for t in trie.tokenStart[i]..<trie.tokenStart[i + 1] { result.insert(Int(trie.tokens[Int(t)])) }
            for e in Int(trie.edgeStart[i])..<Int(trie.edgeStart[i + 1]) {
                switch CompiledGrammar.stringStep(minimum: minimum, maximum: maximum, length: item.length, state: item.state, byte: trie.bytes[e]) {
                case .dead: continue
                case .content(let length, let state): pending.append(StringWalkItem(node: trie.targets[e], length: length, state: state))
                case .close:
                    if closed == nil {
                        var out: [[Frame]] = []
                        grammar.complete(stack, into: &out)
                        closed = out
                    }
                    if !closed!.isEmpty { walk(trie, from: trie.targets[e], state: closed!, into: &result) }
                }
            }
        }
    }

    /// The mask of the stacks `stacks` when every one has string content on top; nil
    /// otherwise. Plain content (no escape or character pending) takes the precomputed plain
    /// tokens that fit and walks only the other tokens; right after `\` likewise with the
    /// precomputed escape tails; other states walk the whole trie.
    func stringMask(_ stacks: [[Frame]]) -> TokenMask? {
        guard !stacks.isEmpty else { return nil }
        for stack in stacks {
            guard case .string? = stack.last else { return nil }
        }
        var result = TokenMask(count: vocabulary.count)
        for stack in stacks {
            guard case .string(let n, let length, let state)? = stack.last else { continue }
            if state.escape == 0 && state.continuation == 0 {
                let room = Int(grammar.stringBounds(n).maximum - length)
                result.formUnion(vocabulary.plainStringTokens[max(0, min(room, vocabulary.longestToken))])
                walkString(vocabulary.otherTrie, stack: stack, into: &result)
            } else if state.escape == 1 {
                // Right after `\`: escape-plus-plain tokens are selected by length.
                let room = max(Int(grammar.stringBounds(n).maximum - length), 1)
                let count = Int(vocabulary.escapeTailCount[min(room, vocabulary.longestToken)])
                for t in vocabulary.escapeTails[0..<count] { result.insert(Int(t)) }
                walkString(vocabulary.escapeOtherTrie, stack: stack, into: &result)
            } else {
                walkString(vocabulary.trie, stack: stack, into: &result)
            }
        }
        return result
    }
}

/// A trie node reached by `walkString`, with the string's length and state there.
private struct StringWalkItem {
    var node: Int32
    var length: Int32
    var state: StringState
}
