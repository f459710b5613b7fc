/// A deterministic automaton over Unicode scalars: what a pattern-constrained string (a
/// `pattern`, a `format`, a set of object keys) may contain.
///
/// Built from a regular expression (see ``RegexParser``) by subset construction, or from other
/// automata (intersection, difference, a minimum length). The matcher sees a state as a
/// `UInt64`: the state's index plus one, 0 meaning "no state" (the string cannot match any
/// more). States from which no match can be reached are removed at construction, so a live
/// state can always be completed. ASCII steps are one table read.
///
/// ```swift
/// let a = try PatternAutomaton(regex: "^[a-z]+$")
/// let s = a.step(a.initial, UInt32(UInt8(ascii: "q")))
/// a.isAccepting(s)   // true
/// ```
struct PatternAutomaton: Sendable {
    /// `ascii[state * 128 + byte]`: the next state, or -1.
    var ascii: [Int32]
    /// Transitions on scalars from 0x80: for state `s`, entries `wideStart[s]..<wideStart[s+1]`
    /// of `wideLow`/`wideHigh`/`wideTarget`, sorted and disjoint.
    var wideStart: [Int32]
    var wideLow: [UInt32]
    var wideHigh: [UInt32]
    var wideTarget: [Int32]
    var accepting: [Bool]
    /// Fewest bytes of output (JSON-escaped characters are never produced) from each state to
    /// a match; `Int.max` for none.
    var distances: [Int]
    var start: Int32

    /// Most states an automaton may have: beyond this a pattern is refused as too complex.
    static let maximumStates = 20_000

    var stateCount: Int { accepting.count }

    /// The starting state (0 when nothing matches).
    var initial: UInt64 { start >= 0 && distances[Int(start)] != Int.max ? UInt64(start) + 1 : 0 }

    /// Fewest bytes from `set` to a match.
    func distance(_ set: UInt64) -> Int { set == 0 ? Int.max : distances[Int(set - 1)] }

    /// Whether `set` is a match.
    func isAccepting(_ set: UInt64) -> Bool { set != 0 && accepting[Int(set - 1)] }

    /// The state after `scalar` (0: none).
    @inline(__always) func step(_ set: UInt64, _ scalar: UInt32) -> UInt64 {
        guard set != 0 else { return 0 }
        let s = Int(set - 1)
        if scalar < 128 { return UInt64(bitPattern: Int64(ascii[s &* 128 &+ Int(scalar)]) &+ 1) }
        return UInt64(bitPattern: Int64(target(s, scalar)) &+ 1)
    }

    func target(_ s: Int, _ scalar: UInt32) -> Int32 {
        if scalar < 128 { return ascii[s * 128 + Int(scalar)] }
        var i = Int(wideStart[s])
        let end = Int(wideStart[s + 1])
        while i < end {
            if scalar < wideLow[i] { return -1 }
            if scalar <= wideHigh[i] { return wideTarget[i] }
            i += 1
        }
        return -1
    }

    /// Fewest bytes to a match after one scalar of `range` (at least 0x80) from `set`;
    /// `Int.max` when no scalar of the range is allowed.
    func distance(_ set: UInt64, after range: ClosedRange<UInt32>) -> Int {
        guard set != 0 else { return Int.max }
        let s = Int(set - 1)
        var best = Int.max
        for i in Int(wideStart[s])..<Int(wideStart[s + 1]) where wideLow[i] <= range.upperBound && range.lowerBound <= wideHigh[i] {
            best = min(best, distances[Int(wideTarget[i])])
        }
        return best
    }

    // MARK: Building

    init(ascii: [Int32], wideStart: [Int32], wideLow: [UInt32], wideHigh: [UInt32], wideTarget: [Int32],
         accepting: [Bool], distances: [Int], start: Int32) {
        (self.ascii, self.wideStart, self.wideLow, self.wideHigh, self.wideTarget) = (ascii, wideStart, wideLow, wideHigh, wideTarget)
        (self.accepting, self.distances, self.start) = (accepting, distances, start)
    }

    /// Compiles a regular expression. With `search`, the pattern matches when it matches some
    /// part of the string (ECMA-262 `RegExp.test`, as JSON Schema's `pattern`), honouring `^`
    /// and `$`; otherwise the whole string must match (Apple's `@Guide(.pattern)`).
    init(regex pattern: String, search: Bool = false) throws(GrammarError) {
        var parser = RegexParser(Array(pattern.unicodeScalars), pattern: pattern)
        var nfa = RegexNFA()
        let fragment = try parser.parse(&nfa, search: search)
        self = try Self.determinize(nfa, fragment)
    }

    /// A transition table under construction: per state, ASCII targets and wide ranges.
    struct Table {
        var ascii: [Int32] = []
        var wide: [[(low: UInt32, high: UInt32, target: Int32)]] = []
        var accepting: [Bool] = []

