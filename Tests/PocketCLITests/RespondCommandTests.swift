import Foundation
import Testing

/// The path of a built executable of this package (beside the test runner).
func builtExecutable(_ name: String) -> URL {
    let runner = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
    return runner.deletingLastPathComponent().appendingPathComponent(name)
}

/// Runs `pocket` with `arguments`; returns the exit status, standard output and standard error.
func runPocket(_ arguments: [String]) throws -> (status: Int32, output: String, errors: String) {
    let process = Process()
    process.executableURL = builtExecutable("pocket")
    process.arguments = arguments
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

/// SmolLM2-135M-Instruct, the small test model (not the package's default model, Qwen).
let smolLM2URL = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
let smolLM2IsInstalled = FileManager.default.fileExists(atPath: smolLM2URL.path)

/// `pocket respond`, run as a user would.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct RespondCommandTests {
    @Test func structuredResponsesFollowTheSchema() throws {
        let schema = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-respond-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: schema) }
        try Data(#"{"type":"object","properties":{"name":{"type":"string","maxLength":40},"age":{"type":"integer","minimum":0,"maximum":20}},"required":["name","age"],"x-order":["name","age"],"additionalProperties":false,"title":"Cat"}"#.utf8).write(to: schema)
        for stream in [false, true] {
            let result = try runPocket(["respond", "--model", smolLM2URL.path, "--greedy", "-n", "80", "--schema", schema.path]
                + (stream ? ["--stream"] : []) + ["Describe a cat."])
            #expect(result.status == 0, "\(result.errors)")
            let lines = result.output.split(separator: "\n")
            #expect(stream ? lines.count >= 2 : lines.count == 1)
            let value = try JSONSerialization.jsonObject(with: Data((lines.last ?? "").utf8)) as? [String: Any]
            let age = try #require(value?["age"] as? Int)
            #expect((0...20).contains(age))
            #expect(value?["name"] is String)
            #expect(result.errors.contains("output"))
        }
    }

    @Test func textResponsesStream() throws {
        let result = try runPocket(["respond", "--model", smolLM2URL.path, "--greedy", "-n", "12", "--stream",
                                    "--instructions", "Answer briefly.", "Say hello."])
        #expect(result.status == 0, "\(result.errors)")
        #expect(!result.output.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
    }

    @Test func badInvocationsAreClearErrors() throws {
        let missing = try runPocket(["respond", "--model", smolLM2URL.path, "--schema", "/nonexistent/schema.json", "Hi"])
        #expect(missing.status != 0)
        #expect(missing.errors.contains("/nonexistent/schema.json"))
        let noPrompt = try runPocket(["respond", "--model", smolLM2URL.path])
        #expect(noPrompt.status == 2)
        #expect(noPrompt.errors.contains("PROMPT"))
        let conflicting = try runPocket(["respond", "--greedy", "--temperature", "0.5", "Hi"])
        #expect(conflicting.status == 2)
    }
}
