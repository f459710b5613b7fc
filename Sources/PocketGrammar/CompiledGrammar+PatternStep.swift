// One byte of a pattern-constrained string: the automaton moves on whole characters, and
// every check that depends on the string's length limit is a bound on the room left.

extension CompiledGrammar {
    /// Where a pattern-constrained string is: automaton state, bytes so far, and a partly read
    /// UTF-8 character (`pending` bytes to come, `scalar` its bits so far, `width` its size).
    struct PatternPosition: Hashable {
        var states: UInt64
        var length: Int32
        var scalar: UInt32 = 0
        var pending: UInt8 = 0
        var width: UInt8 = 0
    }

    /// Advances pattern string `n` by one content byte (not the closing quote); nil when the
    /// byte is not allowed. A byte is refused when the pattern could not be completed within
    /// the length limit after it, or when a multi-byte character's prefix allows no character
    /// the pattern accepts. Characters JSON must escape are never produced inside patterns.
    static func patternStep(_ nfa: PatternAutomaton, _ maximum: Int32, _ at: PatternPosition, _ byte: UInt8) -> PatternPosition? {
        guard let (next, need) = patternStep(nfa, at, byte), need <= Int(maximum - at.length) else { return nil }
        return next
    }

    /// Advances a pattern string by one content byte whatever its length limit: the next
    /// position and the least room (`maximum - at.length`) the byte needs, or nil when no
    /// limit would allow it.
    ///
    /// The length limit enters every check only as "the bytes this character adds, plus the
    /// shortest completion after it, fit in the room left". So a token needs, at most, the
    /// largest such need over its bytes, and it is allowed for every room at least that: masks
    /// inside pattern strings are computed once per position and reused at any length.
    static func patternStep(_ nfa: PatternAutomaton, _ at: PatternPosition, _ byte: UInt8) -> (PatternPosition, need: Int)? {
        var next = at
        if at.pending > 0 {
            guard byte & 0xC0 == 0x80 else { return nil }
            let value = at.scalar << 6 | UInt32(byte & 0x3F)
            if at.pending > 1 {
                let shift = UInt32(6 * (at.pending - 1))
                guard let range = Self.scalarRange(prefix: value, shift: shift, width: at.width) else { return nil }
                let after = nfa.distance(at.states, after: range)
                guard after != Int.max else { return nil }
                next.scalar = value
                next.pending -= 1
                return (next, after)   // the length already counts the whole character
            }
            guard value >= 0x80, !(0xD800...0xDFFF).contains(value), value <= 0x10FFFF else { return nil }
            let states = nfa.step(at.states, value)
            let distance = nfa.distance(states)
            guard states != 0, distance != Int.max else { return nil }
            return (PatternPosition(states: states, length: at.length), distance)
        }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0..<0x20:
            return nil
        case 0x20..<0x80:
            let states = nfa.step(at.states, UInt32(byte))
            let distance = nfa.distance(states)
            guard states != 0, distance != Int.max else { return nil }
            return (PatternPosition(states: states, length: at.length + 1), 1 + distance)
        default:
            let needed: UInt8
            switch byte {
            case 0xC2...0xDF: needed = 1
            case 0xE0...0xEF: needed = 2
            case 0xF0...0xF4: needed = 3
            default: return nil
            }
            let bits = UInt32(byte) & (needed == 1 ? 0x1F : needed == 2 ? 0x0F : 0x07)
            guard let range = Self.scalarRange(prefix: bits, shift: UInt32(6 * needed), width: needed + 1) else { return nil }
            let after = nfa.distance(at.states, after: range)
            guard after != Int.max else { return nil }
            next.length = at.length + Int32(needed) + 1
            next.scalar = bits
            next.pending = needed
            next.width = needed + 1
            return (next, Int(needed) + 1 + after)
        }
    }

    /// The scalars a partly read UTF-8 character can still become: those whose leading bits
    /// are `prefix` (with `shift` bits to come), within the values an encoding of `width`
    /// bytes may hold (no overlong forms). Nil when none.
    static func scalarRange(prefix: UInt32, shift: UInt32, width: UInt8) -> ClosedRange<UInt32>? {
        let valid: ClosedRange<UInt32> = width == 2 ? 0x80...0x7FF : width == 3 ? 0x800...0xFFFF : 0x10000...0x10FFFF
        let low = max(prefix << shift, valid.lowerBound)
        let high = min((prefix << shift) | ((1 << shift) - 1), valid.upperBound)
        return low <= high ? low...high : nil
    }
}
