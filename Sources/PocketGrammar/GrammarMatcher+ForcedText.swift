extension GrammarMatcher {
    /// The bytes every continuation of the document must start with: the text the grammar
    /// leaves no choice about (a property's key and colon, the rest of an enum case that only
    /// one case can still be, a closing brace). Empty where the next byte is a choice or the
    /// document may end.
    ///
    /// A decoder can append the forced text without sampling and evaluate its tokens in one
    /// pass, as it would a prompt. The result is cached per parse state: in an array of objects
    /// every element's keys cost one search.
    ///
    /// ```swift
    /// // After `{"name":"Ada"` with `age` the next required property:
    /// matcher.forcedBytes()   // Array(#","age":"#.utf8) (then the number is a choice)
    /// ```
    ///
    /// - Parameter limit: At most this many bytes.
    /// - Complexity: Each forced byte tries all 256 bytes on the parse state, once per state.
    public mutating func forcedBytes(limit: Int = 64) -> [UInt8] {
        let state = current
        if let cached = cache.forced[state] { return Array(cached.prefix(limit)) }
        var stacks = state
        var forced: [UInt8] = []
        search: while forced.count < 64 && !grammar.isAccepting(stacks) {
            var only: (byte: UInt8, stacks: [[Frame]])?
            for byte in UInt8.min...UInt8.max {
                let next = grammar.advance(stacks, byte)
                guard !next.isEmpty else { continue }
                if only != nil { break search }
                only = (byte, next)
            }
            guard let (byte, next) = only else { break }
            forced.append(byte)
            stacks = next
        }
        cache.forced[state] = forced
        return Array(forced.prefix(limit))
    }
}
