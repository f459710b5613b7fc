import Foundation
import Pocket
import Testing

/// ``SystemLanguageModel/DecodingShortcuts`` through a session on the default model: on by
/// default, they change how many passes a reply takes, not the reply.
@Suite(.enabled(if: qwenIsInstalled, "Qwen2.5-Coder-0.5B-Instruct, the default model, is not installed (run Weights/fetch)"), .serialized)
struct DecodingShortcutsTests {
    @Generable struct Order {
        var number: Int
        var item: String
        var city: String
        @Guide(.anyOf(["shipped", "pending", "cancelled"])) var status: String
    }

    static let log = """
        Order 1042: 2 × oak cutting board, shipped to Lyon on 4 March.
        Order 1049: 1 × linen tea towel, shipped to Porto on 5 March.
        Order 1056: 3 × blue ceramic mug, shipped to Lyon on 6 March.
        """

    static func drafted(_ usage: LanguageModelSession.Usage) -> (drafted: Int, accepted: Int) {
        func count(_ key: String) -> Int { (try? usage.metadata[key]?.value(Int.self)) ?? 0 }
        return (count(SystemLanguageModel.Executor.draftedTokensKey), count(SystemLanguageModel.Executor.acceptedDraftTokensKey))
    }

    @Test func theyAreOnByDefault() throws {
        #expect(try #require(qwenModel).decodingShortcuts == .default)
        #expect(SystemLanguageModel.DecodingShortcuts.default.batchesForcedTokens)
        #expect(SystemLanguageModel.DecodingShortcuts.default.promptLookupDraftLength > 0)
    }

    @Test func aQuotingReplyIsTheSameAndMostlyDrafted() async throws {
        let prompt = "Here is a log:\n\(Self.log)\nRepeat the log exactly, line by line."
        let plain = try await LanguageModelSession(model: SystemLanguageModel(contentsOf: qwenModelURL, decodingShortcuts: .none))
            .respond(to: prompt, options: greedy(60))
        let fast = try await LanguageModelSession(model: try #require(qwenModel)).respond(to: prompt, options: greedy(60))
        #expect(fast.content == plain.content)
        #expect(fast.content.contains("Order 1049"), "\(fast.content)")
        #expect(Self.drafted(plain.usage).drafted == 0)
        let (drafted, accepted) = Self.drafted(fast.usage)
        #expect(accepted > 20 && accepted <= drafted, "\(accepted) of \(drafted) drafted tokens accepted")
        #expect(fast.usage.outputTokens == plain.usage.outputTokens)
    }

    @Test func aStructuredValueIsTheSameWithForcedTokens() async throws {
        let prompt = "From this log, extract the second order:\n\(Self.log)"
        let plain = try await LanguageModelSession(model: SystemLanguageModel(contentsOf: qwenModelURL, decodingShortcuts: .none))
            .respond(to: prompt, generating: Order.self, options: greedy(80))
        let forcedOnly = try await LanguageModelSession(model: SystemLanguageModel(
            contentsOf: qwenModelURL, decodingShortcuts: .init(batchesForcedTokens: true, promptLookupDraftLength: 0)))
            .respond(to: prompt, generating: Order.self, options: greedy(80))
        #expect(forcedOnly.content.number == plain.content.number)
        #expect(forcedOnly.content.city == plain.content.city && forcedOnly.content.item == plain.content.item)
        #expect(forcedOnly.content.status == plain.content.status)
        // (The 0.5B model does not always pick the second; the order is one of the log's.)
        #expect([1042, 1049, 1056].contains(plain.content.number), "\(plain.content)")
        // Forced tokens are part of the reply's count: the keys are in both.
        #expect(forcedOnly.usage.outputTokens >= forcedOnly.rawContent.jsonString.utf8.count / 8)
    }

    /// A limit below the value's length cuts it off with the same error, forced tokens or not.
    @Test func theTokenLimitHoldsWithForcedTokens() async throws {
        let session = LanguageModelSession(model: try #require(qwenModel))
        await #expect(throws: LanguageModelSession.GenerationError.self) {
            try await session.respond(to: "Extract the first order:\n\(Self.log)", generating: Order.self, options: greedy(6))
        }
    }
}
