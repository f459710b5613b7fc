// One byte of plain (unpatterned) string content as a pure function of a few integers.
//
// The byte transitions (`feedString`) and the allocation-free trie walk over string states
// (`GrammarMatcher.walkString`) both use it, so the fast mask path cannot drift from the
// matcher's rules.

/// What one content byte does to an open string.
enum StringStepResult {
    /// The byte is refused.
    case dead
    /// The string goes on, `length` bytes long, in `state`.
    case content(length: Int32, state: StringState)
    /// The byte is the closing quote: the string is finished.
    case close
}

extension CompiledGrammar {
    /// The character bounds (`minimum`) and byte limit (`maximum`) of string node `node`.
    func stringBounds(_ node: Int32) -> (minimum: Int32, maximum: Int32) {
        switch node {
        case SpecialNode.anyValue: (0, Int32(GrammarSchema.StringConstraint.defaultMaximumLength))
        case SpecialNode.key: (0, 256)
        default:
            if case .string(let minimum, let maximum) = kinds[Int(node)] { (minimum, maximum) } else { (0, 0) }
        }
    }

    /// Advances string content `length` bytes long in `state` by `byte`, for a string of at
    /// least `minimum` characters and at most `maximum` bytes.
    @inline(__always)
    static func stringStep(minimum: Int32, maximum: Int32, length: Int32, state: StringState, byte: UInt8) -> StringStepResult {
        var state = state
        if state.continuation > 0 {
            guard byte >= state.low && byte <= state.high else { return .dead }
            state.continuation -= 1
            state.low = 0x80
            state.high = 0xBF
            return .content(length: length, state: state)
        }
        if state.escape == 1 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                 UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                state.escape = 0
            case UInt8(ascii: "u"):
                guard length + 4 <= maximum else { return .dead }
                state.escape = 2
            default: return .dead
            }
            return .content(length: length + 1, state: state)
        }
        if state.escape >= 2 {
            guard isHexDigit(byte) else { return .dead }
            state.escape = state.escape == 5 ? 0 : state.escape + 1
            return .content(length: length + 1, state: state)
        }
        if byte == UInt8(ascii: "\"") { return state.characters >= minimum ? .close : .dead }
        state = state.begun(minimum)
        switch byte {
        case UInt8(ascii: "\\"):
            guard length + 2 <= maximum else { return .dead }
            state.escape = 1
            return .content(length: length + 1, state: state)
        case 0x20...0x7F:
            guard length + 1 <= maximum else { return .dead }
            return .content(length: length + 1, state: state)
        default:
            // UTF-8 lead bytes and the ranges their first continuation byte must fall in,
            // excluding overlong forms and surrogates. Controls below 0x20 must be escaped.
            let needed: Int32
            switch byte {
            case 0xC2...0xDF: needed = 2
            case 0xE0: needed = 3; state.low = 0xA0
            case 0xED: needed = 3; state.high = 0x9F
            case 0xE1...0xEC, 0xEE...0xEF: needed = 3
            case 0xF0: needed = 4; state.low = 0x90
            case 0xF1...0xF3: needed = 4
            case 0xF4: needed = 4; state.high = 0x8F
            default: return .dead
            }
            guard length + needed <= maximum else { return .dead }
            state.continuation = UInt8(needed - 1)
            return .content(length: length + needed, state: state)
        }
    }

    @inline(__always)
    static func isHexDigit(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x46).contains(b) || (0x61...0x66).contains(b)
    }
}
