import Foundation
import PocketTokenizer
import PocketTransformer

/// `pocket chat`: an interactive conversation with the model's chat template.
///
/// The KV cache holds the conversation so far. Each turn appends only the new tokens: the
/// rendered conversation is compared with the tokens already in the cache and evaluation
/// resumes after the common prefix. The model's own replies are kept in the cache exactly as
/// generated, so a reply whose re-tokenization would differ never invalidates the cache.
enum ChatCommand {
    static func run(_ argv: ArraySlice<String>) throws {
        let arguments = try Arguments(
            argv, valueOptions: LoadedModel.valueOptions.union(SamplingOptions.valueOptions).union(["system", "tokens"]),
            switches: SamplingOptions.switches, aliases: ["n": "tokens"])
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("chat reads the conversation from standard input; unexpected '\(arguments.positionals[0])'")
        }
        let maximumTokens = try arguments.integer("tokens", default: 512, in: 1...(1 << 20))
        var sampler = Sampler(try SamplingOptions.parameters(arguments))
        let model = try LoadedModel(arguments)
        let template = ChatTemplate(gguf: model.file)
        if let warning = template.warning { Log.info("pocket: \(warning)") }
        let tokenizer = model.tokenizer, transformer = model.transformer

        var messages: [ChatMessage] = []
        if let system = arguments.string("system") { messages.append(ChatMessage(role: .system, content: system)) }
        var cached: [Int] = []   // the tokens in the KV cache, in order
        let interactive = isatty(STDIN_FILENO) != 0
        while true {
            if interactive { Log.info("> ", newline: false) }
            guard let line = readLine(), !line.isEmpty else { break }
            messages.append(ChatMessage(role: .user, content: line))
            let conversation = template.encode(messages, addGenerationPrompt: true, with: tokenizer)
            let reused = zip(cached, conversation).prefix { $0 == $1 }.count
            transformer.truncate(to: reused)
            cached.removeSubrange(reused...)
            let newTokens = Array(conversation[reused...])
            guard transformer.position + newTokens.count < transformer.contextLength else {
                Log.error("the conversation no longer fits in the context (\(transformer.contextLength) tokens); start a new chat")
                break
            }
            cached += newTokens
            var detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
            var reply: [Int] = []
            let statistics = try transformer.generate(
                prompt: newTokens, maximumTokens: min(maximumTokens, transformer.contextLength - transformer.position),
                sampler: &sampler, stopTokens: tokenizer.endOfGenerationTokens
            ) { token in
                reply.append(token)
                Log.output(detokenizer.append(token))
                return true
            }
            Log.output(detokenizer.finish() + "\n")
            // Every sampled token but the last was fed back into the cache.
            cached += reply.dropLast(statistics.stopReason == .endOfGeneration ? 0 : 1)
            messages.append(ChatMessage(role: .assistant, content: tokenizer.decode(reply)))
            Log.info("pocket: \(statistics), \(reused) cached tokens reused")
        }
    }
}
