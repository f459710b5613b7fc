import Foundation
import PocketGGUF
import PocketKernels
import Testing
import PocketTokenizer
import PocketTransformer

/// End-to-end agreement with llama.cpp on the small test model, SmolLM2 (`../shared/golden`).
@Suite(.enabled(if: TestModel.isInstalled && TestModel.hasGolden, "needs Weights/fetch and ../shared/golden"),
       .serialized)
struct GoldenGenerationTests {
    /// Greedy completions against llama.cpp's: every completion agrees for its first 16
    /// tokens and at least 4 of the 6 agree in full (issue 2's bar). Near-ties after that can
    /// legitimately go either way: llama.cpp's result depends on its CPU's arithmetic, which
    /// Pocket follows where it is known (AVX-512 dot-product order, the SiLU polynomial).
    @Test(.enabled(if: MultiplyAdd.isFused, GoldenCheck.fusedOnly))
    func greedyCompletionsMatchLlamaCpp() throws {
        let cases = try TestModel.goldenLines("greedy_shared.jsonl")
        let model = try TestModel.transformer(context: 512)
        try GoldenCheck.greedyCompletions(cases, model: model, tokenizer: TestModel.tokenizer)
    }

    /// llama.cpp's greedy completions, token by token: each of its choices is Pocket's, or a
    /// near-tie of Pocket's choice.
    @Test func greedyChoicesAreLlamaCppsUpToNearTies() throws {
        let cases = try TestModel.goldenLines("greedy_shared.jsonl")
        let model = try TestModel.transformer(context: 512)
        try GoldenCheck.greedyChoices(cases, model: model, tokenizer: TestModel.tokenizer)
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

/// The golden comparisons both models run.
enum GoldenCheck {
    /// Why the free-running comparison needs fused multiply-adds.
    static let fusedOnly: Comment = """
        llama.cpp's references were computed with fused multiply-adds; a build without FMA \
        (the dependency and portable builds) rounds differently, so near-ties can go the other \
        way and a free-running completion then follows another text. \
        greedyChoicesAreLlamaCppsUpToNearTies checks every build token by token.
        """

    /// llama.cpp's greedy completions, teacher-forced: after the prompt and each prefix of the
    /// reference completion, the reference's next token has Pocket's largest logit, or one
    /// within the trace tests' tolerance of it (`tolerance` of the largest, 2% by default, at
    /// least 0.02): llama.cpp rounds activations to 8 bits inside its products, so a logit can
    /// move that much. At least 90% of the choices must be Pocket's own (a loose bound: the
    /// gap is the check). This holds for builds without FMA too, whose free-running
    /// completions part from the reference at the first near-tie.
    static func greedyChoices(_ cases: [[String: Any]], model: Transformer, tokenizer: Tokenizer, tolerance: Float = 0.02) throws {
        var steps = 0, agreeing = 0, largestGap: Float = 0
        for entry in cases {
            let text = entry["prompt"] as! String, completion = entry["completion"] as! String
            // BOS first where the model asks for it (Gemma), as llama.cpp tokenized the prompts.
            let prompt = tokenizer.startingSequence(tokenizer.encode(text, parseSpecial: true))
            // The reference's tokens: the whole text's after the prompt's, or, where the two
            // texts merge across their boundary (Qwen's "):" + "\n" tokenize as ")" + ":\n"),
            // the completion's own, as generated after the prompt's last token.
            let whole = tokenizer.startingSequence(tokenizer.encode(text + completion, parseSpecial: true))
            let reference = whole.starts(with: prompt)
                ? Array(whole[prompt.count...]) : tokenizer.encode(completion, parseSpecial: false)
            try #require(tokenizer.decode(reference) == completion, "\(text.debugDescription): the reference does not decode to the completion")
            for (i, step) in try choiceGaps(prompt: prompt, reference: reference, model: model).enumerated() {
                largestGap = max(largestGap, step.gap)
                steps += 1
                if step.gap == 0 { agreeing += 1 }
                #expect(step.gap <= tolerance * max(1, abs(step.top)),
                        "\(text.debugDescription), step \(i): llama.cpp's token \(reference[i]) is \(step.gap) below the top logit \(step.top)")
            }
        }
        #expect(Double(agreeing) >= 0.9 * Double(steps), "\(agreeing) of \(steps) choices Pocket's own")
        print("greedy golden, teacher-forced: \(agreeing) of \(steps) choices Pocket's own, largest gap \(largestGap)")
    }

    /// Teacher-forces `reference` after `prompt` from an empty cache: for each of its tokens,
    /// how far below Pocket's largest logit at that step it is (0 where it is Pocket's choice),
    /// and that largest logit. With `stop` (the end-of-generation tokens, for a reference that
    /// ended before its token budget) one more step follows the last token: the gap of the best
    /// of `stop`, the reference's unprinted last choice.
    static func choiceGaps(
        prompt: [Int], reference: [Int], model: Transformer, stop: Set<Int>? = nil
    ) throws -> [(gap: Float, top: Float)] {
        model.truncate(to: 0)
        var logits = try model.evaluate(prompt)
        var gaps: [(gap: Float, top: Float)] = []
        for (i, token) in reference.enumerated() {
            let top = logits.max()!
            gaps.append((top - logits[token], top))
            if i + 1 < reference.count || stop != nil { logits = try model.evaluate([token]) }
        }
        if let stop, !stop.isEmpty {
            let top = logits.max()!
            gaps.append((top - stop.map { logits[$0] }.max()!, top))
        }
        return gaps
    }

    /// Greedy completions against llama.cpp's: every completion agrees for its first
    /// `leadingTokens` tokens (16) and at least `identicalCompletions` of the 6 (4) agree in full.
    static func greedyCompletions(
        _ cases: [[String: Any]], model: Transformer, tokenizer: Tokenizer, leadingTokens: Int = 16, identicalCompletions: Int = 4
    ) throws {
        #expect(cases.count == 6)
        var identical = 0
        var agreeingPrefix: [Int] = []
        for entry in cases {
            let prompt = entry["prompt"] as! String
            let count = entry["n_predict"] as! Int
            let expected = entry["completion"] as! String
            model.truncate(to: 0)
            var sampler = Sampler(.greedy)
            var generated: [Int] = []
            try model.generate(
                prompt: tokenizer.startingSequence(tokenizer.encode(prompt, parseSpecial: true)), maximumTokens: count,
                sampler: &sampler, stopTokens: tokenizer.endOfGenerationTokens
            ) { token in generated.append(token); return true }
            let same = tokenizer.decode(generated) == expected
            if same { identical += 1 }
            // How many leading generated tokens reproduce a prefix of the reference text.
            var agreeing = 0
            while agreeing < generated.count, expected.hasPrefix(tokenizer.decode(Array(generated.prefix(agreeing + 1)))) {
                agreeing += 1
            }
            agreeingPrefix.append(agreeing)
            // A completion shorter than `leadingTokens` (it ended) must then agree in full.
            #expect(agreeing >= leadingTokens || same, "\(prompt.debugDescription): \(agreeing) leading tokens agree")
        }
        #expect(identical >= identicalCompletions, "\(identical) of 6 completions identical in full; leading tokens in agreement: \(agreeingPrefix)")
        print("greedy golden: \(identical) of 6 identical; leading tokens in agreement: \(agreeingPrefix)")
    }

    /// The greedy cases of `url`, a `greedy_shared.jsonl` whose every completion ends with one
    /// "\n" that the reference tool printed after the text (also those cut off mid-sentence
    /// at 48 tokens): that newline is not generated, so it is dropped.
    static func casesDroppingPrintedNewline(_ url: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        return try text.split(separator: "\n").map { line -> [String: Any] in
            var entry = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            let completion = entry["completion"] as! String
            #expect(completion.hasSuffix("\n"))
            entry["completion"] = String(completion.dropLast())
            return entry
        }
    }
}

/// The same comparisons on Qwen2.5-Coder-0.5B-Instruct, the default model (`../shared/golden/qwen`).
@Suite(.enabled(if: QwenModel.isInstalled && TestModel.hasGolden, "needs Weights/fetch and ../shared/golden/qwen"),
       .serialized)
struct QwenGoldenTests {
    @Test(.enabled(if: MultiplyAdd.isFused, GoldenCheck.fusedOnly))
    func greedyCompletionsMatchLlamaCpp() throws {
        let model = try Transformer(file: QwenModel.file, contextLength: 512, pool: TestModel.pool)
        try GoldenCheck.greedyCompletions(try greedyCases(), model: model, tokenizer: QwenModel.tokenizer)
    }

