/// The nondeterministic automaton a regular expression is parsed into, before
/// ``PatternAutomaton`` makes it deterministic (Thompson construction over Unicode scalars).
struct RegexNFA {
    /// A set of scalar ranges, possibly negated.
    struct CharacterClass: Sendable, Hashable {
        var ranges: [ClosedRange<UInt32>]
        var negated = false

        func contains(_ v: UInt32) -> Bool {
            ranges.contains { $0.contains(v) } != negated
        }

        /// The scalars in the class as ranges, without negation (for `\S` inside a class).
        var positiveRanges: [ClosedRange<UInt32>] {
            guard negated else { return ranges }
            var out: [ClosedRange<UInt32>] = []
            var next: UInt32 = 0
            for r in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                if r.lowerBound > next { out.append(next...(r.lowerBound - 1)) }
                next = max(next, r.upperBound + 1)
            }
            if next <= 0x10FFFF { out.append(next...0x10FFFF) }
            return out
        }
    }

    /// A state: consume one scalar of `character` and go to `next`, or (when `character` is
    /// nil) move without input to `next` and optionally `alternative`.
    struct State {
        var character: CharacterClass?
        var next: Int32
        var alternative: Int32 = -1
    }

    /// Most states a pattern may expand to (repetition counts copy their atom).
    static let maximumStates = 60_000

    var states: [State] = []

    struct Fragment {
        var start: Int32
        var exits: [(state: Int32, alternative: Bool)]
    }

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
    /// Any sequence of characters (the unanchored ends of a search).
    mutating func anything() -> Fragment { star(character(.init(ranges: [], negated: true))) }

    /// The states reachable from `set` without input, sorted.
    func closure(_ set: [Int32]) -> [Int32] {
        var seen = Set(set)
        var pending = set
        while let i = pending.popLast() {
            let s = states[Int(i)]
            guard s.character == nil else { continue }
            for t in [s.next, s.alternative] where t >= 0 && seen.insert(t).inserted { pending.append(t) }
        }
        return seen.sorted()
    }
}

/// Recursive-descent parser from ECMA-262 pattern text to NFA fragments.
///
/// Supported: literals; escapes `\d \w \s \D \W \S`, `\t \n \r \f \v \0`, `\xHH`, `\uHHHH` and
/// escaped metacharacters; `.`; classes with ranges, negation and escapes; groups `( )`,
/// `(?: )` and `(?<name> )`; alternation; quantifiers `* + ? {m} {m,} {m,n}` (lazy forms match
/// the same strings); `^` and `$` at the ends of top-level alternatives. Backreferences,
/// lookaround, word boundaries and Unicode property escapes are errors.
struct RegexParser {
    let scalars: [Unicode.Scalar]
    let pattern: String
    var index = 0
    /// Source positions of the atoms parsed, for copying one under `{m,n}`.
    var atomStarts: [Int] = []

    init(_ scalars: [Unicode.Scalar], pattern: String) {
        self.scalars = Self.unwrappingWholeGroups(scalars)
        self.pattern = pattern
    }

    func fail(_ message: String) -> GrammarError {
        .invalidSchema("pattern '\(pattern)': \(message) at character \(index)", path: "")
    }

    var peek: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    /// The pattern with every group that spans a whole top-level alternative replaced by its
    /// content (`^$|(^a+$)` is `^$|^a+$`): alternation is associative, and the anchors inside
    /// such a group are then at the ends of alternatives.
    static func unwrappingWholeGroups(_ s: [Unicode.Scalar]) -> [Unicode.Scalar] {
        var alternatives: [[Unicode.Scalar]] = [[]]
        var depth = 0, inClass = false, i = 0
        while i < s.count {
            let c = s[i]
            if c == "\\", i + 1 < s.count {
                alternatives[alternatives.count - 1] += [c, s[i + 1]]
                i += 2
                continue
            }
            if inClass { if c == "]" { inClass = false } } else if c == "[" { inClass = true } else if c == "(" { depth += 1 } else if c == ")" { depth -= 1 }
            if c == "|" && depth == 0 && !inClass { alternatives.append([]) } else { alternatives[alternatives.count - 1].append(c) }
            i += 1
        }
        guard depth == 0 else { return s }
        var changed = false
        for k in alternatives.indices {
            let a = alternatives[k]
            guard a.first == "(", a.last == ")", closingParen(a) == a.count - 1 else { continue }
            var start = 1
            if a.count > 2 && a[1] == "?" {
                if a[2] == ":" { start = 3 } else if a[2] == "<", a.count > 3, a[3] != "=", a[3] != "!", let end = a.firstIndex(of: ">") { start = end + 1 } else { continue }
            }
            alternatives[k] = unwrappingWholeGroups(Array(a[start..<(a.count - 1)]))
            changed = true
        }
        guard changed else { return s }
        return Array(alternatives.joined(separator: ["|"]))
    }