        mutating func addState(accepting a: Bool) -> Int32 {
            ascii += repeatElement(-1, count: 128)
            wide.append([])
            accepting.append(a)
            return Int32(accepting.count - 1)
        }

        /// Sets the targets of state `s` on every scalar of `low...high`; adjacent wide ranges
        /// with the same target are merged.
        mutating func set(_ s: Int32, _ low: UInt32, _ high: UInt32, _ target: Int32) {
            guard target >= 0 else { return }
            if low < 128 { for b in low...min(127, high) { ascii[Int(s) * 128 + Int(b)] = target } }
            guard high >= 128 else { return }
            let l = max(low, 128)
            if let last = wide[Int(s)].last, last.target == target, last.high + 1 == l {
                wide[Int(s)][wide[Int(s)].count - 1].high = high
            } else {
                wide[Int(s)].append((l, high, target))
            }
        }

        func finish(start: Int32) -> PatternAutomaton {
            var a = PatternAutomaton(ascii: ascii, wideStart: [0], wideLow: [], wideHigh: [], wideTarget: [],
                                     accepting: accepting, distances: [], start: start)
            for ranges in wide {
                for r in ranges { a.wideLow.append(r.low); a.wideHigh.append(r.high); a.wideTarget.append(r.target) }
                a.wideStart.append(Int32(a.wideLow.count))
            }
            a.computeDistances()
            return a
        }
    }

    /// Subset construction over the alphabet cut at every class boundary.
    static func determinize(_ nfa: RegexNFA, _ fragment: RegexNFA.Fragment) throws(GrammarError) -> PatternAutomaton {
        var nfa = nfa
        let accept = nfa.add(.init(character: nil, next: -1))
        nfa.patch(fragment.exits, to: accept)
        var cuts: Set<UInt32> = [0, 128, 0x110000]
        for s in nfa.states { for r in s.character?.ranges ?? [] { cuts.insert(r.lowerBound); cuts.insert(r.upperBound + 1) } }
        let bounds = cuts.sorted()
        var table = Table()
        var ids: [[Int32]: Int32] = [:]
        var sets: [[Int32]] = []
        func intern(_ set: [Int32]) throws(GrammarError) -> Int32 {
            if let id = ids[set] { return id }
            guard sets.count < maximumStates else {
                throw .invalidSchema("pattern is too complex (more than \(maximumStates) automaton states)", path: "")
            }
            let id = table.addState(accepting: set.contains(accept))
            ids[set] = id
            sets.append(set)
            return id
        }
        let start = try intern(nfa.closure([fragment.start]))
        var next = 0
        while next < sets.count {
            let set = sets[next], id = Int32(next)
            next += 1
            let movers = set.filter { nfa.states[Int($0)].character != nil }
            guard !movers.isEmpty else { continue }
            for k in 0..<(bounds.count - 1) {
                let low = bounds[k], high = bounds[k + 1] - 1
                var targets: [Int32] = []
                for m in movers where nfa.states[Int(m)].character!.contains(low) { targets.append(nfa.states[Int(m)].next) }
                guard !targets.isEmpty else { continue }
                table.set(id, low, high, try intern(nfa.closure(targets)))
            }
        }
        return table.finish(start: start)
    }

    /// Fills `distances` (Dijkstra over reversed edges, weights 1…4) and cuts transitions into
    /// states that can no longer reach a match.
    mutating func computeDistances() {
        let n = stateCount
        var reverse = [[(Int32, Int)]](repeating: [], count: n)
        for s in 0..<n {
            for b in 0x20..<128 where b != 0x22 && b != 0x5C {
                let t = ascii[s * 128 + b]
                if t >= 0 { reverse[Int(t)].append((Int32(s), 1)) }
            }
            for i in Int(wideStart[s])..<Int(wideStart[s + 1]) {
                let low = wideLow[i]
                reverse[Int(wideTarget[i])].append((Int32(s), low < 0x800 ? 2 : low < 0x10000 ? 3 : 4))
            }
        }
        var d = [Int](repeating: Int.max, count: n)
        var buckets: [[Int32]] = [[]]
        for s in 0..<n where accepting[s] { d[s] = 0; buckets[0].append(Int32(s)) }
        var k = 0
        while k < buckets.count {
            var i = 0
            while i < buckets[k].count {
                let s = Int(buckets[k][i])
                i += 1
                guard d[s] == k else { continue }
                for (p, w) in reverse[s] where k + w < d[Int(p)] {
                    d[Int(p)] = k + w
                    while buckets.count <= k + w { buckets.append([]) }
                    buckets[k + w].append(p)
                }
            }
            k += 1
        }
        distances = d
        for i in ascii.indices where ascii[i] >= 0 && d[Int(ascii[i])] == Int.max { ascii[i] = -1 }
        // JSON-escaped characters are never produced inside pattern strings.
        for s in 0..<n { for b in [0x22, 0x5C] + Array(0..<0x20) { ascii[s * 128 + b] = -1 } }
        for i in wideTarget.indices where d[Int(wideTarget[i])] == Int.max { wideTarget[i] = -1 }
        var low: [UInt32] = [], high: [UInt32] = [], target: [Int32] = [], starts: [Int32] = [0]
        for s in 0..<n {
            for i in Int(wideStart[s])..<Int(wideStart[s + 1]) where wideTarget[i] >= 0 {
                low.append(wideLow[i]); high.append(wideHigh[i]); target.append(wideTarget[i])
            }
            starts.append(Int32(low.count))
        }
        (wideLow, wideHigh, wideTarget, wideStart) = (low, high, target, starts)
    }

