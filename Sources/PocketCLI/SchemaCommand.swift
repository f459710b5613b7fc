import Foundation
import PocketGGUF
import PocketGrammar
import PocketTokenizer

/// `pocket schema check --schema FILE.json [--model PATH]`: reads JSON documents, one per line,
/// from stdin; tokenizes each as plain text; steps the grammar token by token; prints
/// `accept`, `reject <token index> <byte offset>` or `incomplete` per line.
enum SchemaCommand {
    static func run(_ argv: ArraySlice<String>) throws {
        guard argv.first == "check" else { throw CLIError.usage("usage: pocket schema check --schema FILE.json [--model PATH]") }
        let arguments = try Arguments(argv.dropFirst(), valueOptions: ["schema", "model"], switches: [])
        guard let path = arguments.string("schema") else { throw CLIError.usage("schema check needs --schema FILE.json") }
        let grammar = try StructuredGeneration.grammar(atPath: path)
        let url = try ModelLocator.locate(arguments.string("model"))
        let tokenizer: Tokenizer
        do { tokenizer = try Tokenizer(gguf: GGUFFile(contentsOf: url)) } catch { throw CLIError.failure("\(error)") }
        let vocabulary = StructuredGeneration.vocabulary(tokenizer)
        var input = TextInput.Lines()
        while let line = try input.next() {
            let outcome = SchemaCheck.check(tokens: tokenizer.encode(line), grammar: grammar, vocabulary: vocabulary)
            print(outcome.description)
        }
    }
}
