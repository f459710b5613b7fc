import Foundation
import Testing

/// `--repeat-penalty` and its siblings: checked values, and an effect on the text.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct PenaltyOptionTests {
    @Test func anOutOfRangePenaltyIsAUsageError() throws {
        let result = try runPocket(["generate", "--model", smolLM2URL.path, "--repeat-penalty", "0", "Hi"])
        #expect(result.status == 2)
        #expect(result.errors.contains("repeat-penalty"), "\(result.errors)")
    }

    @Test func aPenaltyChangesAGreedyLoop() throws {
        let prompt = "List the days of the week, again and again:"
        let plain = try runPocket(["generate", "--model", smolLM2URL.path, "--greedy", "-n", "40", prompt])
        let penalized = try runPocket(["generate", "--model", smolLM2URL.path, "--greedy", "-n", "40", "--repeat-penalty", "1.5", prompt])
        #expect(plain.status == 0 && penalized.status == 0)
        #expect(plain.output != penalized.output)
    }
}