    // MARK: Combining

    /// The transitions of state `s` as sorted disjoint ranges over all scalars.
    func ranges(_ s: Int32) -> [(low: UInt32, high: UInt32, target: Int32)] {
        var out: [(low: UInt32, high: UInt32, target: Int32)] = []
        guard s >= 0 else { return out }
        for b in 0..<128 {
            let t = ascii[Int(s) * 128 + b]
            guard t >= 0 else { continue }
            if let last = out.last, last.target == t, last.high + 1 == UInt32(b) { out[out.count - 1].high = UInt32(b) } else { out.append((UInt32(b), UInt32(b), t)) }
        }
        for i in Int(wideStart[Int(s)])..<Int(wideStart[Int(s) + 1]) { out.append((wideLow[i], wideHigh[i], wideTarget[i])) }
        return out
    }

    /// The product of two automata: strings whose runs end in states `keep` accepts.
    /// A missing transition is state -1 (for `b`, the sink of strings it rejects), so the
    /// product also expresses differences.
    static func product(_ a: PatternAutomaton, _ b: PatternAutomaton, keep: (Bool, Bool) -> Bool) throws(GrammarError) -> PatternAutomaton {
        var table = Table()
        var ids: [Int64: Int32] = [:]
        var pairs: [(Int32, Int32)] = []
        func intern(_ x: Int32, _ y: Int32) throws(GrammarError) -> Int32 {
            let key = Int64(x) << 32 | Int64(UInt32(bitPattern: y))
            if let id = ids[key] { return id }
            guard pairs.count < maximumStates else { throw .invalidSchema("string constraints are too complex to combine", path: "") }
            let id = table.addState(accepting: keep(a.accepting[Int(x)], y >= 0 && b.accepting[Int(y)]))
            ids[key] = id
            pairs.append((x, y))
            return id
        }
        let start = try intern(a.start, b.start)
        var next = 0
        while next < pairs.count {
            let (x, y) = pairs[next], id = Int32(next)
            next += 1
            let ra = a.ranges(x), rb = b.ranges(y)
            var j = 0
            for r in ra {
                var low = r.low
                while low <= r.high {
                    while j < rb.count && rb[j].high < low { j += 1 }
                    if j < rb.count && rb[j].low <= low {
                        let high = min(r.high, rb[j].high)
                        table.set(id, low, high, try intern(r.target, rb[j].target))
                        low = high + 1
                    } else {
                        let high = j < rb.count ? min(r.high, rb[j].low - 1) : r.high
                        if keep(true, false) || keep(false, false) { table.set(id, low, high, try intern(r.target, -1)) }
                        low = high + 1
                    }
                }
            }
        }
        return table.finish(start: start)
    }

    /// Strings both automata accept.
    func intersecting(_ other: PatternAutomaton) throws(GrammarError) -> PatternAutomaton {
        try Self.product(self, other) { $0 && $1 }
    }

    /// Strings this automaton accepts and `other` does not.
    func subtracting(_ other: PatternAutomaton) throws(GrammarError) -> PatternAutomaton {
        try Self.product(self, other) { $0 && !$1 }
    }

    /// Strings of at least `minimum` characters (Unicode scalars, as JSON Schema counts).
    func withMinimumLength(_ minimum: Int) throws(GrammarError) -> PatternAutomaton {
        guard minimum > 0 else { return self }
        var table = Table()
        var ids: [Int64: Int32] = [:]
        var pairs: [(Int32, Int)] = []
        func intern(_ s: Int32, _ c: Int) throws(GrammarError) -> Int32 {
            let key = Int64(s) << 32 | Int64(c)
            if let id = ids[key] { return id }
            guard pairs.count < Self.maximumStates else { throw .invalidSchema("minLength is too large to combine with the pattern", path: "") }
            let id = table.addState(accepting: accepting[Int(s)] && c == minimum)
            ids[key] = id
            pairs.append((s, c))
            return id
        }
        let first = try intern(start, 0)
        var next = 0
        while next < pairs.count {
            let (s, c) = pairs[next], id = Int32(next)
            next += 1
            for r in ranges(s) { table.set(id, r.low, r.high, try intern(r.target, min(c + 1, minimum))) }
        }
        return table.finish(start: first)
    }

    /// Whether no string matches.
    var isEmpty: Bool { initial == 0 }
}
