import Testing
@testable import PocketGrammar

@Suite struct VocabularyTests {
    /// Every spellable token is found by following its bytes from the root, at exactly one
    /// node; end-of-generation and byte-less tokens are not in the trie.
    @Test func everyTokenIsSpelledByItsPath() {
        let vocabulary = SyntheticVocabulary.vocabulary
        let trie = vocabulary.trie
        var seen = 0
        for (id, bytes) in vocabulary.tokens.enumerated() {
            var node = 0
            var found = true
            for b in bytes {
                let edges = Int(trie.edgeStart[node])..<Int(trie.edgeStart[node + 1])
                guard let e = edges.first(where: { trie.bytes[$0] == b }) else { found = false; break }
                node = Int(trie.targets[e])
            }
            let here = trie.tokens[Int(trie.tokenStart[node])..<Int(trie.tokenStart[node + 1])]
            let spellable = !bytes.isEmpty && !vocabulary.endOfGeneration.contains(id)
            #expect((found && here.contains(Int32(id))) == spellable, "token \(id) \(bytes)")
            if spellable { seen += 1 }
        }
        #expect(trie.tokens.count == seen)
    }

    /// Nodes are numbered depth first, children by increasing byte: each node's first child is
    /// the next node, and each further child starts right after its elder sibling's subtree,
    /// so every subtree is one contiguous range of nodes.
    @Test func trieNodesAreInDepthFirstOrder() {
        let trie = SyntheticVocabulary.vocabulary.trie
        let count = trie.edgeStart.count - 1
        // Subtree end (one past its last node) of each node, from the leaves up.
        var end = [Int](repeating: 0, count: count)
        for node in stride(from: count - 1, through: 0, by: -1) {
            var next = node + 1
            for e in Int(trie.edgeStart[node])..<Int(trie.edgeStart[node + 1]) {
                #expect(Int(trie.targets[e]) == next, "node \(node): child \(trie.targets[e]), expected \(next)")
                if e > Int(trie.edgeStart[node]) { #expect(trie.bytes[e - 1] < trie.bytes[e]) }
                next = end[Int(trie.targets[e])]
            }
            end[node] = next
        }
        #expect(end[0] == count)
    }
}
