import Foundation
import Testing
@testable import PocketGrammar

/// Inside pattern strings, masks are kept per pattern position and selected by the room left
/// in the string. At every step they must equal the mask computed from scratch: every token of
/// the vocabulary checked byte by byte from the current parse state, with no cache and no trie.
@Suite struct PatternMaskTests {
    /// Patterns with length limits tight enough that the room left changes the mask, closing
    /// tokens whose continuation depends on the frames below the string, and multi-byte
    /// characters.
    static let schemas: [String] = [
        ##"{"type":"object","properties":{"name":{"type":"string","pattern":"^[A-Z][a-z]+( [A-Z][a-z]+)?$","maxLength":14},"code":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"}},"required":["name","code"]}"##,
        ##"{"type":"object","properties":{"email":{"type":"string","pattern":"[a-z0-9._]+@[a-z0-9]+\\.(com|org|net)","maxLength":20},"verified":{"const":true}},"required":["email","verified"]}"##,
        ##"{"type":"array","items":{"type":"string","pattern":"[a-z]+","maxLength":9},"minItems":1,"maxItems":3}"##,
        ##"{"type":"object","properties":{"id":{"type":"string","pattern":"\\d{3}-\\d{4}"},"tags":{"type":"array","items":{"type":"string","pattern":"^[a-z]{2,6}$"},"maxItems":2}},"required":["id","tags"]}"##,
        ##"{"type":"array","items":{"type":"string","pattern":"(é|ü|ab)+[0-9]?","maxLength":9},"maxItems":3}"##,
        ##"{"anyOf":[{"type":"string","pattern":".{1,6}","maxLength":8},{"type":"integer"}]}"##,
    ]

    /// The mask from scratch: each token's bytes fed to the current parse state.
    static func freshMask(_ matcher: GrammarMatcher) -> TokenMask {
        var mask = TokenMask(count: matcher.vocabulary.count)
        for token in 0..<matcher.vocabulary.count where matcher.allows(token) { mask.insert(token) }
        mask.allowsEnd = matcher.canEnd
        return mask
    }

    static func isInPatternString(_ matcher: GrammarMatcher) -> Bool {
        guard matcher.current.count == 1, case .patternString? = matcher.current[0].last else { return false }
        return true
    }

    /// Random walks on one matcher (so its caches carry over from walk to walk) that also roll
    /// back at random, returning to shorter strings after longer ones were seen. Returns how
    /// many masks were taken inside pattern strings and how many pattern positions were walked.
    static func compareOnRandomWalks(_ schema: String, _ vocabulary: Vocabulary, seed: UInt64, steps: Int) throws -> (masks: Int, positions: Int) {
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: schema))
        var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        var rng = SeededRandom(seed: seed)
        var mask = TokenMask(count: vocabulary.count)
        var patternMasks = 0
        for step in 0..<steps {
            matcher.fillMask(&mask)
            let fresh = freshMask(matcher)
            if isInPatternString(matcher) { patternMasks += 1 }
            guard mask == fresh else {
                let wrong = Set(mask.allowedTokens).symmetricDifference(fresh.allowedTokens).sorted().prefix(5)
                Issue.record("""
                    step \(step) at \(matcher.current): \(mask.count) allowed, \(fresh.count) expected; \
                    differing: \(wrong.map { String(decoding: vocabulary.tokens[$0], as: UTF8.self) })
                    """)
                break
            }
            let allowed = mask.allowedTokens.filter { !vocabulary.endOfGeneration.contains($0) }
            if matcher.acceptedCount > 0 && (allowed.isEmpty || matcher.isComplete || rng.next() % 5 == 0) {
                matcher.rollback(tokens: 1 + Int(rng.next() % UInt64(matcher.acceptedCount)))
            } else if !allowed.isEmpty {
                let accepted = matcher.accept(allowed[Int(rng.next() % UInt64(allowed.count))])
                #expect(accepted)
            }
        }
        return (patternMasks, matcher.cache.patterns.count)
    }

    @Test(arguments: Array(schemas.indices))
    func cachedMasksEqualFreshMasksOnTheSyntheticVocabulary(schema index: Int) throws {
        var masks = 0, positions = 0
        for seed in 0..<8 {
            let (m, p) = try Self.compareOnRandomWalks(Self.schemas[index], SyntheticVocabulary.vocabulary, seed: UInt64(seed) + 40, steps: 120)
            masks += m
            positions += p
        }
        // The walks must stay inside patterns a good part of the time, and masks must have
        // been selected from positions walked at another length.
        #expect(masks >= 100, "only \(masks) masks inside pattern strings")
        #expect(positions < masks, "\(positions) positions for \(masks) masks: nothing was reused")
    }

    @Test(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"), arguments: Array(schemas.indices))
    func cachedMasksEqualFreshMasksOnTheModelVocabulary(schema index: Int) throws {
        let (masks, positions) = try Self.compareOnRandomWalks(Self.schemas[index], TestModel.vocabulary, seed: UInt64(index) + 7, steps: 80)
        #expect(masks >= 4, "only \(masks) masks inside pattern strings")
        #expect(positions < masks, "\(positions) positions for \(masks) masks: nothing was reused")
    }

    /// A position first walked near the limit, where long tokens were cut, is met again with
    /// more room after a rollback: the longer tokens must come back.
    @Test func moreRoomAfterARollbackAllowsLongerTokens() throws {
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: ##"{"type":"string","pattern":"[a-z]+","maxLength":12}"##))
        var matcher = GrammarMatcher(grammar: grammar, vocabulary: SyntheticVocabulary.vocabulary)
        let ab = SyntheticVocabulary.vocabulary.tokens.firstIndex(of: Array("ab".utf8))!
        var mask = TokenMask(count: SyntheticVocabulary.vocabulary.count)
        let opened = matcher.accept(bytes: Array("\"a".utf8))
        let grown = matcher.accept(bytes: Array("bcdefghijk".utf8))   // 11 letters: room for 1 more
        #expect(opened && grown)
        matcher.fillMask(&mask)
        #expect(!mask.contains(ab) && mask.contains(Int(UInt8(ascii: "z"))))
        #expect(mask.allowedTokens == Self.freshMask(matcher).allowedTokens)
        matcher.rollback(tokens: 1)                                 // back to 1 letter, same NFA states
        matcher.fillMask(&mask)
        #expect(mask.contains(ab))
        #expect(mask.allowedTokens == Self.freshMask(matcher).allowedTokens)
    }
}
