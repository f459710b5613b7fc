import Foundation
import Testing
@testable import PocketGrammar

/// Inside plain string content the mask comes from `stringMask`: precomputed plain tokens by
/// room plus an integer-state walk that hands over to the general matcher at a closing quote.
/// At every state it must equal the mask of the general walk over the whole trie, and (on the
/// small vocabulary) the token-by-token check: after `\`, inside `\u` escapes and multi-byte
/// characters, near `minLength`/`maxLength`, in free keys, and with several string stacks.
@Suite struct StringMaskTests {
    /// Schemas and documents whose every byte prefix is a state to check.
    static let cases: [(schema: String, document: String)] = [
        (##"{"type":"object","properties":{"s":{"type":"string","minLength":2,"maxLength":7},"t":{"type":"string"}},"required":["s","t"]}"##,
         ##"{"s":"a\"é\n","t":"x\\y\u00e9日本🙂\/\b\f\r\t"}"##),
        (##"{"type":"array","items":{"type":"string","maxLength":6},"maxItems":4}"##,
         ##"["\u12ab","é€","🙂",""]"##),
        (##"{"anyOf":[{"type":"string","maxLength":3},{"type":"string","minLength":5,"maxLength":9}]}"##,
         ##""ab\"cdéf""##),
        (##"{"type":"object","properties":{"data":{}},"required":["data"]}"##,
         ##"{"data":{"k\u00e9y\"":["v\\",{"日":"🙂\n"}]}}"##),
        (##"{"type":"object","additionalProperties":{"type":"string","maxLength":5}}"##,
         ##"{"ab":"\ud83d","c":"ñ\\"}"##),
    ]

    /// Compares the fast mask with the references at every byte prefix of each document;
    /// returns how many of the states took the string path.
    static func compareAtEveryPrefix(_ vocabulary: Vocabulary, tokenByToken: Bool) throws -> Int {
        var stringStates = 0
        for (index, c) in cases.enumerated() {
            let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: c.schema))
            let bytes = Array(c.document.utf8)
            for cut in 0..<bytes.count {
                var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
                let accepted = matcher.accept(bytes: Array(bytes[..<cut]))
                try #require(accepted, "case \(index): prefix \(cut) rejected")
                if matcher.stringMask(matcher.current) != nil { stringStates += 1 }
                var fast = TokenMask(count: vocabulary.count)
                matcher.fillMask(&fast)
                let full = matcher.fullWalkMask()
                let same = fast == full
                #expect(same, "case \(index) prefix \(cut) \(String(decoding: bytes[..<cut], as: UTF8.self)): \(difference(fast, full))")
                if tokenByToken {
                    let fresh = PatternMaskTests.freshMask(matcher)
                    let agrees = fast == fresh
                    #expect(agrees, "case \(index) prefix \(cut): \(difference(fast, fresh))")
                }
            }
        }
        return stringStates
    }

    /// Tokens only in `a` and only in `b` (a few of each), for failure messages.
    static func difference(_ a: TokenMask, _ b: TokenMask) -> String {
        let x = Set(a.allowedTokens), y = Set(b.allowedTokens)
        return "extra \(x.subtracting(y).sorted().prefix(5)), missing \(y.subtracting(x).sorted().prefix(5)), end \(a.allowsEnd)/\(b.allowsEnd)"
    }

    @Test func stringMasksEqualTheFullWalkOnTheSyntheticVocabulary() throws {
        let checked = try Self.compareAtEveryPrefix(SyntheticVocabulary.vocabulary, tokenByToken: true)
        #expect(checked > 80)
    }

    @Test(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"))
    func stringMasksEqualTheFullWalkOnTheModelVocabulary() throws {
        let checked = try Self.compareAtEveryPrefix(TestModel.vocabulary, tokenByToken: false)
        #expect(checked > 80)
    }

    /// Random walks on one matcher (its cache carries over), including near the length limits
    /// of short strings, compared with the full walk at every step.
    @Test(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"))
    func stringMasksEqualTheFullWalkOnRandomWalks() throws {
        let vocabulary = TestModel.vocabulary
        for (index, c) in Self.cases.enumerated() {
            let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: c.schema))
            for seed in 0..<3 {
                var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
                var mask = TokenMask(count: vocabulary.count)
                var state = UInt64(seed * 104_729 + index) | 1
                for step in 0..<40 {
                    matcher.fillMask(&mask)
                    let full = matcher.fullWalkMask()
                    let same = mask == full
                    #expect(same, "case \(index) seed \(seed) step \(step): \(Self.difference(mask, full))")
                    let choices = mask.allowedTokens.filter { !vocabulary.endOfGeneration.contains($0) }
                    if choices.isEmpty || matcher.isComplete { break }
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    matcher.accept(choices[Int(state >> 33) % choices.count])
                }
            }
        }
    }
}
