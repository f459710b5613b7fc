import Testing
import PocketTransformer

/// The penalties against llama.cpp's definitions, computed by hand.
@Suite struct RepetitionPenaltyTests {
    func penalized(_ logits: [Float], _ penalty: RepetitionPenalty, recent: [Int], exempt: Set<Int> = []) -> [Float] {
        var copy = logits
        copy.withUnsafeMutableBufferPointer { penalty.apply(to: $0, recent: recent, exempt: exempt) }
        return copy
    }

    @Test func repetitionDividesPositiveAndMultipliesNegativeLogits() {
        let out = penalized([2, -2, 3, 0.5], RepetitionPenalty(repetition: 2), recent: [0, 1, 1])
        #expect(out == [1, -4, 3, 0.5])
    }

    @Test func frequencyCountsOccurrencesAndPresenceCountsOnce() {
        let out = penalized([1, 1, 1], RepetitionPenalty(frequency: 0.5, presence: 0.25), recent: [0, 0, 0, 1])
        #expect(out == [1 - 1.5 - 0.25, 1 - 0.5 - 0.25, 1])
    }

    @Test func onlyTheWindowCountsAndExemptTokensAreLeftAlone() {
        let penalty = RepetitionPenalty(repetition: 2, frequency: 1, window: 2)
        // Token 0 is outside the last two; token 2 is exempt.
        #expect(penalized([4, 4, 4, 4], penalty, recent: [0, 1, 2], exempt: [2]) == [4, 1, 4, 4])
    }

    @Test func offChangesNothingAndOutOfRangeTokensAreIgnored() {
        #expect(RepetitionPenalty.off.isOff && RepetitionPenalty(repetition: 1.1, window: 0).isOff)
        #expect(penalized([1, 2], .off, recent: [0, 1]) == [1, 2])
        #expect(penalized([1, 2], RepetitionPenalty(repetition: 2), recent: [-1, 7]) == [1, 2])
    }
}
