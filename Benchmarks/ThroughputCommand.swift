import Foundation
import PocketGGUF
import PocketKernels
import PocketQuantizer
import PocketTransformer

/// The default benchmark: prefill, decode, time to first token and memory, per model.
enum ThroughputCommand {
    /// One model's results.
    struct Result: Encodable {
        var model: String
        var fileBytes: Int
        var threads: Int
        var cpu: String
        /// Which kernels computed the matrix products: this build's own tier, or the kernel
        /// tier library loaded at run time (``KernelTierLibrary``).
        var kernels: String
        var prefill64TokensPerSecond: Summary
        var prefill512TokensPerSecond: Summary
        var decode128TokensPerSecond: Summary
        var timeToFirstTokenMilliseconds: Summary
        var peakResidentBytes: Int
        var kvCacheBytes: Int
        var decodeBytesPerToken: Int
        var decodeBandwidthBytesPerSecond: Double
        var machineReadBandwidthBytesPerSecond: Double
        var note: String?
        /// Tokens already in the cache before each prefill and decode (`--depth`, llama-bench's
        /// `-d`): the rates above are measured after them; the time to first token is not.
        var depth: Int
    }

    static func run(_ argv: [String]) throws {
        var models: [String] = []
        var threads = ThreadPool.defaultThreadCount
        var repetitions = 3
        var depth = 0
        var json = false
        var prefetchDistances: [Int] = []
        var rest = argv[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--model":
                guard let path = rest.popFirst() else { throw BenchError.usage("--model needs a path") }
                models.append(path)
            case "--threads":
                guard let text = rest.popFirst(), let n = Int(text), (1...512).contains(n) else {
                    throw BenchError.usage("--threads needs a number of threads")
                }
                threads = n
            case "--repetitions":
                guard let text = rest.popFirst(), let n = Int(text), (1...1000).contains(n) else {
                    throw BenchError.usage("--repetitions needs a positive number")
                }
                repetitions = n
            case "--depth":
                guard let text = rest.popFirst(), let n = Int(text), (1...1_000_000).contains(n) else {
                    throw BenchError.usage("--depth needs a number of tokens")
                }
                depth = n
            case "--json": json = true
            case "--prefetch", "--read-ahead": prefetchDistances = try PrefetchComparison.distances(rest.popFirst())
            default: throw BenchError.usage("unknown argument '\(argument)'")
            }
        }
        if models.isEmpty { models = defaultModels() }
        guard !models.isEmpty else {
            throw BenchError(message: "no model to benchmark: run Weights/fetch first")
        }
        let pool = ThreadPool(threads: threads)
        var results: [Result] = []
        for path in models {
            progress("benchmarking \(path)...")
            if prefetchDistances.isEmpty {
                results.append(try measure(path, pool: pool, repetitions: repetitions, depth: depth))
            } else {
                try comparePrefetch(path, pool: pool, distances: prefetchDistances, repetitions: repetitions)
            }
        }
        if !prefetchDistances.isEmpty { return }
        if let log = ProcessInfo.processInfo.environment["POCKET_BENCH_LOG"] { try append(results, toLog: log) }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            print(String(decoding: try encoder.encode(results), as: UTF8.self))
        } else {
            printTable(results, repetitions: repetitions)
        }
    }

    /// Appends one JSON line per result to the file at `path` (created when missing): with
    /// `POCKET_BENCH_LOG` set, a tool that runs `pocket-bench` and keeps only some figures
    /// (such as `../shared/tools/speed-vs-llama`, which keeps the rates) leaves the rest of
    /// each run, the bandwidth probed around its decode included, in the log.
    static func append(_ results: [Result], toLog path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var lines = Data()
        for result in results {
            lines.append(try encoder.encode(result))
            lines.append(UInt8(ascii: "\n"))
        }
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw BenchError(message: "cannot create the log \(path)")
            }
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw BenchError(message: "cannot write the log \(path)") }
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: lines)
    }

    /// The models of the default run that exist in `Weights/`; reports the missing ones. The
    /// q2_K requantization of the default model is created with Pocket's quantizer when missing.
    static func defaultModels() -> [String] {
        let weights = packageRoot().appendingPathComponent("Weights")
        let original = weights.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf")
        let requantized = weights.appendingPathComponent("SmolLM2-135M-Instruct.q2_K.gguf")
        createRequantization(of: original, at: requantized)
        let candidates = [
            (original.lastPathComponent, "Weights/fetch"),
            (requantized.lastPathComponent,
             "swift run -c release pocket quantize Weights/\(original.lastPathComponent) Weights/\(requantized.lastPathComponent) --type q2_k"),
            ("synthetic-afm-3b-q2_k.gguf", "swift run -c release pocket-bench synth"),
        ]
        var found: [String] = []
        for (name, command) in candidates {
            let path = weights.appendingPathComponent(name).path
            if FileManager.default.fileExists(atPath: path) {
                found.append(path)
            } else {
                progress("skipping \(name): not found (create it with: \(command))")
            }
        }
        return found
    }

    /// Writes the q2_K default-recipe requantization of `original` to `output` if `original`
    /// exists and `output` does not (the same file `pocket quantize ... --type q2_k` writes).
    static func createRequantization(of original: URL, at output: URL) {
        let files = FileManager.default
        guard files.fileExists(atPath: original.path), !files.fileExists(atPath: output.path) else { return }
        progress("creating \(output.lastPathComponent) with Pocket's quantizer (q2_k, default recipe)...")
        do {
            let summary = try ModelQuantizer(input: original, recipe: QuantizationRecipe(target: QuantizationTarget(.q2_K)!))
                .write(to: output, pool: ThreadPool())
            progress(String(format: "wrote %d bytes, %.3f bits/weight, in %.1f s",
                            summary.fileByteCount, summary.bitsPerWeight, summary.seconds))
        } catch {
            progress("could not create \(output.lastPathComponent): \(error)")
        }
    }

    /// `--prefetch`: tg128 at each distance, `repetitions` turns each, printed as one line.
    static func comparePrefetch(_ path: String, pool: ThreadPool, distances: [Int], repetitions: Int) throws {
        let benchmarked = try BenchmarkedModel(path: path, pool: pool)
        let seconds = try PrefetchComparison.seconds(at: distances, rounds: repetitions) { try benchmarked.decode128Seconds() }
        let rates = seconds.map { Double(128 * repetitions) / $0 }
        print("\(URL(fileURLWithPath: path).lastPathComponent) tg128 tokens/s by prefetch distance (bytes), \(repetitions) turns each: "
              + PrefetchComparison.line(distances, rates))
    }

    static func measure(_ path: String, pool: ThreadPool, repetitions: Int, depth: Int) throws -> Result {
        Machine.resetPeakResidentBytes()
        let benchmarked = try BenchmarkedModel(path: path, pool: pool, depth: depth)
        let file = benchmarked.file, model = benchmarked.model
        func tokens(_ n: Int) -> [Int] { benchmarked.tokens(n) }

        func prefill(_ n: Int) throws -> Summary {
            var rates: [Double] = []
            for _ in 0..<repetitions { rates.append(Double(n) / (try benchmarked.prefillSeconds(n))) }
            return Summary(rates)
        }
        let pp64 = try prefill(64)
        let pp512 = try prefill(512)

        // From an empty cache at any depth: a user's first answer.
        var firstToken: [Double] = []
        for _ in 0..<repetitions {
            model.truncate(to: 0)
            let prompt = tokens(64)
            firstToken.append(1000 * (try Machine.time {
                let logits = try model.evaluate(prompt)
                _ = logits.withUnsafeBufferPointer { Sampler.argmax($0) }
            }))
        }
        // Read before the bandwidth probe's buffer and the long-context run, neither of which
        // is part of this figure.
        let peakResidentBytes = Machine.peakResidentBytes()

        // The bandwidth this machine gives right now, probed just before and just after the
        // decode runs: a shared machine's bandwidth moves by half within minutes, so a
        // ceiling probed at another time says little about this decode. The higher reading
        // counts (the stricter ceiling).
        progress("measuring memory read bandwidth with \(pool.threadCount) threads...")
        var bandwidth = BandwidthProbe.readBandwidth(pool: pool)
        var decodeRates: [Double] = []
        for _ in 0..<repetitions { decodeRates.append(128 / (try benchmarked.decode128Seconds())) }
        let tg128 = Summary(decodeRates)
        bandwidth = max(bandwidth, BandwidthProbe.readBandwidth(pool: pool))

        // Decode reads every matrix once per token; a tied output reads the embedding table too.
        let tied = file.tensor(named: "output.weight") == nil
        // At a depth, each token also reads the cache up to its position: on average the depth
        // plus 64, half the decoded tokens.
        let cachePositionBytes = model.cache.byteCount / model.contextLength
        let bytesPerToken = file.tensors.reduce(0) { total, tensor in
            tensor.name == "token_embd.weight" && !tied ? total : total + tensor.byteCount
        } + (depth > 0 ? (depth + 64) * cachePositionBytes : 0)
        return Result(
            model: URL(fileURLWithPath: path).lastPathComponent, fileBytes: file.byteCount,
            threads: pool.threadCount, cpu: Machine.cpuName(), kernels: Self.kernels,
            prefill64TokensPerSecond: pp64, prefill512TokensPerSecond: pp512, decode128TokensPerSecond: tg128,
            timeToFirstTokenMilliseconds: Summary(firstToken), peakResidentBytes: peakResidentBytes,
            kvCacheBytes: model.cache.byteCount, decodeBytesPerToken: bytesPerToken,
            decodeBandwidthBytesPerSecond: Double(bytesPerToken) * tg128.median,
            machineReadBandwidthBytesPerSecond: bandwidth,
            note: path.contains("synthetic") ? "random weights: throughput only" : nil, depth: depth)
    }

    /// The kernels that compute products in this process, in a few words.
    static var kernels: String {
        if let library = KernelTierLibrary.active { return "the \(library.tier.rawValue) kernel tier library (\(library.path))" }
        return "this build's own \(CPUFeatures.compiledTier.rawValue) kernels"
    }

    static func printTable(_ results: [Result], repetitions: Int) {
        let first = results[0]
        print("Pocket benchmark — \(first.cpu), \(first.threads) threads, \(repetitions) repetitions (median ± half range)"
              + (first.depth > 0 ? ", prefill and decode after \(first.depth) cached tokens" : ""))
        print("Matrix products: \(first.kernels)")
        for r in results {
            print("")
            print("\(r.model) (\(String(format: "%.1f", Double(r.fileBytes) / 1e6)) MB)\(r.note.map { " — \($0)" } ?? "")")
            print("  prefill pp64            \(r.prefill64TokensPerSecond.formatted()) tokens/s")
            print("  prefill pp512           \(r.prefill512TokensPerSecond.formatted()) tokens/s")
            print("  decode tg128            \(r.decode128TokensPerSecond.formatted()) tokens/s")
            print("  time to first token     \(r.timeToFirstTokenMilliseconds.formatted()) ms (64-token prompt)")
            print(String(format: "  decode bandwidth        %.1f GB/s (%.0f%% of the %.1f GB/s the machine gave around it)",
                         r.decodeBandwidthBytesPerSecond / 1e9,
                         100 * r.decodeBandwidthBytesPerSecond / max(r.machineReadBandwidthBytesPerSecond, 1),
                         r.machineReadBandwidthBytesPerSecond / 1e9))
            print(String(format: "  peak RSS                %.1f MB (model file %.1f MB, KV cache reserved %.1f MB)",
                         Double(r.peakResidentBytes) / 1e6, Double(r.fileBytes) / 1e6, Double(r.kvCacheBytes) / 1e6))
        }
    }

    /// The package root: the folder above `Benchmarks/`.
    static func packageRoot() -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    }
}

func progress(_ message: String) {
    FileHandle.standardError.write(Data("pocket-bench: \(message)\n".utf8))
}