    /// Index of the parenthesis closing the one at index 0.
    static func closingParen(_ a: [Unicode.Scalar]) -> Int? {
        var depth = 0, inClass = false, i = 0
        while i < a.count {
            let c = a[i]
            if c == "\\" { i += 2; continue }
            if inClass { if c == "]" { inClass = false } } else if c == "[" { inClass = true } else if c == "(" { depth += 1 } else if c == ")" {
                depth -= 1
                if depth == 0 { return i }
            }
            i += 1
        }
        return nil
    }

    /// Parses the whole pattern. With `search`, each top-level alternative not anchored by `^`
    /// may be preceded, and one not anchored by `$` followed, by anything.
    mutating func parse(_ b: inout RegexNFA, search: Bool) throws(GrammarError) -> RegexNFA.Fragment {
        var result: RegexNFA.Fragment?
        repeat {
            if result != nil { index += 1 }  // the '|'
            var anchoredStart = false, anchoredEnd = false
            if peek == "^" { index += 1; anchoredStart = true }
            var f = try sequence(&b, depth: 0)
            if peek == "$" { index += 1; anchoredEnd = true }
            guard peek == nil || peek == "|" else { throw fail("unexpected '\(scalars[index])'") }
            if search {
                if !anchoredStart { f = b.concatenate(b.anything(), f) }
                if !anchoredEnd { f = b.concatenate(f, b.anything()) }
            }
            result = result.map { b.alternate($0, f) } ?? f
        } while peek == "|"
        return result!
    }

    mutating func alternation(_ b: inout RegexNFA, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        var f = try sequence(&b, depth: depth)
        while peek == "|" {
            index += 1
            f = b.alternate(f, try sequence(&b, depth: depth))
        }
        return f
    }

    mutating func sequence(_ b: inout RegexNFA, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        var f: RegexNFA.Fragment?
        while let c = peek, c != "|", c != ")" {
            if c == "$" && depth == 0 && (index + 1 == scalars.count || scalars[index + 1] == "|") { break }
            var atom = try self.atom(&b, depth: depth)
            atom = try quantified(atom, &b, depth: depth)
            f = f.map { b.concatenate($0, atom) } ?? atom
            guard b.states.count <= RegexNFA.maximumStates else { throw fail("too complex") }
        }
        return f ?? b.empty()
    }

    /// Re-parses the atom that starts at `start` (used to copy it for `{m,n}`).
    mutating func reparse(from start: Int, _ b: inout RegexNFA, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        let saved = index
        index = start
        let f = try atom(&b, depth: depth)
        index = saved
        return f
    }

    mutating func quantified(_ atom: RegexNFA.Fragment, _ b: inout RegexNFA, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        guard let q = peek else { return atom }
        switch q {
        case "*": index += 1; skipLazy(); return b.star(atom)
        case "+": index += 1; skipLazy(); return try repeated(atom, minimum: 1, maximum: nil, &b, depth: depth)
        case "?": index += 1; skipLazy(); return b.optional(atom)
        case "{":
            let save = index
            index += 1
            guard let m = number() else { index = save; return atom }  // a literal '{' follows
            var n: Int? = m
            if peek == "," {
                index += 1
                n = number()
            }
            guard peek == "}" else { index = save; return atom }
            index += 1
            skipLazy()
            guard m <= 1000, n.map({ $0 >= m && $0 <= 1000 }) ?? true else { throw fail("repetition counts above 1000 or out of order") }
            return try repeated(atom, minimum: m, maximum: n, &b, depth: depth)
        default: return atom
        }
    }

