import Foundation
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

    /// Generates a value of the grammar after `prompt`, streaming text to `output`.
    static func generate(
        model: LoadedModel, prompt: [Int], grammar: CompiledGrammar, sampling: SamplingParameters,
        penalty: RepetitionPenalty = .off, maximumTokens: Int, output: (String) -> Void
    ) throws -> (tokens: Int, complete: Bool) {
        let vocabulary = vocabulary(model.tokenizer)
        var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        var sampler = ConstrainedSampler(.init(
            temperature: sampling.isGreedy ? 0 : sampling.temperature, topK: sampling.topK, topP: sampling.topP,
            seed: sampling.seed))
        var detokenizer = StreamingDetokenizer(tokenizer: model.tokenizer)
        var logits = try model.transformer.evaluate(prompt)
        var count = 0
        var generated: [Int] = []
        while count < maximumTokens {
            try Task.checkCancellation()
            let token = logits.withUnsafeMutableBufferPointer {
                penalty.apply(to: $0, recent: generated, exempt: vocabulary.endOfGeneration)
                return sampler.sample(logits: $0, matcher: &matcher)
            }
            generated.append(token)
            count += 1
            if vocabulary.endOfGeneration.contains(token) { break }
            output(detokenizer.append(token))
            if matcher.isComplete || model.transformer.position >= model.transformer.contextLength { break }
            logits = try model.transformer.evaluate([token])
        }
        output(detokenizer.finish())
        return (count, matcher.canEnd)
    }
}
