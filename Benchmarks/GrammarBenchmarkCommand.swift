import Foundation
import PocketGGUF
import PocketGrammar
import PocketTokenizer

/// `pocket-bench grammar`: mask and compile timings of the grammar engine on the default
/// model's vocabulary, one thread.
enum GrammarBenchmarkCommand {
    static func run(_ argv: [String]) throws {
        var json = false
        for argument in argv {
            guard argument == "--json" else { throw BenchError.usage("unknown argument '\(argument)'") }
            json = true
        }
        let url = ThroughputCommand.packageRoot().appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw BenchError(message: "the grammar benchmark uses the default model's vocabulary: run Weights/fetch first")
        }
        let tokenizer = try Tokenizer(gguf: GGUFFile(contentsOf: url))
        let vocabulary = Vocabulary(
            tokens: (0..<tokenizer.vocabularySize).map { tokenizer.isSpecial($0) ? [] : tokenizer.bytes(of: $0) },
            endOfGeneration: tokenizer.endOfGenerationTokens)
        progress("running \(GrammarBenchmark.suite.count) schemas over \(vocabulary.count) tokens...")
        let result = try GrammarBenchmark.run(vocabulary: vocabulary)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(result), as: UTF8.self))
        } else {
            print("Pocket grammar benchmark — \(Machine.cpuName()), 1 thread")
            print(String(format: "  mask p50 %.1f µs, p99 %.1f µs over %d masks", result.mask_p50_us, result.mask_p99_us, result.masks))
            print(String(format: "  compile p50 %.3f ms over %d schemas; vocabulary %d tokens", result.compile_p50_ms, result.schemas, result.vocab_size))
        }
    }
}
