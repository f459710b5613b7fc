import Foundation
import PocketGGUF
import PocketKernels
import PocketTokenizer
import PocketTransformer
import Testing

/// Qwen3 and Llama 3.1's long-context RoPE against llama.cpp, on small random-weight files in
/// each family's real layout, with Qwen2.5's byte-level BPE vocabulary: Pocket's greedy tokens
/// after four prompts are llama.cpp's, token for token (and up to near-ties with the block
/// matrices in Q8_0).
///
/// `Scripts/make_synthetic_families.py` writes the files into `Weights/synthetic` (CI runs it;
/// the suite is skipped without them); `Scripts/reference_synthetic_families.sh` ran llama.cpp on
/// them and wrote `Scripts/synthetic_families.json`. Every product reads F32 weights (the Llama
/// file's token embedding, only looked up, is Q8_0), so the two agree to the last few digits and
/// no tolerance is needed: the closest call in the 256 steps is a runner-up 0.014 below
/// llama.cpp's choice, with logits near 16. With Q8_0 products they part at such near-ties
/// (``quantizedBlocksChooseAsLlamaCppUpToNearTies(file:)``).
@Suite(.enabled(if: SyntheticFamilies.isGenerated,
                "needs Weights/synthetic: python3 Tests/PocketTransformerTests/Scripts/make_synthetic_families.py"),
       .serialized)
struct SyntheticFamilyGoldenTests {
    /// Every prompt's tokens (BOS first where the file asks for it) and its 32 greedy tokens are
    /// llama.cpp's. For the Llama file this covers `rope_freqs.weight`: its factors (8 on 13 of
    /// the 16 pairs) change the attention of every prompt from its second position on.
    @Test(arguments: ["synthetic-qwen3.gguf", "synthetic-llama31.gguf"])
    func greedyTokensAreLlamaCpps(file name: String) throws {
        let expected = try SyntheticFamilies.expectations(name)
        let file = try SyntheticFamilies.open(name, expected)
        let tokenizer = try Tokenizer(gguf: file)
        let model = try Transformer(file: file, contextLength: 128, pool: TestModel.pool)
        var smallestGap = Float.infinity
        for entry in expected["cases"] as! [[String: Any]] {
            let text = entry["prompt"] as! String
            let prompt = tokenizer.startingSequence(tokenizer.encode(text, parseSpecial: true))
            #expect(prompt == entry["prompt_ids"] as! [Int], "\(name), \(text.debugDescription): the prompt's tokens")
            let reference = entry["generated"] as! [Int]
            model.truncate(to: 0)
            var sampler = Sampler(.greedy)
            var generated: [Int] = []
            try model.generate(
                prompt: prompt, maximumTokens: entry["n_predict"] as! Int, sampler: &sampler,
                stopTokens: tokenizer.endOfGenerationTokens
            ) { token in generated.append(token); return true }
            #expect(generated == reference, "\(name), \(text.debugDescription): Pocket's greedy tokens")

            // How far each of llama.cpp's choices is from the runner-up in Pocket's logits.
            model.truncate(to: 0)
            var logits = try model.evaluate(prompt)
            for (i, token) in reference.enumerated() {
                let runnerUp = logits.indices.filter { $0 != token }.map { logits[$0] }.max()!
                smallestGap = min(smallestGap, logits[token] - runnerUp)
                if i + 1 < reference.count { logits = try model.evaluate([token]) }
            }
        }
        print("\(name): smallest gap between llama.cpp's choice and the runner-up: \(smallestGap)")
    }

    /// The same weights with every block matrix in Q8_0, whose products round their input to 8
    /// bits: there a last-bit difference upstream can move a logit by a few hundredths, and
    /// among 151,936 random logits the top two are often that close, so the free-running
    /// completions part at the first such near-tie. Teacher-forced on llama.cpp's tokens
    /// instead, each of its choices has Pocket's largest logit or one within the golden tests'
    /// 2% of it (``GoldenCheck/greedyChoices(_:model:tokenizer:tolerance:)``; measured: at most
    /// 0.27, under 1% of the top), and at least 90% of them are Pocket's own (measured: 123 and
    /// 121 of 128).
    @Test(arguments: ["synthetic-qwen3-q8_0.gguf", "synthetic-llama31-q8_0.gguf"])
    func quantizedBlocksChooseAsLlamaCppUpToNearTies(file name: String) throws {
        let expected = try SyntheticFamilies.expectations(name)
        let file = try SyntheticFamilies.open(name, expected)
        let tokenizer = try Tokenizer(gguf: file)
        let model = try Transformer(file: file, contextLength: 128, pool: TestModel.pool)
        var steps = 0, agreeing = 0, largestGap: Float = 0
        for entry in expected["cases"] as! [[String: Any]] {
            let text = entry["prompt"] as! String
            let prompt = tokenizer.startingSequence(tokenizer.encode(text, parseSpecial: true))
            #expect(prompt == entry["prompt_ids"] as! [Int], "\(name), \(text.debugDescription): the prompt's tokens")
            model.truncate(to: 0)
            var logits = try model.evaluate(prompt)
            let reference = entry["generated"] as! [Int]
            for (i, token) in reference.enumerated() {
                let top = logits.max()!, gap = top - logits[token]
                steps += 1
                if gap == 0 { agreeing += 1 }
                largestGap = max(largestGap, gap)
                #expect(gap <= 0.02 * max(1, abs(top)), "\(name), \(text.debugDescription), step \(i): \(gap) below the top \(top)")
                if i + 1 < reference.count { logits = try model.evaluate([token]) }
            }
        }
        #expect(Double(agreeing) >= 0.9 * Double(steps), "\(agreeing) of \(steps) choices Pocket's own")
        print("\(name), teacher-forced: \(agreeing) of \(steps) choices Pocket's own, largest gap \(largestGap)")
    }

