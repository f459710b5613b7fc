import Foundation
import PocketTokenizer
import PocketTransformer

/// `pocket generate`: continues a raw prompt, streaming the generated text to stdout.
enum GenerateCommand {
    static func run(_ argv: ArraySlice<String>) throws {
        let arguments = try Arguments(
            argv, valueOptions: LoadedModel.valueOptions.union(SamplingOptions.valueOptions).union(SamplingOptions.penaltyOptions)
                .union(["tokens", "schema"]),
            switches: SamplingOptions.switches.union(LoadedModel.switches), aliases: ["n": "tokens"])
        guard arguments.positionals.count == 1, let prompt = arguments.positionals.first else {
            throw CLIError.usage("generate takes exactly one PROMPT argument (quote it)")
        }
        let maximumTokens = try arguments.integer("tokens", default: 128, in: 1...(1 << 20))
        let sampling = try SamplingOptions.parameters(arguments)
        var sampler = Sampler(sampling)
        // Off unless asked, as in llama.cpp: `generate` continues text verbatim.
        let p = try SamplingOptions.penalties(arguments)
        let penalty = RepetitionPenalty(repetition: p.repeat ?? 1, frequency: p.frequency ?? 0, presence: p.presence ?? 0, window: p.window ?? 64)
        let grammar = try arguments.string("schema").map(StructuredGeneration.grammar(atPath:))
        let model = try LoadedModel(arguments)
        // BOS first when the model asks for it (Gemma), as llama.cpp's tools tokenize prompts.
        let tokens = model.tokenizer.startingSequence(model.tokenizer.encode(prompt, parseSpecial: true))
        guard !tokens.isEmpty else { throw CLIError.usage("the prompt is empty") }
        let budget = model.transformer.contextLength - tokens.count
        guard budget > 0 else {
            throw CLIError.failure(
                "the prompt has \(tokens.count) tokens; the context holds \(model.transformer.contextLength) (use --context)")
        }
        if let grammar {
            let (count, complete) = try StructuredGeneration.generate(
                model: model, prompt: tokens, grammar: grammar, sampling: sampling, penalty: penalty,
                maximumTokens: min(maximumTokens, budget), output: Log.output)
            Log.output("\n")
            guard complete else {
                throw CLIError.failure("the output is incomplete after \(count) tokens (raise -n or --context)")
            }
            return
        }
        var detokenizer = StreamingDetokenizer(tokenizer: model.tokenizer)
        let statistics = try model.transformer.generate(
            prompt: tokens, maximumTokens: min(maximumTokens, budget), sampler: &sampler,
            stopTokens: model.tokenizer.endOfGenerationTokens, penalty: penalty
        ) { token in
            Log.output(detokenizer.append(token))
            return true
        }
        Log.output(detokenizer.finish() + "\n")
        Log.info("pocket: \(statistics)")
        // Say why generation stopped; a context window that cut the text short exits with 3.
        let contextLength = model.transformer.contextLength
        switch statistics.stopReason {
        case .endOfGeneration:
            Log.info("pocket: stopped at an end-of-generation token")
        case .maximumTokens where maximumTokens <= budget, .stoppedByCaller:
            Log.info("pocket: stopped after \(statistics.generatedTokens) tokens (-n \(maximumTokens))")
        case .maximumTokens, .contextFull:
            Log.info("pocket: stopped: context window full at \(contextLength) tokens "
                + "(prompt \(tokens.count) + \(statistics.generatedTokens) generated; -n \(maximumTokens) asked; raise --context)")
            exit(contextFullStatus)
        }
    }

    /// Exit status when the context window, not `-n` or the model, ended the text.
    static let contextFullStatus: Int32 = 3
}
