import Foundation
import PocketGGUF
import PocketKernels
import Testing
import PocketTokenizer
import PocketTransformer

/// End-to-end agreement with llama.cpp on Gemma 3 270M (`../shared/golden/gemma3`): the family
/// with per-head Q/K norms, post-norms, GeGLU, a scaled embedding and sliding-window layers.
/// Its protocol differs from SmolLM2's and Qwen's by BOS: the model asks for it
/// (`tokenizer.ggml.add_bos_token`), so prompts and perplexity chunks start with it.
@Suite(.enabled(if: GemmaModel.isInstalled && TestModel.hasGolden, "needs `Weights/fetch gemma3` and ../shared/golden/gemma3"),
       .serialized)
struct GemmaGoldenTests {
    /// The 6 greedy completions, with the SmolLM2 and Qwen bar (``GoldenCheck/greedyCompletions(_:model:tokenizer:)``).
    @Test(.enabled(if: MultiplyAdd.isFused, GoldenCheck.fusedOnly))
    func greedyCompletionsMatchLlamaCpp() throws {
        let model = try Transformer(file: GemmaModel.file, contextLength: 512, pool: TestModel.pool)
        try GoldenCheck.greedyCompletions(try greedyCases(), model: model, tokenizer: GemmaModel.tokenizer)
    }

    /// As ``GoldenGenerationTests/greedyChoicesAreLlamaCppsUpToNearTies()``, on Gemma.
    @Test func greedyChoicesAreLlamaCppsUpToNearTies() throws {
        let model = try Transformer(file: GemmaModel.file, contextLength: 512, pool: TestModel.pool)
        try GoldenCheck.greedyChoices(try greedyCases(), model: model, tokenizer: GemmaModel.tokenizer)
    }

    private func greedyCases() throws -> [[String: Any]] {
        try GoldenCheck.casesDroppingPrintedNewline(GemmaModel.golden.appendingPathComponent("greedy_shared.jsonl"))
    }

    /// Perplexity on the GPL text with llama-perplexity's protocol for a model that expects
    /// BOS (BOS before the text and in place of each chunk's first token): within 1% of 13.9062.
    @Test func perplexityMatchesLlamaCpp() throws {
        let text = try String(contentsOf: TestModel.golden.appendingPathComponent("perplexity_text.txt"), encoding: .utf8)
        let tokenizer = GemmaModel.tokenizer
        let tokens = tokenizer.startingSequence(tokenizer.encode(text, parseSpecial: false))
        #expect(tokens.first == tokenizer.bosToken)
        let model = try Transformer(file: GemmaModel.file, contextLength: 512, batchSize: 128, pool: TestModel.pool)
        let result = try model.perplexity(of: tokens, chunkLength: 512, beginningOfSequence: tokenizer.bosToken)
        #expect(result.chunks == tokens.count / 512)
        #expect(abs(result.perplexity - 13.9062) / 13.9062 < 0.01, "PPL \(result.perplexity)")
        print("Gemma perplexity: \(result.perplexity) over \(result.chunks) chunks (llama.cpp: 13.9062)")
    }
}

/// Gemma 3 270M (Q4_K_M), opened once.
enum GemmaModel {
    static let url = TestModel.packageRoot.appendingPathComponent("Weights/gemma-3-270m-q4_k_m.gguf")
    static let golden = TestModel.golden.appendingPathComponent("gemma3")
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: url.path) }
    static let file: GGUFFile = try! GGUFFile(contentsOf: url)
    nonisolated(unsafe) static let tokenizer: Tokenizer = try! Tokenizer(gguf: file)
}
