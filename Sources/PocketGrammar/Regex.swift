/// Regular expressions for string `pattern`s, compiled to a small NFA over Unicode scalars.
///
/// Supported: literals; escapes `\d \w \s \D \W \S` and escaped metacharacters; `.`; classes
/// `[a-z0-9_]` with ranges and `^` negation; groups `( )` and `(?: )`; alternation `|`;
/// quantifiers `* + ? {m} {m,} {m,n}`; `^` at the start and `$` at the end. A pattern always
/// matches the whole string (as Apple's guides and schema patterns are used). Anything else
/// (backreferences, lookaround, lazy quantifiers, named groups…) is an error. The NFA is kept to
/// at most 64 states so a set of states fits in one machine word.
struct RegexNFA: Sendable, Hashable {
    /// A set of scalar ranges, possibly negated.
    struct CharacterClass: Sendable, Hashable {
        var ranges: [ClosedRange<UInt32>]
        var negated = false

        func contains(_ v: UInt32) -> Bool {
            ranges.contains { $0.contains(v) } != negated
        }
    }

    /// A state: consume one scalar of `character` and go to `next`, or (when `character` is
    /// nil) move without input to `next` and optionally `alternative`.
    struct State: Sendable, Hashable {
        var character: CharacterClass?
        var next: Int32
        var alternative: Int32 = -1
    }

    var states: [State]
    var start: Int32
    var accept: Int32
    /// Fewest bytes of input that lead from each state to a match (`Int.max`: none). Lets a
    /// length-bounded string refuse a character after which the pattern could no longer be
    /// completed within the limit.
    var distances: [Int]

    /// Fewest bytes from any state of `set` to a match.
    func distance(_ set: UInt64) -> Int {
        var best = Int.max
        var bits = set
        while bits != 0 {
            best = min(best, distances[bits.trailingZeroBitCount])
            bits &= bits - 1
        }
        return best
    }

    static let maximumStates = 64

    /// The states reachable from `set` without input.
    func closure(_ set: UInt64) -> UInt64 {
        var result = set
        var pending = set
        while pending != 0 {
            let i = pending.trailingZeroBitCount
            pending &= pending - 1
            let s = states[i]
            guard s.character == nil else { continue }
            for t in [s.next, s.alternative] where t >= 0 && result & (1 << UInt64(t)) == 0 {
                result |= 1 << UInt64(t)
                pending |= 1 << UInt64(t)
            }
        }
        return result
    }

    var initial: UInt64 { closure(1 << UInt64(start)) }

    func step(_ set: UInt64, _ scalar: UInt32) -> UInt64 {
        var next: UInt64 = 0
        var bits = set
        while bits != 0 {
            let i = bits.trailingZeroBitCount
            bits &= bits - 1
            if let c = states[i].character, c.contains(scalar) { next |= 1 << UInt64(states[i].next) }
        }
        return closure(next)
    }

    func isAccepting(_ set: UInt64) -> Bool { set & (1 << UInt64(accept)) != 0 }

    /// Whether some state of `set` accepts a character in `range` (used while a multi-byte
    /// character is only partly read, so its prefix is refused when nothing could follow).
    func accepts(_ set: UInt64, anyOf range: ClosedRange<UInt32>) -> Bool {
        var bits = set
        while bits != 0 {
            let i = bits.trailingZeroBitCount
            bits &= bits - 1
            guard let c = states[i].character else { continue }
            if c.negated {
                if !c.ranges.contains(where: { $0.lowerBound <= range.lowerBound && range.upperBound <= $0.upperBound }) { return true }
            } else if c.ranges.contains(where: { $0.overlaps(range) }) {
                return true
            }
        }
        return false
    }

