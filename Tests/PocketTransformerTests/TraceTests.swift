import Foundation
import Testing
import PocketTransformer

/// Compares the last-position logits of "Hello world" with llama.cpp's trace.
@Suite(.enabled(if: TestModel.isInstalled && TestModel.hasGolden, "needs Weights/fetch and ../shared/golden"))
struct TraceTests {
    /// The `result_output` entry of the trace: first three and last three logits and the sum.
    struct Reference {
        var head: [Float] = []
        var tail: [Float] = []
        var sum: Double = 0
    }

    static func reference() throws -> Reference {
        let text = try String(contentsOf: TestModel.golden.appendingPathComponent("trace_hello_world.txt"), encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("result_output ") }) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        var reference = Reference()
        for line in lines[start...] {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("[") && trimmed.contains("...") {
                let body = trimmed.trimmingCharacters(in: CharacterSet(charactersIn: "[], "))
                let parts = body.components(separatedBy: "...")
                func numbers(_ s: String) -> [Float] {
                    s.split(whereSeparator: { $0 == "," || $0 == " " }).compactMap { Float($0) }
                }
                reference.head = numbers(parts[0])
                reference.tail = numbers(parts[1])
            } else if trimmed.hasPrefix("sum = ") {
                reference.sum = Double(trimmed.dropFirst(6))!
                break
            }
        }
        return reference
    }

    @Test func helloWorldLogitsAgreeWithLlamaCpp() throws {
        let reference = try Self.reference()
        #expect(reference.head.count == 3 && reference.tail.count == 3)
        let model = try TestModel.transformer(context: 64)
        let logits = try model.evaluate([19556, 905])
        #expect(logits.count == 49152)
        let ours = Array(logits.prefix(3)) + Array(logits.suffix(3))
        let theirs = reference.head + reference.tail
        for (a, b) in zip(ours, theirs) {
            // llama.cpp rounds activations to 8 bits inside the quantized products (as we do,
            // with different summation order); agreement to ~1e-2 relative is expected.
            #expect(abs(a - b) <= 0.02 * max(1, abs(b)), "logit \(a) vs llama.cpp \(b)")
        }
        let sum = logits.reduce(0.0) { $0 + Double($1) }
        #expect(abs(sum - reference.sum) / abs(reference.sum) < 0.01, "sum \(sum) vs \(reference.sum)")
    }
}
