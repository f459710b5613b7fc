import Foundation
import PocketGGUF
import PocketKernels
import PocketTokenizer
@testable import PocketGrammar

/// SmolLM2-135M-Instruct, the small test model (not the package's default model, Qwen).
enum TestModel {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let url = packageRoot.appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: url.path) }
    nonisolated(unsafe) static let tokenizer: Tokenizer = try! Tokenizer(gguf: GGUFFile(contentsOf: url))
    /// The small test model's (SmolLM2's) vocabulary; special tokens get no bytes (never allowed in values).
    nonisolated(unsafe) static let vocabulary: Vocabulary = Vocabulary(
        tokens: (0..<tokenizer.vocabularySize).map { tokenizer.isSpecial($0) ? [] : tokenizer.bytes(of: $0) },
        endOfGeneration: tokenizer.endOfGenerationTokens)
}

/// A small synthetic vocabulary: every byte, plus multi-byte tokens that span grammar elements.
enum SyntheticVocabulary {
    static let extra = ["\",\"", "\":", "\"}", "},{", "\":\"", "true", "null", "false", "12", "-3", ".5", "ab", "cd",
                        "{\"", "[\"", "\"]", "]}", "\\n", "\\u00e9", "é", "🙂", " ", "  ", "name", "age", "\",", "0"]
    static let vocabulary: Vocabulary = {
        var tokens = (0..<256).map { [UInt8($0)] }
        tokens += extra.map { Array($0.utf8) }
        tokens.append([])  // an end-of-generation token
        return Vocabulary(tokens: tokens, endOfGeneration: [tokens.count - 1])
    }()
    static var end: Int { vocabulary.count - 1 }
}

/// Walks the grammar choosing uniformly among allowed tokens; returns the text, or nil when a
/// state allowed nothing (a dead end).
func randomWalk(_ grammar: CompiledGrammar, _ vocabulary: Vocabulary, seed: UInt64, limit: Int = 400) -> String? {
    var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
    var rng = SeededRandom(seed: seed)
    var mask = TokenMask(count: vocabulary.count)
    var bytes: [UInt8] = []
    for step in 0..<limit {
        matcher.fillMask(&mask)
        var allowed = mask.allowedTokens
        if allowed.isEmpty { print("DEAD:", String(decoding: bytes, as: UTF8.self)); return nil }
        // Late in the walk, prefer ending or structural tokens so walks terminate.
        if step > limit / 2, mask.allowsEnd { return String(decoding: bytes, as: UTF8.self) }
        if step > limit / 3 {
            let closing = allowed.filter { t in vocabulary.tokens[t].contains { "\"}]0123456789el".utf8.contains($0) } }
            if !closing.isEmpty { allowed = closing }
        }
        let token = allowed[Int(rng.next() % UInt64(allowed.count))]
        if vocabulary.endOfGeneration.contains(token) { return String(decoding: bytes, as: UTF8.self) }
        guard matcher.accept(token) else { print("REJECTED", token, String(decoding: bytes, as: UTF8.self)); return nil }
        bytes += vocabulary.tokens[token]
        if matcher.isComplete { return String(decoding: bytes, as: UTF8.self) }
    }
    return matcher.canEnd ? String(decoding: bytes, as: UTF8.self) : "<<did not finish>>"
}

/// The grammar tests' seeded generator: the package's one SplitMix64.
typealias SeededRandom = SplitMix64
