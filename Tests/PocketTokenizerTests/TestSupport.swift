import Foundation
import PocketGGUF
import PocketTokenizer

/// SmolLM2-135M-Instruct, the small test model (not the package's default model, Qwen), and
/// llama.cpp's tokenizations of it (`../shared/golden`).
enum TestModel {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let url = packageRoot.appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
    static let golden = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/golden")
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: url.path) }
    static var hasGolden: Bool { FileManager.default.fileExists(atPath: golden.path) }
    nonisolated(unsafe) static let file: GGUFFile = try! GGUFFile(contentsOf: url)
    nonisolated(unsafe) static let tokenizer: Tokenizer = try! Tokenizer(gguf: file)
}

/// The second model `Weights/fetch` installs (Qwen2.5-Coder-0.5B-Instruct: `qwen2`
/// pre-tokenizer, 151,936 tokens) and its llama.cpp tokenizations (`../shared/golden/qwen`).
enum QwenModel {
    static let url = TestModel.packageRoot.appendingPathComponent("Weights/Qwen2.5-Coder-0.5B-Instruct.gguf")
    static let golden = TestModel.golden.appendingPathComponent("qwen")
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: url.path) }
    static var hasGolden: Bool { FileManager.default.fileExists(atPath: golden.appendingPathComponent("tokenize_shared.jsonl").path) }
    nonisolated(unsafe) static let tokenizer: Tokenizer = try! Tokenizer(gguf: GGUFFile(contentsOf: url))
}

/// A tiny byte-level vocabulary: the 256 byte tokens plus a few merges, for BPE tests that
/// need no model file.
enum TinyVocabulary {
    static func make(merges: [String], specials: [String] = []) throws -> Tokenizer {
        var tokens = byteCharacters()
        for merge in merges {
            let merged = merge.replacingOccurrences(of: " ", with: "")
            if !tokens.contains(merged) { tokens.append(merged) }
        }
        var types = [Int](repeating: 1, count: tokens.count)
        for special in specials {
            tokens.append(special)
            types.append(3)
        }
        return try Tokenizer(tokens: tokens, tokenTypes: types, merges: merges, preTokenizer: "gpt-2",
                             bosToken: nil, eosToken: specials.isEmpty ? nil : tokens.count - 1)
    }

    /// The 256 byte tokens in GPT-2's byte-to-character form, built independently of the library.
    static func byteCharacters() -> [String] {
        var characters: [String] = []
        var next: UInt32 = 256
        for byte in 0..<256 {
            let printable = (0x21...0x7E).contains(byte) || (0xA1...0xAC).contains(byte) || (0xAE...0xFF).contains(byte)
            if printable {
                characters.append(String(Unicode.Scalar(UInt32(byte))!))
            } else {
                characters.append(String(Unicode.Scalar(next)!))
                next += 1
            }
        }
        return characters
    }

    /// The id of a byte token in `make`'s vocabulary.
    static func byte(_ b: UInt8) -> Int { Int(b) }
}

/// Gemma 3 270M (`Weights/fetch gemma3`: a SentencePiece vocabulary of 262,144 tokens) and its
/// llama.cpp tokenizations (`../shared/golden/gemma3`).
enum GemmaModel {
    static let url = TestModel.packageRoot.appendingPathComponent("Weights/gemma-3-270m-q4_k_m.gguf")
    static let golden = TestModel.golden.appendingPathComponent("gemma3")
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: url.path) }
    static var hasGolden: Bool { FileManager.default.fileExists(atPath: golden.appendingPathComponent("tokenize_shared.jsonl").path) }
    nonisolated(unsafe) static let file: GGUFFile = try! GGUFFile(contentsOf: url)
    nonisolated(unsafe) static let tokenizer: Tokenizer = try! Tokenizer(gguf: file)
}
