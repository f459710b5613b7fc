import Foundation
import PocketGGUF
import PocketKernels
import PocketTransformer

/// A model loaded for benchmarking (batches of 64), with the random tokens it is fed: the same
/// seed for every run, so runs read the same embedding rows.
///
/// With a `depth`, every timed prefill and decode starts after that many tokens already in the
/// cache, as llama-bench's `-d`: the prefix is evaluated once, untimed, and each run goes back
/// to its end (``Transformer/truncate(to:)``).
final class BenchmarkedModel {
    let file: GGUFFile
    let model: Transformer
    /// Tokens in the cache before each timed run.
    let depth: Int
    /// The tokens of the depth's prefix.
    private var prefix: [Int] = []
    private var random = SplitMix64(seed: 1234)

    /// Loads the model at `path` with room for `depth` cached tokens plus a 512-token prefill
    /// (at least 1,024 positions), warms it up (its weights paged in, the pool's threads
    /// running) and evaluates the depth's prefix.
    init(path: String, pool: ThreadPool, depth: Int = 0) throws {
        file = try GGUFFile(contentsOf: URL(fileURLWithPath: path))
        let configuration = try ModelConfiguration(metadata: file.metadata)
        let contextLength = max(1024, depth + 512)
        guard contextLength <= configuration.trainedContextLength else {
            throw BenchError(message: "--depth \(depth) and a 512-token prefill need \(contextLength) positions; \(path) was trained for \(configuration.trainedContextLength)")
        }
        model = try Transformer(file: file, contextLength: contextLength, batchSize: 64, pool: pool)
        self.depth = depth
        try model.evaluate(tokens(8), logits: .last)
        prefix = tokens(depth)
        try returnToDepth()
    }

    /// `n` random token ids of the model's vocabulary.
    func tokens(_ n: Int) -> [Int] {
        let vocabulary = UInt64(model.configuration.vocabularySize)
        return (0..<n).map { _ in Int(random.next() % vocabulary) }
    }

    /// Forgets everything after the depth's prefix (everything at depth 0), evaluating the
    /// prefix again, untimed, when something truncated into it.
    func returnToDepth() throws {
        if model.position >= depth {
            model.truncate(to: depth)
        } else {
            model.truncate(to: 0)
            if depth > 0 { try model.evaluate(prefix, logits: .last) }
        }
    }

    /// The seconds of a prefill of `n` tokens after the depth's prefix.
    func prefillSeconds(_ n: Int) throws -> Double {
        try returnToDepth()
        let prompt = tokens(n)
        return try Machine.time { try model.evaluate(prompt, logits: .last) }
    }

    /// The seconds of 128 decoded tokens after the depth's prefix; at depth 0 after a 16-token
    /// prompt (llama-bench's tg128 decodes from a short context too).
    func decode128Seconds() throws -> Double {
        try returnToDepth()
        if depth == 0 { try model.evaluate(tokens(16), logits: .last) }
        let steps = tokens(128)
        return try Machine.time { for token in steps { _ = try model.evaluate([token]) } }
    }
}
