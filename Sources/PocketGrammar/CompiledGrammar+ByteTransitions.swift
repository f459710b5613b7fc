// `CompiledGrammar`'s byte transitions: a set of parse stacks (see `Frame`) advanced one byte
// at a time.
//
// A byte moves every stack forward (or kills it); choices (`anyOf`, optional properties, enum
// strings that share a prefix) are followed in parallel as separate stacks and merged when
// identical. An empty stack means the document is complete. Output is compact JSON: no
// whitespace outside strings, properties in schema order.

extension CompiledGrammar {
    /// The starting stacks of a document.
    var initialStacks: [[Frame]] { [[.expect(root)]] }

    /// Advances every stack by `byte`; returns the surviving, de-duplicated stacks.
    func advance(_ stacks: [[Frame]], _ byte: UInt8) -> [[Frame]] {
        var out: [[Frame]] = []
        for stack in stacks { feed(stack, byte, into: &out) }
        if out.count > 1 {
            var seen = Set<[Frame]>()
            out = out.filter { seen.insert($0).inserted }
        }
        return out
    }

    /// Whether `bytes` is a complete document of the grammar.
    package func accepts(_ bytes: [UInt8]) -> Bool {
        var stacks = initialStacks
        for b in bytes {
            stacks = advance(stacks, b)
            if stacks.isEmpty { return false }
        }
        return isAccepting(stacks)
    }

    /// The parse state with the lengths of open strings replaced by a marker when they are
    /// far from both bounds: beyond the longest token, how much room is left cannot change
    /// which tokens fit, so such states share one cached mask.
    func cacheKey(_ stacks: [[Frame]], longestToken: Int) -> [[Frame]] {
        stacks.map { stack in
            stack.map { frame in
                guard case .string(let n, let length, let state) = frame else { return frame }
                let (minimum, maximum) = stringBounds(n)
                if state.characters >= minimum && Int(maximum - length) > longestToken + 6 {
                    return .string(n, length: -1, state: state)
                }
                return frame
            }
        }
    }

    /// The stacks after the closing `"` of the pattern string on top of every stack of
    /// `stacks`, for a string whose pattern has matched: the finished value is popped, so the
    /// result does not depend on the string's content or length. Stacks with anything else on
    /// top are dropped.
    func closingPatternStrings(_ stacks: [[Frame]]) -> [[Frame]] {
        var out: [[Frame]] = []
        for stack in stacks {
            guard case .patternString(_, _, _, _, let pending, _)? = stack.last, pending == 0 else { continue }
            complete(stack, into: &out)
        }
        if out.count > 1 {
            var seen = Set<[Frame]>()
            out = out.filter { seen.insert($0).inserted }
        }
        return out
    }

    /// Whether the document may end here.
    func isAccepting(_ stacks: [[Frame]]) -> Bool {
        stacks.contains { stack in
            if stack.isEmpty { return true }
            // A number at the top level ends with the document.
            if stack.count == 1, case .number(let n) = stack[0] { return numberIsComplete(n) }
            return false
        }
    }

    /// Pops a finished value and lets its parent move on.
    func complete(_ stack: [Frame], into out: inout [[Frame]]) {
        var stack = stack
        stack.removeLast()
        guard let parent = stack.last else { out.append(stack); return }
        switch parent {
        case .objectValue(let n, let p): stack[stack.count - 1] = .objectNext(n, after: p)
        case .arrayItem(let n, let c): stack[stack.count - 1] = .arrayNext(n, count: c + 1)
        case .freeObjectKey: stack[stack.count - 1] = .freeObjectColon
        case .freeObjectValue: stack[stack.count - 1] = .freeObjectNext
        case .freeArrayItem: stack[stack.count - 1] = .freeArrayNext
        case .extraKey(let n, let r): stack[stack.count - 1] = .extraColon(n, rule: r)
        case .extraValue(let n, _): stack[stack.count - 1] = .extraNext(n)
        default: return  // not a waiting frame: cannot happen for well-formed stacks
        }
        out.append(stack)
    }

    private func replacingTop(_ stack: [Frame], with frame: Frame) -> [Frame] {
        var stack = stack
        stack[stack.count - 1] = frame
        return stack
    }

