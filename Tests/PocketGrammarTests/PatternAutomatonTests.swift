import Foundation
import Testing
@testable import PocketGrammar

/// The deterministic pattern automaton: regex features, search semantics, combinations.
@Suite struct PatternAutomatonTests {
    func matches(_ pattern: String, _ text: String, search: Bool = false) throws -> Bool {
        try PatternAutomaton(regex: pattern, search: search).matches(text)
    }

    @Test func regexFeatures() throws {
        #expect(try matches("[0-9a-zA-Z_-]{1,255}", String(repeating: "a", count: 255)))
        #expect(try !matches("[0-9a-zA-Z_-]{1,255}", String(repeating: "a", count: 256)))
        #expect(try matches(#"\u00e9\x41[\s\S]"#, "éAz") && matches(#"[\s\S]"#, "é"))
        #expect(try matches("(?<year>[0-9]{4})-a+?", "2024-aa"))
        #expect(try matches(#"[^\d]+"#, "ab") && !matches(#"[^\d]+"#, "a1"))
        #expect(try matches("a{2}{", "aa{"))   // '{' that is no quantifier is a literal
        #expect(try !matches(".", "\n") && !matches(".", "\u{2028}"))
        #expect(throws: GrammarError.self) { try PatternAutomaton(regex: "(?=a)") }
        #expect(throws: GrammarError.self) { try PatternAutomaton(regex: #"(a)\1"#) }
        #expect(throws: GrammarError.self) { try PatternAutomaton(regex: #"\bword"#) }
    }

    @Test func searchHonoursAnchorsPerAlternative() throws {
        #expect(try matches("b", "abc", search: true) && !matches("b", "abc"))
        #expect(try matches("^a|c$", "abc", search: true) && !matches("^b|b$", "abc", search: true))
        #expect(try matches("^$|(^x+$)", "", search: true) && matches("^$|(^x+$)", "xx", search: true))
        #expect(try !matches("^$|(^x+$)", "xy", search: true))
    }

    @Test func intersectionDifferenceAndMinimumLength() throws {
        let letters = try PatternAutomaton(regex: "[a-z]+"), hasQ = try PatternAutomaton(regex: "q", search: true)
        let both = try letters.intersecting(hasQ)
        #expect(both.matches("aqa") && !both.matches("aaa") && !both.matches("q1"))
        let noQ = try letters.subtracting(hasQ)
        #expect(noQ.matches("abc") && !noQ.matches("aqc"))
        let long = try letters.withMinimumLength(3)
        #expect(long.matches("abc") && !long.matches("ab"))
        #expect(try PatternAutomaton(regex: "a").intersecting(PatternAutomaton(regex: "b")).isEmpty)
    }

    @Test func distancesCountTheShortestCompletionInBytes() throws {
        let a = try PatternAutomaton(regex: "é{2}x")
        #expect(a.distance(a.initial) == 5)
        #expect(a.distance(a.step(a.initial, 0xE9)) == 3)
    }
}