    /// Compiles `pattern`.
    init(_ pattern: String) throws(GrammarError) {
        var parser = RegexParser(Array(pattern.unicodeScalars), pattern: pattern)
        var builder = Builder()
        let fragment = try parser.parse(&builder)
        guard builder.states.count + 1 <= Self.maximumStates else {
            throw .invalidSchema("pattern '\(pattern)' is too complex (more than \(Self.maximumStates) states)", path: "")
        }
        let accept = builder.add(State(character: nil, next: -1))
        builder.patch(fragment.exits, to: accept)
        states = builder.states
        start = fragment.start
        self.accept = accept
        // Shortest distances by relaxation (at most 64 states).
        var d = [Int](repeating: Int.max, count: states.count)
        d[Int(accept)] = 0
        var changed = true
        while changed {
            changed = false
            for (i, s) in states.enumerated() {
                var best = d[i]
                if let c = s.character {
                    if s.next >= 0, d[Int(s.next)] != Int.max { best = min(best, Self.shortestEncoding(c) + d[Int(s.next)]) }
                } else {
                    for t in [s.next, s.alternative] where t >= 0 && d[Int(t)] != Int.max { best = min(best, d[Int(t)]) }
                }
                if best < d[i] { d[i] = best; changed = true }
            }
        }
        distances = d
    }

    /// Bytes of the shortest UTF-8 encoding of a character the class allows (JSON-escaped
    /// characters are never produced, so they do not count).
    static func shortestEncoding(_ c: CharacterClass) -> Int {
        if c.negated { return 1 }
        var best = Int.max
        for r in c.ranges {
            for v in [r.lowerBound, max(r.lowerBound, 0x20)] where r.contains(v) && v >= 0x20 && v != 0x22 && v != 0x5C {
                best = min(best, v < 0x80 ? 1 : v < 0x800 ? 2 : v < 0x10000 ? 3 : 4)
            }
            if r.contains(0x23) || r.contains(0x5D) { best = 1 }
        }
        return best == Int.max ? 4 : best
    }

    struct Fragment {
        var start: Int32
        var exits: [(state: Int32, alternative: Bool)]
    }

    struct Builder {
        var states: [State] = []
        mutating func add(_ s: State) -> Int32 {
            states.append(s)
            return Int32(states.count - 1)
        }
        mutating func patch(_ exits: [(state: Int32, alternative: Bool)], to target: Int32) {
            for e in exits {
                if e.alternative { states[Int(e.state)].alternative = target } else { states[Int(e.state)].next = target }
            }
        }
        mutating func character(_ c: CharacterClass) -> Fragment {
            let s = add(State(character: c, next: -1))
            return Fragment(start: s, exits: [(s, false)])
        }
        mutating func empty() -> Fragment {
            let s = add(State(character: nil, next: -1))
            return Fragment(start: s, exits: [(s, false)])
        }
        mutating func concatenate(_ a: Fragment, _ b: Fragment) -> Fragment {
            patch(a.exits, to: b.start)
            return Fragment(start: a.start, exits: b.exits)
        }
        mutating func alternate(_ a: Fragment, _ b: Fragment) -> Fragment {
            let s = add(State(character: nil, next: a.start, alternative: b.start))
            return Fragment(start: s, exits: a.exits + b.exits)
        }
        mutating func optional(_ a: Fragment) -> Fragment {
            let s = add(State(character: nil, next: a.start, alternative: -1))
            return Fragment(start: s, exits: a.exits + [(s, true)])
        }
        mutating func star(_ a: Fragment) -> Fragment {
            let s = add(State(character: nil, next: a.start, alternative: -1))
            patch(a.exits, to: s)
            return Fragment(start: s, exits: [(s, true)])
        }
    }
}

/// Recursive-descent parser from pattern text to NFA fragments.
struct RegexParser {
    let scalars: [Unicode.Scalar]
    let pattern: String
    var index = 0

    init(_ scalars: [Unicode.Scalar], pattern: String) {
        self.scalars = scalars
        self.pattern = pattern
    }

