import Foundation
import Testing
import PocketTransformer

/// Behaviour of the forward pass and KV cache on the default model.
@Suite(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"), .serialized)
struct TransformerTests {
    static let prompt = [19556, 28, 905, 17, 1073, 359, 346, 1834, 47, 339, 5248]

    @Test func configurationIsReadFromMetadata() throws {
        let model = try TestModel.transformer()
        let c = model.configuration
        // Values from the model card of SmolLM2-135M (independent of our reader).
        #expect(c.architecture == "llama")
        #expect(c.layerCount == 30 && c.embeddingLength == 576 && c.feedForwardLength == 1536)
        #expect(c.headCount == 9 && c.keyValueHeadCount == 3 && c.headDimension == 64)
        #expect(c.vocabularySize == 49152)
    }

    @Test func batchedPrefillAgreesWithOneTokenAtATime() throws {
        let batched = try TestModel.transformer(context: 64, batchSize: 64)
        var all: [[Float]] = []
        try batched.evaluate(Self.prompt, logits: .all) { _, logits in all.append(Array(logits)) }
        let single = try TestModel.transformer(context: 64, batchSize: 1)
        for (i, token) in Self.prompt.enumerated() {
            let logits = try single.evaluate([token])
            let worst = zip(logits, all[i]).map { abs($0 - $1) }.max()!
            // Same arithmetic in a different grouping; only attention's row order differs.
            #expect(worst < 1e-3, "position \(i): max difference \(worst)")
        }
    }

    @Test func truncatingAndReEvaluatingReproducesTheLogits() throws {
        let model = try TestModel.transformer(context: 64)
        let first = try model.evaluate(Self.prompt)
        #expect(model.position == Self.prompt.count)
        model.truncate(to: 4)
        let again = try model.evaluate(Array(Self.prompt[4...]))
        #expect(first == again)
    }

    @Test func contextOverflowThrowsBeforeAnyWork() throws {
        let model = try TestModel.transformer(context: 8)
        #expect(throws: TransformerError.contextOverflow(needed: 11, capacity: 8)) {
            try model.evaluate(Self.prompt)
        }
        #expect(model.position == 0)
    }

    @Test func tokensOutsideTheVocabularyAreRejected() throws {
        let model = try TestModel.transformer(context: 8)
        #expect(throws: TransformerError.invalidToken(49152, vocabularySize: 49152)) {
            try model.evaluate([1, 49152])
        }
        #expect(throws: TransformerError.invalidToken(-1, vocabularySize: 49152)) {
            try model.evaluate([-1])
        }
        #expect(model.position == 0)
    }

    @Test func cancellationStopsGeneration() async throws {
        let model = try TestModel.transformer(context: 256)
        let task = Task {
            var sampler = Sampler(.greedy)
            var count = 0
            return try model.generate(prompt: Self.prompt, maximumTokens: 200, sampler: &sampler, stopTokens: []) { _ in
                count += 1
                if count == 3 { withUnsafeCurrentTask { $0?.cancel() } }
                return true
            }
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        // The cache holds the prompt and the two tokens fed back before cancellation; the third,
        // sampled when cancellation arrived, is never evaluated.
        #expect(model.position == Self.prompt.count + 2)
    }

    @Test func greedyGenerationIsDeterministic() throws {
        func run() throws -> [Int] {
            let model = try TestModel.transformer(context: 64)
            var sampler = Sampler(.greedy)
            var tokens: [Int] = []
            try model.generate(prompt: Self.prompt, maximumTokens: 12, sampler: &sampler, stopTokens: []) {
                tokens.append($0); return true
            }
            return tokens
        }
        #expect(try run() == run())
    }
}