    /// As ``GoldenGenerationTests/greedyChoicesAreLlamaCppsUpToNearTies()``, on Qwen.
    @Test func greedyChoicesAreLlamaCppsUpToNearTies() throws {
        let model = try Transformer(file: QwenModel.file, contextLength: 512, pool: TestModel.pool)
        try GoldenCheck.greedyChoices(try greedyCases(), model: model, tokenizer: QwenModel.tokenizer)
    }

    private func greedyCases() throws -> [[String: Any]] {
        try GoldenCheck.casesDroppingPrintedNewline(QwenModel.golden.appendingPathComponent("greedy_shared.jsonl"))
    }

    /// Perplexity on the GPL text with llama.cpp's protocol: within 1% of 5.3184.
    @Test func perplexityMatchesLlamaCpp() throws {
        let text = try String(contentsOf: TestModel.golden.appendingPathComponent("perplexity_text.txt"), encoding: .utf8)
        let tokens = QwenModel.tokenizer.encode(text, parseSpecial: false)
        let model = try Transformer(file: QwenModel.file, contextLength: 512, batchSize: 128, pool: TestModel.pool)
        let result = try model.perplexity(of: tokens, chunkLength: 512)
        #expect(result.chunks == tokens.count / 512)
        #expect(abs(result.perplexity - 5.3184) / 5.3184 < 0.01, "PPL \(result.perplexity)")
        print("Qwen perplexity: \(result.perplexity) over \(result.chunks) chunks (llama.cpp: 5.3184)")
    }
}

/// Qwen2.5-Coder-0.5B-Instruct, opened once.
enum QwenModel {
    static let url = TestModel.packageRoot.appendingPathComponent("Weights/Qwen2.5-Coder-0.5B-Instruct.gguf")
    static let golden = TestModel.golden.appendingPathComponent("qwen")
    static var isInstalled: Bool { FileManager.default.fileExists(atPath: url.path) }
    nonisolated(unsafe) static let file: GGUFFile = try! GGUFFile(contentsOf: url)
    nonisolated(unsafe) static let tokenizer: Tokenizer = try! Tokenizer(gguf: file)
}
