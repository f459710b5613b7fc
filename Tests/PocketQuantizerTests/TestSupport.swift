import Foundation
import PocketGGUF
import PocketTokenizer

/// SmolLM2-135M-Instruct, the small test model, for the tests that calibrate on it.
enum SmolLM2 {
    /// The package root, found from this file's location.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The file `Weights/fetch` installs.
    static let url = packageRoot.appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
    /// Whether it is installed (tests that need it are skipped otherwise).
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: url.path) }
    /// The model file, opened once for all tests.
    static let file: GGUFFile = try! GGUFFile(contentsOf: url)
    /// Its tokenizer.
    static let tokenizer: Tokenizer = try! Tokenizer(gguf: file)
}

/// Gemma 3 270M (`Weights/fetch gemma3`), for the tests of a family with another activation.
enum Gemma3 {
    /// The file `Weights/fetch gemma3` installs.
    static let url = SmolLM2.packageRoot.appendingPathComponent("Weights/gemma-3-270m-q4_k_m.gguf")
    /// Whether it is installed (tests that need it are skipped otherwise).
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: url.path) }
    /// The model file, opened once for all tests.
    static let file: GGUFFile = try! GGUFFile(contentsOf: url)
    /// Its tokenizer.
    static let tokenizer: Tokenizer = try! Tokenizer(gguf: file)
}
