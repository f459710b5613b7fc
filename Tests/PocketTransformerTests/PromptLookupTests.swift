import Testing
import PocketTransformer

/// What prompt lookup drafts: the continuation of the longest, most recent earlier occurrence
/// of the context's last tokens.
struct PromptLookupTests {
    @Test func draftsWhatFollowedTheLastOccurrenceOfTheSuffix() {
        // "… 1 2 3 4 5 … 1 2" → the bigram 1 2 occurred before, followed by 3 4 5.
        let lookup = PromptLookup(context: [9, 1, 2, 3, 4, 5, 8, 1, 2])
        #expect(lookup.draft() == [3, 4, 5, 8, 1, 2])
        #expect(lookup.draft(limit: 2) == [3, 4])
    }

    @Test func theLongestMatchWinsOverAMoreRecentShorterOne() {
        // The suffix 7 1 2 occurred at the start (then 5); 1 2 alone occurred later (then 6).
        let lookup = PromptLookup(context: [7, 1, 2, 5, 0, 1, 2, 6, 0, 7, 1, 2])
        #expect(lookup.draft(limit: 1) == [5])
    }

    @Test func amongEqualMatchesTheMostRecentWins() {
        let lookup = PromptLookup(context: [1, 2, 3, 0, 1, 2, 4, 0, 1, 2])
        #expect(lookup.draft(limit: 1) == [4])
    }

    @Test func nothingIsDraftedWithoutAMatchOfTheShortestLength() {
        // Only the last token (2) occurred before: a unigram, below the default bigram.
        #expect(PromptLookup(context: [2, 5, 6, 7, 2]).draft().isEmpty)
        #expect(PromptLookup(context: [2, 5, 6, 7, 2], shortestMatch: 1).draft() == [5, 6, 7, 2])
        #expect(PromptLookup(context: []).draft().isEmpty)
        #expect(PromptLookup(context: [1, 2, 1, 2], maximumDraft: 0).draft().isEmpty)
    }

    @Test func appendedTokensTakePartInTheSearch() {
        var lookup = PromptLookup(context: [4, 5, 6, 7])
        #expect(lookup.draft().isEmpty)
        lookup.append([4, 5])
        #expect(lookup.draft() == [6, 7, 4, 5])
        #expect(lookup.draft(limit: 0).isEmpty)
    }

    @Test func draftsShrinkToWhatIsTakenAndGrowBack() {
        var lookup = PromptLookup(context: Array(0..<20) + Array(0..<5), maximumDraft: 8)
        #expect(lookup.draft().count == 8)
        lookup.record(accepted: 2, of: 8)
        #expect(lookup.draftLength == 3)
        #expect(lookup.draft() == [5, 6, 7])
        lookup.record(accepted: 3, of: 3)
        #expect(lookup.draftLength == 5)
        lookup.record(accepted: 0, of: 5)
        #expect(lookup.draftLength == 1)
        lookup.record(accepted: 0, of: 0)   // no draft: nothing learned
        #expect(lookup.draftLength == 1)
        for _ in 0..<10 { lookup.record(accepted: lookup.draftLength, of: lookup.draftLength) }
        #expect(lookup.draftLength == 8)
    }
}
