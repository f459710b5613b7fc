import Foundation
import Testing

/// `pocket quantize` on the small test model (SmolLM2), run as a user would.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct QuantizeCommandTests {
    @Test func requantizedModelLoadsAndGenerates() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-cli-q2k-\(UUID()).gguf")
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try runPocket(["quantize", smolLM2URL.path, output.path, "--type", "q2_k", "--threads", "2"])
        #expect(result.status == 0, "\(result.errors)")
        let lines = result.output.split(separator: "\n").map(String.init)
        // The plan comes first: a header, one line per tensor, and the total within the budget
        // (the tensor bytes of llama-quantize's Q2_K of this file).
        let plan = lines.filter { $0.hasPrefix("plan: ") }
        #expect(plan.count == 272 + 2)
        #expect(plan.last?.contains("within a budget of 86416128") == true)
        #expect(plan.contains { $0.hasPrefix("plan: blk.0.ffn_down.weight") })
        // Then one table row per tensor: 30 blocks × 9 tensors, plus the embedding and output norm.
        let rows = lines.filter { $0.contains(" -> ") && !$0.hasPrefix("tensor") && !$0.hasPrefix("*") }
        #expect(rows.count == 272)
        #expect(rows.first { $0.hasPrefix("blk.0.attn_norm.weight") }?.contains("-> f32") == true)
        #expect(result.errors.contains("calibration tokens"))
        let total = try #require(lines.last)
        #expect(total.hasPrefix("total: 272 tensors") && total.contains("bits/weight"))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int)
        #expect(total.contains("\(size) bytes"))
        #expect(size <= 88_201_792)  // llama-quantize's Q2_K of the same file
        #expect(result.errors.contains("100%"))

        let generated = try runPocket(["generate", "--model", output.path, "--greedy", "-n", "8", "The capital of France is"])
        #expect(generated.status == 0, "\(generated.errors)")
        #expect(!generated.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func badInvocationsAreClearErrors() throws {
        let unknown = try runPocket(["quantize", smolLM2URL.path, "/tmp/x.gguf", "--type", "q1_z"])
        #expect(unknown.status == 2)
        #expect(unknown.errors.contains("q1_z") && unknown.errors.contains("q2_k"))
        let missing = try runPocket(["quantize", "/nonexistent/in.gguf", "/tmp/x.gguf", "--type", "q4_0"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("/nonexistent/in.gguf"))
        let unwritable = try runPocket(["quantize", smolLM2URL.path, "/nonexistent-dir/out.gguf", "--type", "q8_0"])
        #expect(unwritable.status == 1)
        #expect(unwritable.errors.contains("/nonexistent-dir/out.gguf"))
        #expect(!unwritable.errors.contains("calibration tokens"), "the output is checked before the calibration run")
        let noOutput = try runPocket(["quantize", smolLM2URL.path, "--type", "q8_0"])
        #expect(noOutput.status == 2)
        let noCalibration = try runPocket(["quantize", smolLM2URL.path, "/tmp/x.gguf", "--type", "q2_k", "--calibration", "/nonexistent/cal.txt"])
        #expect(noCalibration.status == 1)
        #expect(noCalibration.errors.contains("/nonexistent/cal.txt"))
        let both = try runPocket(["quantize", smolLM2URL.path, "/tmp/x.gguf", "--type", "q2_k", "--calibration", "a.txt", "--no-calibration"])
        #expect(both.status == 2)
    }
}
