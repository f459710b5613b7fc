import Foundation
import Testing
import PocketKernels  // SplitMix64, the project's seeded generator
@testable import PocketTokenizer

/// The heap-based merge (``BytePairMerges/apply(to:scratch:)``) gives exactly the tokens of the
/// direct quadratic algorithm it replaced (``BytePairMerges/applyByRescanning(to:)``), on both
/// installed vocabularies, for seeded random text and for long repetitive runs.
@Suite struct BytePairMergeTests {
    /// Characters the random texts are drawn from: letters, digits, punctuation, whitespace,
    /// accented and CJK letters, an emoji, and a few multi-character runs that merge deeply.
    static let alphabet: [String] = Array("abcdeeeetTHQxyz0123456789[[]]{}()<>.,;:!?'\"-_=+*/\\|@#$%^&~` \t\n\r")
        .map(String.init) + ["é", "ü", "ß", "中", "文", "日本", "🙂", "—", "\u{301}", "the", " the", "ing", "    ", "\n\n", "'s", "'LL", "[[", "]]", "aaaa", "1234"]

    static func randomTexts(seed: UInt64, count: Int, maximumLength: Int) -> [String] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let length = Int(random.next() % UInt64(maximumLength)) + 1
            return (0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }.joined()
        }
    }

    /// Long runs where the order of merges matters most (ties everywhere).
    static let repetitive: [String] = [
        String(repeating: "[", count: 3000), String(repeating: "a", count: 3001), String(repeating: "ab", count: 1500),
        String(repeating: "0123456789", count: 300), String(repeating: " ", count: 3000), String(repeating: "\n", count: 2999),
        String(repeating: "é", count: 1500), String(repeating: "abc", count: 1000), String(repeating: "=-", count: 1500),
        String(repeating: "🙂", count: 700),
    ]

    static func expectAgreement(_ tokenizer: Tokenizer, _ texts: [String], model: String) {
        for text in texts {
            for special in [false, true] {
                let fast = tokenizer.encode(text, parseSpecial: special)
                let reference = tokenizer.encode(text, parseSpecial: special, mergingByRescanning: true)
                #expect(fast == reference, "\(model), special \(special): \(text.prefix(60).debugDescription) (\(text.count) characters)")
            }
        }
    }

    @Test(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"))
    func smolLM2AgreesWithTheReferenceOnRandomText() {
        Self.expectAgreement(TestModel.tokenizer, Self.randomTexts(seed: 16, count: 400, maximumLength: 120), model: "SmolLM2")
    }

    @Test(.enabled(if: QwenModel.isInstalled, "needs the Qwen model from Weights/fetch"))
    func qwenAgreesWithTheReferenceOnRandomText() {
        Self.expectAgreement(QwenModel.tokenizer, Self.randomTexts(seed: 61, count: 400, maximumLength: 120), model: "Qwen")
    }

    @Test(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"))
    func smolLM2AgreesWithTheReferenceOnLongRuns() {
        Self.expectAgreement(TestModel.tokenizer, Self.repetitive, model: "SmolLM2")
    }

    @Test(.enabled(if: QwenModel.isInstalled, "needs the Qwen model from Weights/fetch"))
    func qwenAgreesWithTheReferenceOnLongRuns() {
        Self.expectAgreement(QwenModel.tokenizer, Self.repetitive, model: "Qwen")
    }

    /// Ties at one rank go to the leftmost pair, and each merge creates new pairs with its
    /// neighbours that compete by rank: checked on a tiny vocabulary, no model needed.
    @Test func tiesAndNewPairsOnATinyVocabulary() throws {
        // Appended tokens: aa, aaa, ba, aaaa, aba (the last rule never applies: "ab" is no token).
        let tokenizer = try TinyVocabulary.make(merges: ["a a", "aa a", "b a", "aa aa", "ab a"])
        let aa = tokenizer.vocabularySize - 5, aaa = aa + 1, aaaa = aa + 3
        // a a a a a → aa a a a → aa aa a (rank 0 beats "aa a") → aa aaa (rank 1 beats rank 3).
        #expect(tokenizer.encode("aaaaa") == [aa, aaa])
        #expect(tokenizer.encode("aaaa") == [aaaa])
        let texts = ["aaaaa", "aaaaaaa", "baaab", "abaaba", String(repeating: "ab", count: 50), String(repeating: "a", count: 101)]
        Self.expectAgreement(tokenizer, texts, model: "tiny")
    }
}
