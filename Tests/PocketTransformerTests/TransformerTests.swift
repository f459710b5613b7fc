import Foundation
import Testing
import PocketTransformer

/// Behaviour of the forward pass and KV cache on the small test model, SmolLM2.
@Suite(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"), .serialized)
struct TransformerTests {
    static let prompt = [19556, 28, 905, 17, 1073, 359, 346, 1834, 47, 339, 5248]

    @Test func configurationIsReadFromMetadata() throws {
        let model = try TestModel.transformer()
        let c = model.configuration
        // Values from the model card of SmolLM2-135M (independent of our reader).
        #expect(c.architecture == .llama)
        #expect(c.layerCount == 30 && c.embeddingLength == 576 && c.feedForwardLength == 1536)
        #expect(c.headCount == 9 && c.keyValueHeadCount == 3 && c.headDimension == 64)
        #expect(c.vocabularySize == 49152)
    }

    @Test func promptLogitsDoNotDependOnTheBatchSize() throws {
        func logits(batchSize: Int) throws -> [[Float]] {
            let model = try TestModel.transformer(context: 64, batchSize: batchSize)
            var all: [[Float]] = []
            try model.evaluate(Self.prompt, logits: .all) { _, logits in all.append(Array(logits)) }
            return all
        }
        // Every token's computation is independent of how the prompt is split into batches.
        #expect(try logits(batchSize: 64) == logits(batchSize: 3))
    }

    @Test func decodingOneTokenAtATimeAgreesWithThePrompt() throws {
        let prompt = try TestModel.transformer(context: 64)
        var all: [[Float]] = []
        try prompt.evaluate(Self.prompt, logits: .all) { _, logits in all.append(Array(logits)) }
        let decode = try TestModel.transformer(context: 64)
        var agreeing = 0
        for (i, token) in Self.prompt.enumerated() {
            let logits = try decode.evaluate([token])
            // Decoding keeps attention sums in single precision, a prompt in half precision
            // (both as llama.cpp does); the next-token choice must still agree nearly always
            // and the logits stay close.
            let worst = zip(logits, all[i]).map { abs($0 - $1) }.max()!
            #expect(worst < 2, "position \(i): max logit difference \(worst)")
            if logits.withUnsafeBufferPointer(Sampler.argmax) == all[i].withUnsafeBufferPointer(Sampler.argmax) {
                agreeing += 1
            }
        }
        #expect(agreeing >= Self.prompt.count - 1, "argmax agrees at \(agreeing) of \(Self.prompt.count) positions")
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
