import PocketGGUF
import PocketTokenizer

/// `pocket tokenize`: prints the ids of a text as a JSON array.
enum TokenizeCommand {
    static func run(_ argv: ArraySlice<String>) throws {
        let arguments = try Arguments(argv, valueOptions: ["model"], switches: ["special"])
        guard arguments.positionals.count == 1, let text = arguments.positionals.first else {
            throw CLIError.usage("tokenize takes exactly one TEXT argument (quote it)")
        }
        let url = try ModelLocator.locate(arguments.string("model"))
        let tokenizer: Tokenizer
        do {
            tokenizer = try Tokenizer(gguf: GGUFFile(contentsOf: url))
        } catch {
            throw CLIError.failure("cannot load the tokenizer of \(url.path): \(error)")
        }
        // With BOS first when the model asks for it, as llama-tokenize prints by default.
        let ids = tokenizer.startingSequence(tokenizer.encode(text, parseSpecial: arguments.has("special")))
        print("[" + ids.map(String.init).joined(separator: ", ") + "]")
    }
}