    mutating func repeated(_ atom: RegexNFA.Fragment, minimum: Int, maximum: Int?, _ b: inout RegexNFA, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        guard let start = atomStarts.last else { throw fail("nothing to repeat") }
        var copies: [RegexNFA.Fragment] = [atom]
        let needed = max(minimum, maximum ?? minimum, 1)
        while copies.count < needed + (maximum == nil ? 1 : 0) {
            copies.append(try reparse(from: start, &b, depth: depth))
            guard b.states.count <= RegexNFA.maximumStates else { throw fail("too complex") }
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

    /// Lazy quantifiers match the same strings as greedy ones.
    mutating func skipLazy() { if peek == "?" { index += 1 } }

    mutating func number() -> Int? {
        var value: Int?
        while let c = peek, ("0"..."9").contains(c) {
            value = (value ?? 0) * 10 + Int(c.value - 48)
            index += 1
            if value! > 10_000 { return value }
        }
        return value
    }

    mutating func atom(_ b: inout RegexNFA, depth: Int) throws(GrammarError) -> RegexNFA.Fragment {
        guard depth < 32 else { throw fail("groups nested too deeply") }
        let start = index
        defer { atomStarts.append(start) }
        guard let c = peek else { throw fail("unexpected end") }
        index += 1
        switch c {
        case "(":
            if peek == "?" {
                if index + 1 < scalars.count, scalars[index + 1] == ":" {
                    index += 2
                } else if index + 2 < scalars.count, scalars[index + 1] == "<", scalars[index + 2] != "=", scalars[index + 2] != "!" {
                    index += 2
                    while let n = peek, n != ">" { index += 1 }
                    guard peek == ">" else { throw fail("unterminated group name") }
                    index += 1
                } else {
                    throw fail("lookaround is not supported")
                }
            }
            let inner = try alternation(&b, depth: depth + 1)
            guard peek == ")" else { throw fail("missing ')'") }
            index += 1
            return inner
        case "[": return b.character(try characterClass())
        case ".": return b.character(.init(ranges: [0x0A...0x0A, 0x0D...0x0D, 0x2028...0x2029], negated: true))
        case "\\": return b.character(try escape(inClass: false))
        case "*", "+", "?": throw fail("nothing to repeat")
        case "^", "$": throw fail("anchors are only supported at the ends of the pattern's alternatives")
        default: return b.character(.init(ranges: [c.value...c.value]))
        }
    }

    mutating func hex(_ count: Int) throws(GrammarError) -> UInt32 {
        guard index + count <= scalars.count,
              let v = UInt32(String(String.UnicodeScalarView(scalars[index..<(index + count)])), radix: 16) else {
            throw fail("bad hexadecimal escape")
        }
        index += count
        return v
    }

    mutating func escape(inClass: Bool) throws(GrammarError) -> RegexNFA.CharacterClass {
        guard let e = peek else { throw fail("dangling backslash") }
        index += 1
        let digits: [ClosedRange<UInt32>] = [48...57]
        let word: [ClosedRange<UInt32>] = [48...57, 65...90, 95...95, 97...122]
        // ECMA-262 WhiteSpace and LineTerminator.
        let space: [ClosedRange<UInt32>] = [9...13, 32...32, 0xA0...0xA0, 0x1680...0x1680, 0x2000...0x200A,
                                            0x2028...0x2029, 0x202F...0x202F, 0x205F...0x205F, 0x3000...0x3000, 0xFEFF...0xFEFF]
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
        case "f": return .init(ranges: [12...12])
        case "v": return .init(ranges: [11...11])
        case "0": return .init(ranges: [0...0])
        case "b" where inClass: return .init(ranges: [8...8])
        case "x": let v = try hex(2); return .init(ranges: [v...v])
        case "u":
            if peek == "{" { throw fail("\\u{…} escapes are not supported") }
            let v = try hex(4)
            return .init(ranges: [v...v])
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
        while let c = peek, c != "]" {
            index += 1
            var low: UInt32
            if c == "\\" {
                let cls = try escape(inClass: true)
                if cls.negated || cls.ranges.count != 1 || cls.ranges[0].count != 1 {
                    ranges += cls.positiveRanges
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
                    guard !cls.negated, cls.ranges.count == 1, cls.ranges[0].count == 1 else { throw fail("class escape as a range end") }
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

extension RegexParser {
    /// `text` as a pattern that matches exactly it.
    static func escaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            let v = scalar.value
            let plain = (0x30...0x39).contains(v) || (0x41...0x5A).contains(v) || (0x61...0x7A).contains(v) || v >= 0x80 || v == 0x20
            if plain { out.unicodeScalars.append(scalar) } else if v < 0x20 || v == 0x7F {
                let hex = String(v, radix: 16)
                out += "\\x" + String(repeating: "0", count: 2 - hex.count) + hex
            } else {
                out += "\\" + String(scalar)
            }
        }
        return out.isEmpty ? "" : "(?:" + out + ")"
    }
}
