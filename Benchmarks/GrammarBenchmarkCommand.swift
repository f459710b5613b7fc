import Foundation
import Pocket
import PocketGGUF
import PocketGrammar
import PocketKernels
import PocketTokenizer
import PocketTransformer

/// `pocket-bench grammar [--model PATH] [--json] [--masks-only]`: mask and compile timings of
/// the grammar engine on a model's vocabulary (`--model`, else `$POCKET_MODEL`, else the default
/// model), one thread. `--masks-only` skips the decoding comparison (which loads and runs the
/// model), for quick repeated mask measurements.
enum GrammarBenchmarkCommand {
    /// Tokens per second of greedy decoding with and without a grammar (a free-text-heavy
    /// schema, so the comparison measures the per-token cost of masking), median of three.
    static func decodingSpeed(url: URL, tokenizer: Tokenizer, vocabulary: Vocabulary) throws -> (free: Double, constrained: Double) {
        let model = try Transformer(contentsOf: url, contextLength: 512)
        let prompt = tokenizer.encode("<|im_start|>user\nDescribe a cat named Tom in JSON.<|im_end|>\n<|im_start|>assistant\n", parseSpecial: true)
        let schema = ##"{"type":"object","properties":{"name":{"type":"string","maxLength":400},"story":{"type":"string","maxLength":2000}},"required":["name","story"]}"##
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: schema))
        let steps = 96
        func run(constrained: Bool) throws -> Double {
            model.truncate(to: 0)
            var logits = try model.evaluate(prompt)
            var decoding = ConstrainedDecoding(grammar: grammar, vocabulary: vocabulary, sampling: .greedy)
            var produced = 0
            let seconds = try Machine.time {
                for _ in 0..<steps {
                    let token = constrained
                        ? logits.withUnsafeBufferPointer { decoding.next($0) }
                        : logits.withUnsafeBufferPointer { Sampler.argmax($0) }
                    produced += 1
                    if constrained && decoding.isComplete { break }
                    logits = try model.evaluate([token])
                }
            }
            return Double(produced) / seconds
        }
        _ = try run(constrained: false)  // warm up
        var free: [Double] = [], constrained: [Double] = []
        for _ in 0..<3 {
            free.append(try run(constrained: false))
            constrained.append(try run(constrained: true))
        }
        return (Summary(free).median, Summary(constrained).median)
    }

    static func run(_ argv: [String]) throws {
        var json = false
        var masksOnly = false
        var modelPath = ProcessInfo.processInfo.environment["POCKET_MODEL"]
        var rest = argv[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = true
            case "--masks-only": masksOnly = true
            case "--model":
                guard let path = rest.popFirst() else { throw BenchError.usage("--model needs a path") }
                modelPath = path
            default: throw BenchError.usage("unknown argument '\(argument)'")
            }
        }
        let url = modelPath.map { URL(fileURLWithPath: $0) }
            ?? ThroughputCommand.packageRoot().appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw BenchError(message: "no model at \(url.path): the grammar benchmark uses its vocabulary (run Weights/fetch, or pass --model)")
        }
        let tokenizer = try Tokenizer(gguf: GGUFFile(contentsOf: url))
        let vocabulary = Vocabulary(
            tokens: (0..<tokenizer.vocabularySize).map { tokenizer.isSpecial($0) ? [] : tokenizer.bytes(of: $0) },
            endOfGeneration: tokenizer.endOfGenerationTokens)
        progress("running \(GrammarBenchmark.suite.count) schemas over \(vocabulary.count) tokens...")
        let result = try GrammarBenchmark.run(vocabulary: vocabulary)
        if masksOnly {
            print(String(format: "mask p50 %.1f µs, p99 %.1f µs over %d masks; vocabulary %d tokens",
                         result.maskMedianMicroseconds, result.maskP99Microseconds, result.maskCount, result.vocabularySize))
            return
        }
        progress("measuring constrained against unconstrained decoding on \(url.lastPathComponent)...")
        let endToEnd = try decodingSpeed(url: url, tokenizer: tokenizer, vocabulary: vocabulary)
        if json {
            struct Output: Encodable {
                var grammar: GrammarBenchmark.Result
                var unconstrained_tokens_per_s: Double
                var constrained_tokens_per_s: Double
                var constrained_ratio: Double
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let output = Output(grammar: result, unconstrained_tokens_per_s: endToEnd.free, constrained_tokens_per_s: endToEnd.constrained,
                                constrained_ratio: endToEnd.constrained / endToEnd.free)
            // The grammar figures also at the top level, as the issue names them.
            var object = try JSONSerialization.jsonObject(with: encoder.encode(output)) as! [String: Any]
            for (k, v) in try JSONSerialization.jsonObject(with: encoder.encode(result)) as! [String: Any] { object[k] = v }
            print(String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]), as: UTF8.self))
        } else {
            print("Pocket grammar benchmark — \(Machine.cpuName()), 1 thread for masks")
            print(String(format: "  mask p50 %.1f µs, p99 %.1f µs over %d masks", result.maskMedianMicroseconds, result.maskP99Microseconds, result.maskCount))
            print(String(format: "  compile p50 %.3f ms over %d schemas; vocabulary %d tokens", result.compileMedianMilliseconds, result.schemaCount, result.vocabularySize))
            print(String(format: "  decoding (\(url.lastPathComponent), %d threads): unconstrained %.1f tokens/s, constrained %.1f tokens/s (%.0f%%)",
                         ThreadPool.defaultThreadCount, endToEnd.free, endToEnd.constrained, 100 * endToEnd.constrained / endToEnd.free))
        }
    }
}
