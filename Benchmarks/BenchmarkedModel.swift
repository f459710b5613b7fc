import Foundation
import PocketGGUF
import PocketKernels
import PocketTransformer

/// A model loaded for benchmarking (a 1,024-token context, batches of 64), with the random
/// tokens it is fed: the same seed for every run, so runs read the same embedding rows.
final class BenchmarkedModel {
    let file: GGUFFile
    let model: Transformer
    private var random = SplitMix64(seed: 1234)

    /// Loads the model at `path` and warms it up: its weights paged in, the pool's threads running.
    init(path: String, pool: ThreadPool) throws {
        file = try GGUFFile(contentsOf: URL(fileURLWithPath: path))
        model = try Transformer(file: file, contextLength: 1024, batchSize: 64, pool: pool)
        try model.evaluate(tokens(8), logits: .last)
    }

    /// `n` random token ids of the model's vocabulary.
    func tokens(_ n: Int) -> [Int] {
        let vocabulary = UInt64(model.configuration.vocabularySize)
        return (0..<n).map { _ in Int(random.next() % vocabulary) }
    }

    /// The seconds of 128 decoded tokens after a 16-token prompt (llama-bench's tg128 decodes
    /// from a short context too).
    func decode128Seconds() throws -> Double {
        model.truncate(to: 0)
        try model.evaluate(tokens(16), logits: .last)
        let steps = tokens(128)
        return try Machine.time { for token in steps { _ = try model.evaluate([token]) } }
    }
}
