import Foundation
import Testing
import PocketTokenizer
import PocketTransformer

/// End-to-end agreement with llama.cpp on the default model (`../shared/golden`).
@Suite(.enabled(if: TestModel.isInstalled && TestModel.hasGolden, "needs Weights/fetch and ../shared/golden"),
       .serialized)
struct GoldenGenerationTests {
    /// Greedy completions: every one identical for its first 16 tokens, at least 4 of 6 in full.
    @Test func greedyCompletionsMatchLlamaCpp() throws {
        let cases = try TestModel.goldenLines("greedy_shared.jsonl")
        #expect(cases.count == 6)
        let tokenizer = TestModel.tokenizer
        let model = try TestModel.transformer(context: 512)
        var identical = 0
        for entry in cases {
            let prompt = entry["prompt"] as! String
            let count = entry["n_predict"] as! Int
            let expected = entry["completion"] as! String
            model.truncate(to: 0)
            var sampler = Sampler(.greedy)
            var generated: [Int] = []
            try model.generate(
                prompt: tokenizer.encode(prompt, parseSpecial: true), maximumTokens: count,
                sampler: &sampler, stopTokens: tokenizer.endOfGenerationTokens
            ) { token in generated.append(token); return true }
            let text = tokenizer.decode(generated)
            let first16 = tokenizer.decode(Array(generated.prefix(16)))
            #expect(expected.hasPrefix(first16), "first 16 tokens of \(prompt.debugDescription): got \(first16.debugDescription)")
            if text == expected { identical += 1 }
        }
        #expect(identical >= 4, "only \(identical) of 6 completions identical in full")
    }

    /// Perplexity on the GPL text with llama.cpp's protocol: within 1% of 18.3914.
    @Test func perplexityMatchesLlamaCpp() throws {
        let text = try String(contentsOf: TestModel.golden.appendingPathComponent("perplexity_text.txt"), encoding: .utf8)
        let tokens = TestModel.tokenizer.encode(text, parseSpecial: false)
        let model = try TestModel.transformer(context: 512, batchSize: 128)
        let result = try model.perplexity(of: tokens, chunkLength: 512)
        #expect(result.chunks == 14)
        #expect(result.scoredTokens == 14 * 255)
        #expect(abs(result.perplexity - 18.3914) / 18.3914 < 0.01, "PPL \(result.perplexity)")
    }
}
