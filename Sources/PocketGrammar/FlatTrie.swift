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
