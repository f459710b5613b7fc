import Foundation
import Pocket
import PocketGrammar
import PocketTokenizer
import PocketTransformer

/// Loading JSON Schemas and running grammar-constrained generation for the CLI.
enum StructuredGeneration {
    /// Reads and compiles a JSON Schema file; a schema the engine cannot enforce is an error.
    static func grammar(atPath path: String) throws -> CompiledGrammar {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.failure("cannot read schema file \(path)")
        }
        do {
            return try CompiledGrammar(JSONSchemaImport.schema(from: data))
        } catch {
            throw CLIError.failure("schema \(path): \(error)")
        }
    }

    /// The model's vocabulary as the grammar sees it: special tokens never appear in values.
    static func vocabulary(_ tokenizer: Tokenizer) -> Vocabulary {
        Vocabulary(
            tokens: (0..<tokenizer.vocabularySize).map { tokenizer.isSpecial($0) ? [] : tokenizer.bytes(of: $0) },
            endOfGeneration: tokenizer.endOfGenerationTokens)
    }

    /// Generates a value of the grammar after `prompt`, streaming text to `output`. Text the
    /// grammar leaves no choice about is evaluated with the token before it, without sampling
    /// (``ConstrainedDecoding/acceptForcedTokens(tokenizer:limit:)``).
    static func generate(
        model: LoadedModel, prompt: [Int], grammar: CompiledGrammar, sampling: SamplingParameters,
        penalty: RepetitionPenalty = .off, maximumTokens: Int, output: (String) -> Void
    ) throws -> (tokens: Int, complete: Bool) {
        let vocabulary = vocabulary(model.tokenizer)
        var decoding = ConstrainedDecoding(grammar: grammar, vocabulary: vocabulary, sampling: sampling)
        var detokenizer = StreamingDetokenizer(tokenizer: model.tokenizer)
        let started = ContinuousClock.now
        var written = 0  // tokens of the value so far, forced ones included
        let logits = try model.transformer.evaluate(prompt)
        let statistics = try model.transformer.decode(
            from: logits, startedAt: started, maximumTokens: maximumTokens, stopTokens: vocabulary.endOfGeneration,
            penalty: penalty,
            choose: { logits, _ in decoding.next(UnsafeBufferPointer(logits)) },
            next: { token in
                output(detokenizer.append(token))
                if decoding.isComplete { return .stop(.stoppedByCaller) }
                written += 1
                let forced = decoding.acceptForcedTokens(tokenizer: model.tokenizer, limit: maximumTokens - written)
                for token in forced { output(detokenizer.append(token)) }
                written += forced.count
                return .feed([token] + forced)
            })
        output(detokenizer.finish())
        return (statistics.generatedTokens, decoding.canEnd)
    }
}
