import Foundation
import PocketGGUF
import PocketKernels
import PocketTokenizer
import PocketTransformer

/// Paths and shared fixtures for the model-level tests.
enum TestModel {
    /// The package root, found from this file's location.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// SmolLM2-135M-Instruct, the small test model installed by `Weights/fetch` (not the
    /// package's default model, Qwen, which is `QwenModel`).
    static let url = packageRoot.appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
    /// llama.cpp's reference outputs (`../shared/golden`).
    static let golden = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/golden")

    /// Whether SmolLM2 is installed (tests that need it are skipped otherwise).
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: url.path) }
    /// Whether the golden reference data is present.
    static var hasGolden: Bool { FileManager.default.fileExists(atPath: golden.path) }

    /// The model file, opened once for all tests.
    nonisolated(unsafe) static let file: GGUFFile = try! GGUFFile(contentsOf: url)
    /// Its tokenizer.
    nonisolated(unsafe) static let tokenizer: Tokenizer = try! Tokenizer(gguf: file)
    /// One pool for every test, sized to the machine.
    static let pool = ThreadPool()

    /// A fresh transformer over the shared file.
    static func transformer(context: Int = 1024, batchSize: Int = 64) throws -> Transformer {
        try Transformer(file: file, contextLength: context, batchSize: batchSize, pool: pool)
    }

    /// Lines of a JSON-lines golden file, decoded.
    static func goldenLines(_ name: String) throws -> [[String: Any]] {
        let text = try String(contentsOf: golden.appendingPathComponent(name), encoding: .utf8)
        return try text.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }
}
