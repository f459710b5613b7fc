import Foundation
import PocketTransformer

/// `pocket perplexity`: llama.cpp's perplexity protocol on a text file.
enum PerplexityCommand {
    static func run(_ argv: ArraySlice<String>) throws {
        let arguments = try Arguments(
            argv, valueOptions: LoadedModel.valueOptions.union(["file", "chunk"]), switches: LoadedModel.switches,
            aliases: ["f": "file", "c": "chunk"])
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("unexpected argument '\(arguments.positionals[0])'")
        }
        guard let path = arguments.string("file") else { throw CLIError.usage("perplexity needs -f FILE") }
        let chunk = try arguments.integer("chunk", default: 512, in: 4...(1 << 20))
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CLIError.failure("cannot read \(path)")
        }
        let text = String(decoding: data, as: UTF8.self)
        let model = try LoadedModel(arguments, defaultContext: chunk)
        // llama-perplexity's protocol for a model that expects BOS: BOS before the text, and BOS
        // in place of every chunk's first token.
        let tokens = model.tokenizer.startingSequence(model.tokenizer.encode(text, parseSpecial: false))
        let bos = model.tokenizer.addsBOS ? model.tokenizer.bosToken : nil
        let chunks = tokens.count / chunk
        Log.info("pocket: \(tokens.count) tokens, \(chunks) chunks of \(chunk)")
        let started = ContinuousClock.now
        let result: PerplexityResult
        do {
            result = try model.transformer.perplexity(of: tokens, chunkLength: chunk, beginningOfSequence: bos) { index, running in
                Log.info(String(format: "[%d/%d] running PPL = %.4f", index + 1, chunks, running))
            }
        } catch {
            throw CLIError.failure("\(error)")
        }
        let seconds = (ContinuousClock.now - started).seconds
        Log.info(String(format: "pocket: %d chunks, %d scored tokens, %.1f s (%.1f tokens/s)",
                        result.chunks, result.scoredTokens, seconds, Double(chunks * chunk) / seconds))
        print(String(format: "PPL = %.4f", result.perplexity))
    }
}