    /// Qwen3's shape as llama.cpp reads it: the head dimension from `qwen3.attention.key_length`
    /// (32, where dim / heads is 16), per-head norms on queries and keys, no biases, and the
    /// output projection tied to the embedding.
    @Test func qwen3ReadsItsOwnHeadDimensionAndNorms() throws {
        let name = "synthetic-qwen3.gguf"
        let file = try SyntheticFamilies.open(name, try SyntheticFamilies.expectations(name))
        let c = try ModelConfiguration(metadata: file.metadata)
        #expect(c.architecture == .qwen3)
        #expect(c.headDimension == 32 && c.embeddingLength / c.headCount == 16)
        #expect(c.queryLength == 128 && c.ropeDimensionCount == 32)
        let weights = try TransformerWeights(file: file, configuration: c)
        #expect(weights.layers.allSatisfy { $0.queryNorm != nil && $0.keyNorm != nil })
        #expect(weights.layers.allSatisfy { $0.queryBias == nil && $0.keyBias == nil && $0.valueBias == nil })
        #expect(weights.output.data == weights.tokenEmbedding.data)
        #expect(weights.ropeFrequencyFactors == nil)
    }

    /// The Llama 3.1 file's RoPE factors are read (16 pairs: 1, 1, 2.44, then 8) and its
    /// `llama-bpe` pre-tokenizer is Llama 3's, which keeps runs of three digits together
    /// ("123", a token only this split reaches), as llama.cpp's tokens above show.
    @Test func llama31ReadsItsRopeFactorsAndLlama3Split() throws {
        let name = "synthetic-llama31.gguf"
        let file = try SyntheticFamilies.open(name, try SyntheticFamilies.expectations(name))
        let c = try ModelConfiguration(metadata: file.metadata)
        #expect(c.architecture == .llama)
        let weights = try TransformerWeights(file: file, configuration: c)
        let factors = try #require(weights.ropeFrequencyFactors)
        let values = (0..<(c.ropeDimensionCount / 2)).map { factors[$0] }
        #expect(values.prefix(2) == [1, 1] && abs(values[2] - 2.4423) < 1e-3 && values.dropFirst(3).allSatisfy { $0 == 8 })
        let tokenizer = try Tokenizer(gguf: file)
        #expect(tokenizer.preTokenizer == .llama3)
        #expect(tokenizer.addsBOS)
        #expect(tokenizer.decode(tokenizer.encode("12345")) == "12345")
        #expect(tokenizer.encode("12345").count == 3)
    }
}

/// The synthetic files of ``SyntheticFamilyGoldenTests`` and llama.cpp's outputs for them.
enum SyntheticFamilies {
    /// Where `make_synthetic_families.py` writes the files (git-ignored).
    static let directory = TestModel.packageRoot.appendingPathComponent("Weights/synthetic")
    /// llama.cpp's tokens, with each file's size and checksum (`reference_synthetic_families.sh`).
    static let expectationsURL = TestModel.packageRoot
        .appendingPathComponent("Tests/PocketTransformerTests/Scripts/synthetic_families.json")

    /// Whether both files have been generated.
    static var isGenerated: Bool {
        ["synthetic-qwen3.gguf", "synthetic-llama31.gguf", "synthetic-qwen3-q8_0.gguf", "synthetic-llama31-q8_0.gguf"].allSatisfy {
            FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path)
        }
    }

    /// The entry of file `name` in `synthetic_families.json`.
    static func expectations(_ name: String) throws -> [String: Any] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: expectationsURL)) as! [String: Any]
        return try #require((json["files"] as! [[String: Any]]).first { $0["file"] as? String == name })
    }

    /// Opens file `name` after checking that it is the file llama.cpp ran on: a generator run
    /// with other versions of gguf or numpy could write other weights, and the expectations
    /// would then be about another model.
    static func open(_ name: String, _ expected: [String: Any]) throws -> GGUFFile {
        let url = directory.appendingPathComponent(name)
        let data = try Data(contentsOf: url, options: .alwaysMapped)
        try #require(data.count == expected["bytes"] as! Int && String(checksum(data)) == expected["checksum"] as! String, """
            \(name) is not the file synthetic_families.json was computed on: regenerate it with gguf==0.19.0 \
            (make_synthetic_families.py), or rerun reference_synthetic_families.sh
            """)
        return try GGUFFile(contentsOf: url)
    }

    /// `Σ (i + 1) · word_i mod 2⁶⁴` over the little-endian 64-bit words of `data`, zero-padded:
    /// the reference script's checksum, enough to tell two generated files apart.
    static func checksum(_ data: Data) -> UInt64 {
        var sum: UInt64 = 0
        data.withUnsafeBytes { bytes in
            let words = bytes.count / 8
            for i in 0..<words {
                sum &+= UInt64(i + 1) &* UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: i * 8, as: UInt64.self))
            }
            if bytes.count % 8 != 0 {
                var last: UInt64 = 0
                for (shift, byte) in bytes[(words * 8)...].enumerated() { last |= UInt64(byte) << (8 * shift) }
                sum &+= UInt64(words + 1) &* last
            }
        }
        return sum
    }
}
