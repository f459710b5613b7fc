import Foundation
import Testing

/// `pocket generate` says on stderr why it stopped, and exits with 3 when the context window
/// (not `-n` or the model) cut the text short; `pocket respond` prints readable errors.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct StopReasonTests {
    @Test func aFullContextWindowIsReportedWithStatus3() throws {
        let result = try runPocket(["generate", "--model", smolLM2URL.path, "--greedy", "--context", "24", "-n", "10000",
                                    "Once upon a time"])
        #expect(result.status == 3, "\(result.errors)")
        #expect(result.errors.contains("stopped: context window full at 24 tokens"), "\(result.errors)")
        #expect(!result.output.isEmpty)
    }

    @Test func reachingTheTokenLimitIsReported() throws {
        let result = try runPocket(["generate", "--model", smolLM2URL.path, "--greedy", "-n", "3", "Once upon a time"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("stopped after 3 tokens (-n 3)") || result.errors.contains("end-of-generation"),
                "\(result.errors)")
    }

    @Test func respondErrorsAreReadable() throws {
        let result = try runPocket(["respond", "--model", smolLM2URL.path, "--context", "16", "-n", "100", "Tell me a story"])
        #expect(result.status == 1)
        #expect(result.errors.contains("The conversation exceeds the model's context window."), "\(result.errors)")
        #expect(result.errors.contains("Raise --context or lower -n."))
        #expect(!result.errors.contains("debugDescription") && !result.errors.contains("exceededContextWindowSize"),
                "\(result.errors)")
    }
}