    /// Property indices of object `n` that may come next after property `after` (-1: none yet),
    /// and whether the object may close.
    private func nextProperties(_ n: Int32, after: Int32) -> (candidates: [Int32], canClose: Bool) {
        guard case .object(let props, _) = kinds[Int(n)] else { return ([], false) }
        var candidates: [Int32] = []
        var i = Int(after) + 1
        while i < props.count {
            candidates.append(Int32(i))
            if properties[Int(props[i])].isRequired { return (candidates, false) }
            i += 1
        }
        return (candidates, true)
    }

    private func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x09 || b == 0x0D }

    /// Frames between JSON tokens, where optional whitespace may appear.
    private func isBetweenTokens(_ frame: Frame) -> Bool {
        switch frame {
        case .expect, .objectOpen, .objectNext, .objectComma, .arrayOpen, .arrayNext,
             .freeObjectOpen, .freeObjectColon, .freeObjectNext, .freeObjectComma, .freeArrayOpen, .freeArrayNext,
             .extraColon, .extraNext, .extraComma: true
        default: false
        }
    }

    /// Advances one stack by `byte`, appending the stacks it becomes to `out` (none when the
    /// byte is refused). Optional whitespace between tokens is handled here; everything else
    /// by the function of the top frame's family.
    private func feed(_ stack: [Frame], _ byte: UInt8, into out: inout [[Frame]]) {
        guard let top = stack.last else { return }  // a complete document takes no more bytes
        if maximumWhitespace > 0 && isWhitespace(byte) && isBetweenTokens(top) {
            var next = stack
            next.append(.whitespace(run: 1))
            out.append(next)
            return
        }
        switch top {
        case .whitespace(let run):
            feedWhitespace(stack, run, byte, into: &out)
        case .expect(let n):
            feedValueStart(stack, n, byte, into: &out)
        case .literal(let id, let matched):
            feedLiteral(stack, id, matched, byte, into: &out)
        case .objectOpen, .objectNext, .objectComma, .objectKey:
            feedObject(stack, top, byte, into: &out)
        case .extraColon, .extraNext, .extraComma:
            feedExtra(stack, top, byte, into: &out)
        case .arrayOpen, .arrayNext:
            feedArray(stack, top, byte, into: &out)
        case .string(let n, let length, let state):
            feedString(stack, n, length, state, byte, into: &out)
        case .patternString(let n, let states, let length, let scalar, let pending, let width):
            let position = PatternPosition(states: states, length: length, scalar: scalar, pending: pending, width: width)
            feedPatternString(stack, n, position, byte, into: &out)
        case .number(let state):
            feedNumber(stack, state, byte, into: &out)
        case .freeObjectOpen, .freeObjectColon, .freeObjectNext, .freeObjectComma:
            feedFreeObject(stack, top, byte, into: &out)
        case .freeArrayOpen, .freeArrayNext:
            feedFreeArray(stack, top, byte, into: &out)
        case .objectValue, .arrayItem, .freeObjectKey, .freeObjectValue, .freeArrayItem, .extraKey, .extraValue:
            return  // waiting frames are never on top
        }
    }

    /// Inside a run of whitespace: more whitespace up to the limit, or the byte after it.
    @inline(__always)
    private func feedWhitespace(_ stack: [Frame], _ run: Int32, _ byte: UInt8, into out: inout [[Frame]]) {
        if isWhitespace(byte) {
            if run < maximumWhitespace { out.append(replacingTop(stack, with: .whitespace(run: run + 1))) }
        } else {
            feed(Array(stack.dropLast()), byte, into: &out)
        }
    }

    /// Inside a literal (key, enum string, `true`…): its next byte.
    @inline(__always)
    private func feedLiteral(_ stack: [Frame], _ id: Int32, _ matched: Int32, _ byte: UInt8, into out: inout [[Frame]]) {
        let bytes = literals[Int(id)]
        guard bytes[Int(matched)] == byte else { return }
        if Int(matched) + 1 == bytes.count {
            complete(stack, into: &out)
        } else {
            out.append(replacingTop(stack, with: .literal(id: id, matched: matched + 1)))
        }
    }

    /// An object of the schema: after `{`, after a value, after `,`, or inside a `"key":`.
    @inline(__always)
    private func feedObject(_ stack: [Frame], _ top: Frame, _ byte: UInt8, into out: inout [[Frame]]) {
        switch top {
        case .objectOpen(let n):
            let (candidates, canClose) = nextProperties(n, after: -1)
            if byte == UInt8(ascii: "}") && canClose { complete(stack, into: &out) }
            if byte == UInt8(ascii: "\"") {
                for q in candidates { out.append(replacingTop(stack, with: .objectKey(n, property: q, matched: 1))) }
                if canClose { startExtraKey(stack, n, into: &out) }
            }
        case .objectNext(let n, let after):
            let (candidates, canClose) = nextProperties(n, after: after)
            if byte == UInt8(ascii: "}") && canClose { complete(stack, into: &out) }
            if byte == UInt8(ascii: ",") && (!candidates.isEmpty || (canClose && hasExtras(n))) {
                out.append(replacingTop(stack, with: .objectComma(n, after: after)))
            }
        case .objectComma(let n, let after):
            guard byte == UInt8(ascii: "\"") else { return }
            let (candidates, canClose) = nextProperties(n, after: after)
            for q in candidates {
                out.append(replacingTop(stack, with: .objectKey(n, property: q, matched: 1)))
            }
            if canClose { startExtraKey(stack, n, into: &out) }
        case .objectKey(let n, let q, let matched):
            guard case .object(let props, _) = kinds[Int(n)] else { return }
            let property = properties[Int(props[Int(q)])]
            let key = literals[Int(property.key)]
            guard key[Int(matched)] == byte else { return }
            if Int(matched) + 1 == key.count {
                var next = replacingTop(stack, with: .objectValue(n, property: q))
                next.append(.expect(property.node))
                out.append(next)
            } else {
                out.append(replacingTop(stack, with: .objectKey(n, property: q, matched: matched + 1)))
            }
        default:
            return
        }
    }

    /// An object's extra keys (beyond its declared properties): the `:` after a key, then `,`
    /// or `}` after a value, then the `"` of the next key.
    @inline(__always)
    private func feedExtra(_ stack: [Frame], _ top: Frame, _ byte: UInt8, into out: inout [[Frame]]) {
        switch top {
        case .extraColon(let n, let r):
            guard byte == UInt8(ascii: ":"), case .object(_, let extras) = kinds[Int(n)] else { return }
            var next = replacingTop(stack, with: .extraValue(n, rule: r))
            next.append(.expect(extras[Int(r)].value))
            out.append(next)
        case .extraNext(let n):
            if byte == UInt8(ascii: "}") { complete(stack, into: &out) }
            if byte == UInt8(ascii: ",") { out.append(replacingTop(stack, with: .extraComma(n))) }
        case .extraComma(let n):
            if byte == UInt8(ascii: "\"") { startExtraKey(stack, n, into: &out) }
        default:
            return
        }
    }

    /// An array of the schema: after `[` (the first element or `]`), after an element (`,` or `]`).
    @inline(__always)
    private func feedArray(_ stack: [Frame], _ top: Frame, _ byte: UInt8, into out: inout [[Frame]]) {
        switch top {
        case .arrayOpen(let n):
            guard case .array(_, let minimum, let maximum, _) = kinds[Int(n)] else { return }
            if byte == UInt8(ascii: "]") && minimum == 0 { complete(stack, into: &out); return }
            let item = itemNode(n, 0)
            guard maximum > 0, item != SpecialNode.none else { return }
            var next = replacingTop(stack, with: .arrayItem(n, count: 0))
            next.append(.expect(item))
            feed(next, byte, into: &out)
        case .arrayNext(let n, let count):
            guard case .array(_, let minimum, let maximum, _) = kinds[Int(n)] else { return }
            if byte == UInt8(ascii: "]") && count >= minimum { complete(stack, into: &out) }
            let item = itemNode(n, count)
            if byte == UInt8(ascii: ","), count < maximum, item != SpecialNode.none {
                var next = replacingTop(stack, with: .arrayItem(n, count: count))
                next.append(.expect(item))
                out.append(next)
            }
        default:
            return
        }
    }

    /// Inside a pattern-constrained string: the closing `"` once the pattern has matched, or a
    /// content byte the pattern and the length limit allow.
    @inline(__always)
    private func feedPatternString(_ stack: [Frame], _ n: Int32, _ position: PatternPosition, _ byte: UInt8, into out: inout [[Frame]]) {
        if byte == UInt8(ascii: "\""), position.pending == 0 {
            guard case .pattern(let p, _) = kinds[Int(n)], patterns[Int(p)].isAccepting(position.states) else { return }
            complete(stack, into: &out)
        } else if case .pattern(let p, let maximum) = kinds[Int(n)],
                  let next = Self.patternStep(patterns[Int(p)], maximum, position, byte) {
            out.append(replacingTop(stack, with: .patternString(
                n, states: next.states, length: next.length, scalar: next.scalar, pending: next.pending, width: next.width)))
        }
    }

    /// Inside a number: a byte that extends it, or, once it is complete, the parent's next byte.
    @inline(__always)
    private func feedNumber(_ stack: [Frame], _ state: NumberState, _ byte: UInt8, into out: inout [[Frame]]) {
        if let next = extend(state, byte) {
            out.append(replacingTop(stack, with: .number(next)))
        } else if numberIsComplete(state) {
            // The byte ends the number and belongs to the parent.
            var finished: [[Frame]] = []
            complete(stack, into: &finished)
            for s in finished { feed(s, byte, into: &out) }
        }
    }

    /// An any-value object: after `{`, after a key (`:`), after a value (`,` or `}`), after `,`.
    @inline(__always)
    private func feedFreeObject(_ stack: [Frame], _ top: Frame, _ byte: UInt8, into out: inout [[Frame]]) {
        switch top {
        case .freeObjectOpen:
            if byte == UInt8(ascii: "}") { complete(stack, into: &out) }
            if byte == UInt8(ascii: "\"") {
                var next = replacingTop(stack, with: .freeObjectKey)
                next.append(.string(SpecialNode.key, length: 0, state: StringState()))
                out.append(next)
            }
        case .freeObjectColon:
            guard byte == UInt8(ascii: ":") else { return }
            var next = replacingTop(stack, with: .freeObjectValue)
            next.append(.expect(SpecialNode.anyValue))
            out.append(next)
        case .freeObjectNext:
            if byte == UInt8(ascii: "}") { complete(stack, into: &out) }
            if byte == UInt8(ascii: ",") { out.append(replacingTop(stack, with: .freeObjectComma)) }
        case .freeObjectComma:
            guard byte == UInt8(ascii: "\"") else { return }
            var next = replacingTop(stack, with: .freeObjectKey)
            next.append(.string(SpecialNode.key, length: 0, state: StringState()))
            out.append(next)
        default:
            return
        }
    }

    /// An any-value array: after `[` (an element or `]`), after an element (`,` or `]`).
    @inline(__always)
    private func feedFreeArray(_ stack: [Frame], _ top: Frame, _ byte: UInt8, into out: inout [[Frame]]) {
        switch top {
        case .freeArrayOpen:
            if byte == UInt8(ascii: "]") { complete(stack, into: &out); return }
            var next = replacingTop(stack, with: .freeArrayItem)
            next.append(.expect(SpecialNode.anyValue))
            feed(next, byte, into: &out)
        case .freeArrayNext:
            if byte == UInt8(ascii: "]") { complete(stack, into: &out) }
            if byte == UInt8(ascii: ",") {
                var next = replacingTop(stack, with: .freeArrayItem)
                next.append(.expect(SpecialNode.anyValue))
                out.append(next)
            }
        default:
            return
        }
    }

    /// The node of array `n`'s element at `index`.
    private func itemNode(_ n: Int32, _ index: Int32) -> Int32 {
        guard case .array(let items, _, _, let prefix) = kinds[Int(n)] else { return SpecialNode.none }
        return Int(index) < prefix.count ? prefix[Int(index)] : items
    }

    private func hasExtras(_ n: Int32) -> Bool {
        if case .object(_, let extras) = kinds[Int(n)] { return !extras.isEmpty }
        return false
    }

    /// After the `"` that opens an extra key: one stack per rule, inside its key string.
    private func startExtraKey(_ stack: [Frame], _ n: Int32, into out: inout [[Frame]]) {
        guard case .object(_, let extras) = kinds[Int(n)] else { return }
        for (r, e) in extras.enumerated() {
            var next = replacingTop(stack, with: .extraKey(n, rule: Int32(r)))
            next.append(.expect(e.key))
            feedValueStart(next, e.key, UInt8(ascii: "\""), into: &out)
        }
    }

    private func feedValueStart(_ stack: [Frame], _ n: Int32, _ byte: UInt8, into out: inout [[Frame]]) {
        if n == SpecialNode.anyValue {
            // Nesting is bounded so that a document can always be closed within the context.
            let deep = stack.count >= maximumDepth
            switch byte {
            case UInt8(ascii: "{") where !deep: out.append(replacingTop(stack, with: .freeObjectOpen))
            case UInt8(ascii: "["):
                if !deep { out.append(replacingTop(stack, with: .freeArrayOpen)) }
            case UInt8(ascii: "\""): out.append(replacingTop(stack, with: .string(n, length: 0, state: StringState())))
            case UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                for word in ["true", "false", "null"] where word.utf8.first == byte {
                    out.append(replacingTop(stack, with: .literal(id: keywordLiteral(word), matched: 1)))
                }
            default:
                if let start = startNumber(n, byte) { out.append(replacingTop(stack, with: .number(start))) }
            }
            return
        }
        switch kinds[Int(n)] {
        case .object:
            if byte == UInt8(ascii: "{") { out.append(replacingTop(stack, with: .objectOpen(n))) }
        case .array:
            if byte == UInt8(ascii: "[") && stack.count < maximumDepth { out.append(replacingTop(stack, with: .arrayOpen(n))) }
        case .string:
            if byte == UInt8(ascii: "\"") { out.append(replacingTop(stack, with: .string(n, length: 0, state: StringState()))) }
        case .pattern(let p, _):
            if byte == UInt8(ascii: "\"") {
                out.append(replacingTop(stack, with: .patternString(n, states: patterns[Int(p)].initial, length: 0, scalar: 0, pending: 0, width: 0)))
            }
        case .choices(let ids):
            for id in ids where literals[Int(id)][0] == byte {
                let next = replacingTop(stack, with: .literal(id: id, matched: 1))
                if literals[Int(id)].count == 1 { complete(next, into: &out) } else { out.append(next) }
            }
        case .literal(let id):
            if literals[Int(id)][0] == byte {
                let next = replacingTop(stack, with: .literal(id: id, matched: 1))
                if literals[Int(id)].count == 1 { complete(next, into: &out) } else { out.append(next) }
            }
        case .integer, .number:
            if let start = startNumber(n, byte) { out.append(replacingTop(stack, with: .number(start))) }
        case .anyOf(let alternatives):
            guard stack.count < maximumDepth else { return }
            for a in alternatives { feedValueStart(replacingTop(stack, with: .expect(a)), a, byte, into: &out) }
        case .anyValue:
            feedValueStart(replacingTop(stack, with: .expect(SpecialNode.anyValue)), SpecialNode.anyValue, byte, into: &out)
        }
    }

    private func feedString(_ stack: [Frame], _ n: Int32, _ length: Int32, _ state: StringState, _ byte: UInt8, into out: inout [[Frame]]) {
        let (minimum, maximum) = stringBounds(n)
        switch Self.stringStep(minimum: minimum, maximum: maximum, length: length, state: state, byte: byte) {
        case .dead: return
        case .content(let length, let state): out.append(replacingTop(stack, with: .string(n, length: length, state: state)))
        case .close: complete(stack, into: &out)
        }
    }

    private func keywordLiteral(_ word: String) -> Int32 {
        Int32(literals.firstIndex(of: Array(word.utf8))!)
    }
}
