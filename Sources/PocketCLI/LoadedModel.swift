import Foundation
import PocketGGUF
import PocketKernels
import PocketTokenizer
import PocketTransformer

/// A model file opened with its tokenizer and transformer, as every generating command needs.
struct LoadedModel {
    let url: URL
    let file: GGUFFile
    let tokenizer: Tokenizer
    let transformer: Transformer

    /// Options shared by the commands that load a model.
    static let valueOptions: Set<String> = ["model", "threads", "context"]
    /// Switches shared by the commands that load a model: `--llama-order` computes in
    /// llama.cpp's order of operations (``ArithmeticOrder/llamaCpp``), to reproduce its outputs.
    static let switches: Set<String> = ["llama-order"]

    /// Loads the model named by `--model` (or the default), with `--threads` and `--context`.
    init(_ arguments: Arguments, defaultContext: Int = 4096) throws {
        let url = try ModelLocator.locate(arguments.string("model"))
        self.url = url
        let threads = try arguments.integer("threads", default: ThreadPool.defaultThreadCount, in: 1...512)
        let context = try arguments.integer("context", default: defaultContext, in: 1...(1 << 20))
        // Each stage timed, so a slow start says where its time went.
        var stages: [(name: String, seconds: Double)] = []
        func timed<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
            let start = ContinuousClock.now
            defer { stages.append((name, (ContinuousClock.now - start).seconds)) }
            return try body()
        }
        do {
            let file = try timed("file") { try GGUFFile(contentsOf: url) }
            let tokenizer = try timed("tokenizer") { try Tokenizer(gguf: file) }
            self.transformer = try timed("weights") {
                try Transformer(
                    file: file, contextLength: context, pool: ThreadPool(threads: threads),
                    arithmetic: arguments.has("llama-order") ? .llamaCpp : .fastest)
            }
            self.file = file
            self.tokenizer = tokenizer
        } catch {
            throw CLIError.failure("cannot load \(url.path): \(error)")
        }
        let c = transformer.configuration
        Log.info(String(
            format: "pocket: loaded %@ (%@, %d layers, dim %d, vocab %d) in %.2f s (%@); context %d, %d threads",
            url.lastPathComponent, c.architecture.rawValue, c.layerCount, c.embeddingLength, c.vocabularySize,
            stages.map(\.seconds).reduce(0, +), stages.map { String(format: "%@ %.2f", $0.name, $0.seconds) }.joined(separator: ", "),
            transformer.contextLength, threads))
    }
}

/// Sampling options shared by `generate` and `chat`.
enum SamplingOptions {
    static let valueOptions: Set<String> = ["temperature", "top-k", "top-p", "seed"]
    /// llama.cpp's names for the repetition penalties.
    static let penaltyOptions: Set<String> = ["repeat-penalty", "repeat-last-n", "presence-penalty", "frequency-penalty"]

    /// Reads `--repeat-penalty` (1: off), `--repeat-last-n`, `--presence-penalty` and
    /// `--frequency-penalty`; each is `nil` when not given.
    static func penalties(_ arguments: Arguments) throws(CLIError) -> (repeat: Float?, window: Int?, presence: Float?, frequency: Float?) {
        func value(_ name: String, in range: ClosedRange<Float>) throws(CLIError) -> Float? {
            arguments.string(name) == nil ? nil : try arguments.float(name, default: 0, in: range)
        }
        return (try value("repeat-penalty", in: 0.01...10),
                arguments.string("repeat-last-n") == nil ? nil : try arguments.integer("repeat-last-n", default: 64, in: 0...(1 << 20)),
                try value("presence-penalty", in: -10...10), try value("frequency-penalty", in: -10...10))
    }
    static let switches: Set<String> = ["greedy"]

    /// Reads `--greedy`, `--temperature`, `--top-k`, `--top-p`, `--seed`. Without any of them,
    /// sampling uses temperature 0.8, top-k 40, top-p 0.95 and a random seed (printed).
    static func parameters(_ arguments: Arguments) throws(CLIError) -> SamplingParameters {
        if arguments.has("greedy") {
            if ["temperature", "top-k", "top-p"].contains(where: { arguments.string($0) != nil }) {
                throw .usage("--greedy cannot be combined with --temperature, --top-k or --top-p")
            }
            return .greedy
        }
        let seedText = arguments.string("seed")
        let seed: UInt64
        if let seedText {
            guard let value = UInt64(seedText) else { throw .usage("--seed must be a non-negative integer, got '\(seedText)'") }
            seed = value
        } else {
            seed = UInt64.random(in: 0...UInt64(UInt32.max))
            Log.info("pocket: seed \(seed)")
        }
        return SamplingParameters(
            temperature: try arguments.float("temperature", default: 0.8, in: 0...100),
            topK: try arguments.integer("top-k", default: 40, in: 0...(1 << 24)),
            topP: try arguments.float("top-p", default: 0.95, in: 0...1),
            seed: seed)
    }
}