    func fail(_ message: String) -> GrammarError {
        .invalidSchema("pattern '\(pattern)': \(message) at character \(index)", path: "")
    }

    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    mutating func parse(_ b: inout RegexNFA.Builder) throws(GrammarError) -> RegexNFA.Fragment {
        if peek == "^" { index += 1 }
        let f = try alternation(&b, depth: 0)
        if peek == "$" { index += 1 }
        guard index == scalars.count else { throw fail("unexpected '\(scalars[index])'") }
        return f
    }

    mutating func alternation(_ b: inout RegexNFA.Builder, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        var f = try sequence(&b, depth: depth)
        while peek == "|" {
            index += 1
            f = b.alternate(f, try sequence(&b, depth: depth))
        }
        return f
    }

    mutating func sequence(_ b: inout RegexNFA.Builder, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        var f: RegexNFA.Fragment?
        while let c = peek, c != "|", c != ")" {
            if c == "$" && index == scalars.count - 1 { break }
            var atomSource = index
            var atom = try self.atom(&b, depth: depth)
            atomSource = index - atomSource
            atom = try quantified(atom, &b, depth: depth)
            f = f.map { b.concatenate($0, atom) } ?? atom
            guard b.states.count <= RegexNFA.maximumStates else {
                throw fail("too complex (more than \(RegexNFA.maximumStates) states)")
            }
            _ = atomSource
        }
        return f ?? b.empty()
    }

    /// Re-parses the atom that starts at `start` (used to copy it for `{m,n}`).
    mutating func reparse(from start: Int, _ b: inout RegexNFA.Builder, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        let saved = index
        index = start
        let f = try atom(&b, depth: depth)
        index = saved
        return f
    }

    mutating func quantified(_ atom: RegexNFA.Fragment, _ b: inout RegexNFA.Builder, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        guard let q = peek else { return atom }
        switch q {
        case "*": index += 1; try noLazy(); return b.star(atom)
        case "+":
            index += 1; try noLazy()
            // a+ = a a*: the copy is made by re-parsing the atom's source.
            return try repeated(atom, minimum: 1, maximum: nil, &b, depth: depth)
        case "?": index += 1; try noLazy(); return b.optional(atom)
        case "{":
            let save = index
            index += 1
            guard let m = number() else { index = save; throw fail("malformed {m,n}") }
            var n: Int? = m
            if peek == "," {
                index += 1
                n = number()
            }
            guard peek == "}" else { throw fail("malformed {m,n}") }
            index += 1
            try noLazy()
            guard m <= 32, n.map({ $0 >= m && $0 <= 32 }) ?? true else { throw fail("repetition counts above 32") }
            return try repeated(atom, minimum: m, maximum: n, &b, depth: depth)
        default: return atom
        }
    }

    /// Source position of the most recent atom, for copying.
    var atomStarts: [Int] = []

    mutating func repeated(_ atom: RegexNFA.Fragment, minimum: Int, maximum: Int?, _ b: inout RegexNFA.Builder, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        guard let start = atomStarts.last else { throw fail("nothing to repeat") }
        var copies: [RegexNFA.Fragment] = [atom]
        let needed = max(minimum, maximum ?? minimum, 1)
        while copies.count < needed + (maximum == nil ? 1 : 0) {
            copies.append(try reparse(from: start, &b, depth: depth))
            guard b.states.count <= RegexNFA.maximumStates else { throw fail("too complex (more than \(RegexNFA.maximumStates) states)") }
        }
        var result: RegexNFA.Fragment?
        for i in 0..<max(minimum, 0) { result = result.map { b.concatenate($0, copies[i]) } ?? copies[i] }
        if let maximum {
            // Optional copies nest: (a(a(a)?)?)? keeps the NFA linear.
            var tail: RegexNFA.Fragment?
            if maximum > minimum {
                for i in stride(from: maximum - 1, through: minimum, by: -1) {
                    let piece = tail.map { b.concatenate(copies[i], $0) } ?? copies[i]
                    tail = b.optional(piece)
                }
            }
            if let tail { result = result.map { b.concatenate($0, tail) } ?? tail }
        } else {
            let loop = b.star(copies[minimum])
            result = result.map { b.concatenate($0, loop) } ?? loop
        }
        return result ?? b.empty()
    }

