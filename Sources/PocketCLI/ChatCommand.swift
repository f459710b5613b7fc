import Foundation
import PocketTokenizer
import PocketTransformer

/// `pocket chat`: an interactive conversation with the model's chat template.
///
/// The KV cache holds the conversation so far, and each turn evaluates only what is new: the
/// end of the model's previous reply, the user's message and the opening of the next reply.
/// The reply itself stays in the cache exactly as it was generated (never re-tokenized).
enum ChatCommand {
    static func run(_ argv: ArraySlice<String>) throws {
        let arguments = try Arguments(
            argv, valueOptions: LoadedModel.valueOptions.union(SamplingOptions.valueOptions).union(["system", "tokens"]),
            switches: SamplingOptions.switches.union(LoadedModel.switches), aliases: ["n": "tokens"])
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("chat reads the conversation from standard input; unexpected '\(arguments.positionals[0])'")
        }
        let maximumTokens = try arguments.integer("tokens", default: 512, in: 1...(1 << 20))
        var sampler = Sampler(try SamplingOptions.parameters(arguments))
        let model = try LoadedModel(arguments)
        let template = ChatTemplate(gguf: model.file)
        if let warning = template.warning { Log.info("pocket: \(warning)") }
        let tokenizer = model.tokenizer, transformer = model.transformer

        var system: [ChatMessage] = []
        if let text = arguments.string("system") { system.append(ChatMessage(role: .system, content: text)) }
        let interactive = isatty(STDIN_FILENO) != 0
        var turn = 0
        var input = TextInput.Lines()
        // A reply cut off by the token limit ends with a token that was sampled but not yet
        // evaluated; it goes in front of the next turn's tokens.
        var unevaluated: [Int] = []
        while true {
            if interactive { Log.info("> ", newline: false) }
            guard let line = try input.next(), !line.isEmpty else { break }
            let message = ChatMessage(role: .user, content: line)
            let newTokens = turn == 0
                ? template.encode(system + [message], addGenerationPrompt: true, with: tokenizer)
                : unevaluated + template.encode(
                    template.endOfReply + template.segments(for: message) + template.generationPrompt, with: tokenizer)
            let room = transformer.contextLength - transformer.position - newTokens.count
            guard room > 0 else {
                Log.error("the conversation no longer fits in the context (\(transformer.contextLength) tokens); start a new chat")
                break
            }
            var detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
            let reused = transformer.position
            let statistics = try transformer.generate(
                prompt: newTokens, maximumTokens: min(maximumTokens, room),
                sampler: &sampler, stopTokens: tokenizer.endOfGenerationTokens
            ) { token in
                unevaluated = [token]
                Log.output(detokenizer.append(token))
                return true
            }
            if statistics.stopReason == .endOfGeneration { unevaluated = [] }
            Log.output(detokenizer.finish() + "\n")
            Log.info("pocket: \(statistics); \(reused) tokens reused from the cache")
            turn += 1
        }
    }
}
