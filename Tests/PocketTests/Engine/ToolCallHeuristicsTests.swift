import Foundation
@testable import Pocket
import Testing

/// The small-model tool heuristics' rules, each on its own (no model).
@Suite struct ToolCallHeuristicsTests {
    typealias H = SystemLanguageModel.ToolCallHeuristics
    typealias V = ScriptedVocabulary

    @Test(arguments: [
        ("{\"name\"", H.Decision.yes), ("{\n  \"name\": \"f\"", .yes), ("{\t\r\n \"name\"", .yes),
        ("", .maybe), ("{", .maybe), ("{\n   ", .maybe), ("{ \"na", .maybe),
        ("{\"city\"", .no), ("{ 1", .no), ("Hello", .no), ("[{\"name\"", .no),
    ])
    func untaggedCallOpening(text: String, expected: H.Decision) {
        #expect(H.opensUntaggedCall(text[...]) == expected)
    }

    @Test func callTextTokensAreThoseWithBracesAnglesOrBackticks() {
        let banned = Set(H.callTextTokens(V.tokenizer))
        for id in 0..<V.tokenizer.vocabularySize {
            let bytes = V.tokenizer.bytes(of: id)
            let expected = !V.tokenizer.isSpecial(id) && bytes.contains { $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "`") }
            #expect(banned.contains(id) == expected, "token \(id) \(bytes)")
        }
        #expect(!banned.contains(V.special("<tool_call>")), "special tokens are the template's, not text")
    }

    @Test func groundedFirstTokensAreWholeWordsOfTheOutputs() throws {
        let allowed = try #require(H.groundedFirstTokens(["Paris: sunny, 21 °C"], V.tokenizer))
        let paris = 256 + V.words.firstIndex(of: "Paris")!, sunny = 256 + V.words.firstIndex(of: " sunny")!
        #expect(allowed.contains(paris) && allowed.contains(sunny))
        #expect(!allowed.contains(256 + V.words.firstIndex(of: " is")!), "'is' is not a word of the outputs")
        #expect(H.groundedFirstTokens([" ,;"], V.tokenizer) == nil)
    }

    @Test func presetsAreAllOnOrAllOff() {
        let on = H.smallModels, off = H.none
        #expect(on.recognizesUntaggedCalls && on.answersInsteadOfUntaggedCallsAfterToolOutput
                && on.bansCallTextInForcedAnswers && on.groundsForcedAnswersInToolOutputs)
        #expect(!off.recognizesUntaggedCalls && !off.answersInsteadOfUntaggedCallsAfterToolOutput
                && !off.bansCallTextInForcedAnswers && !off.groundsForcedAnswersInToolOutputs)
    }
}