    mutating func noLazy() throws(GrammarError) {
        if peek == "?" || peek == "+" { throw fail("lazy or possessive quantifiers are not supported") }
    }

    mutating func number() -> Int? {
        var value: Int?
        while let c = peek, ("0"..."9").contains(c) {
            value = (value ?? 0) * 10 + Int(c.value - 48)
            index += 1
            if value! > 10_000 { return value }
        }
        return value
    }

    mutating func atom(_ b: inout RegexNFA.Builder, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        guard depth < 32 else { throw fail("groups nested too deeply") }
        let start = index
        defer { atomStarts.append(start) }
        guard let c = peek else { throw fail("unexpected end") }
        index += 1
        switch c {
        case "(":
            if peek == "?" {
                guard index + 1 < scalars.count, scalars[index + 1] == ":" else { throw fail("only (?: ) groups are supported") }
                index += 2
            }
            let inner = try alternation(&b, depth: depth + 1)
            guard peek == ")" else { throw fail("missing ')'") }
            index += 1
            return inner
        case "[": return b.character(try characterClass())
        case ".": return b.character(.init(ranges: [0x0A...0x0A], negated: true))
        case "\\": return b.character(try escape(inClass: false))
        case "*", "+", "?", "{": throw fail("nothing to repeat")
        case "^", "$": throw fail("anchors are only supported at the start and end")
        default: return b.character(.init(ranges: [c.value...c.value]))
        }
    }

    mutating func escape(inClass: Bool) throws(GrammarError) -> RegexNFA.CharacterClass {
        guard let e = peek else { throw fail("dangling backslash") }
        index += 1
        let digits: [ClosedRange<UInt32>] = [48...57]
        let word: [ClosedRange<UInt32>] = [48...57, 65...90, 95...95, 97...122]
        let space: [ClosedRange<UInt32>] = [9...13, 32...32]
        switch e {
        case "d": return .init(ranges: digits)
        case "D": return .init(ranges: digits, negated: true)
        case "w": return .init(ranges: word)
        case "W": return .init(ranges: word, negated: true)
        case "s": return .init(ranges: space)
        case "S": return .init(ranges: space, negated: true)
        case "n": return .init(ranges: [10...10])
        case "t": return .init(ranges: [9...9])
        case "r": return .init(ranges: [13...13])
        default:
            if ("0"..."9").contains(e) || ("a"..."z").contains(e) || ("A"..."Z").contains(e) {
                throw fail("unsupported escape \\\(e)")
            }
            return .init(ranges: [e.value...e.value])
        }
    }

    mutating func characterClass() throws(GrammarError) -> RegexNFA.CharacterClass {
        var negated = false
        if peek == "^" { negated = true; index += 1 }
        var ranges: [ClosedRange<UInt32>] = []
        var first = true
        while let c = peek, c != "]" || first {
            first = false
            index += 1
            var low: UInt32
            if c == "\\" {
                let cls = try escape(inClass: true)
                if cls.negated || cls.ranges.count != 1 || cls.ranges[0].count != 1 {
                    guard !cls.negated else { throw fail("negated escapes inside classes are not supported") }
                    ranges += cls.ranges
                    continue
                }
                low = cls.ranges[0].lowerBound
            } else {
                low = c.value
            }
            if peek == "-", index + 1 < scalars.count, scalars[index + 1] != "]" {
                index += 1
                var high = scalars[index].value
                index += 1
                if high == UInt32(UInt8(ascii: "\\")) {
                    let cls = try escape(inClass: true)
                    high = cls.ranges[0].lowerBound
                }
                guard low <= high else { throw fail("range out of order") }
                ranges.append(low...high)
            } else {
                ranges.append(low...low)
            }
        }
        guard peek == "]" else { throw fail("missing ']'") }
        index += 1
        return .init(ranges: ranges, negated: negated)
    }
}
