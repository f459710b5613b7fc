import Foundation
import PocketKernels

// `pocket`: command-line front end. Results go to stdout; logs, progress and errors to stderr.

// First of all: a build for a CPU this one is not refuses here, rather than crash later on an
// instruction the CPU lacks.
CPUFeatures.exitUnlessSupported(messagePrefix: "pocket: error: ")

let usage = """
    usage: pocket <command> [options]

    commands:
      generate    [--model PATH] [-n N] [--greedy | --temperature T --top-k K --top-p P]
                  [--seed S] [penalties] [--threads N] [--context N] [--llama-order] [--schema FILE.json] PROMPT
                  Continue PROMPT verbatim (special tokens parsed, no chat template);
                  with --schema, the output is JSON constrained to the schema;
                  --llama-order computes in llama.cpp's order of operations, to reproduce
                  its outputs exactly (several times slower; also for chat, perplexity).
      chat        [--model PATH] [--system TEXT] [-n N] [sampling options] [--threads N]
                  Interactive multi-turn chat with the model's chat template.
      tokenize    [--model PATH] [--special] TEXT
                  Print the token ids of TEXT as a JSON array.
      perplexity  [--model PATH] -f FILE [-c 512] [--threads N] [--llama-order]
                  Perplexity of a text file (llama.cpp protocol); last line `PPL = <value>`.
      info        [--model PATH]
                  Architecture, sizes, metadata and tensor table.
      quantize    IN.gguf OUT.gguf --type q2_k|q3_k|q4_k|q6_k|q4_0|q4_1|q5_0|q8_0|iq3_xxs|iq3_s|iq4_xs|iq4_nl|…
                  [--pure | --bpw B] [--calibration FILE | --no-calibration] [--threads N]
                  Re-encode a model (any input type Pocket reads); prints a per-tensor table
                  (type, bytes, RMS error vs input). --pure: every matrix at the type, no
                  higher-precision embedding/output/attention exceptions (docs/quantization.md).
                  --bpw B: types chosen to fit B bits per weight where the measured error
                  drops most (the i-quant ladder for iq* types).
      respond     [--model PATH] [--instructions TEXT] [--schema FILE.json] [--stream]
                  [-n N] [--greedy | --temperature T --top-k K | --top-p P] [--seed S]
                  [penalties] PROMPT
                  One turn of a LanguageModelSession (chat template, instructions);
                  with --schema, JSON constrained to the schema; --stream prints text as it
                  comes (with --schema: one JSON snapshot per line, the last one complete).
      schema check --schema FILE.json [--model PATH]
                  Check JSON documents (one per line on stdin) token by token against
                  the schema: accept, reject <token> <byte>, or incomplete.

    penalties (llama.cpp's): --repeat-penalty R (1: off) --repeat-last-n N --presence-penalty P
    --frequency-penalty F, over the last N generated tokens. generate: off unless given;
    respond: the session defaults (repeat 1.1 over 64 tokens) unless given.

    --model defaults to $POCKET_MODEL, then Weights/Qwen2.5-Coder-0.5B-Instruct.gguf.
    """

let commands: [String: (ArraySlice<String>) throws -> Void] = [
    "generate": GenerateCommand.run,
    "chat": ChatCommand.run,
    "tokenize": TokenizeCommand.run,
    "perplexity": PerplexityCommand.run,
    "info": InfoCommand.run,
    "quantize": QuantizeCommand.run,
    "schema": SchemaCommand.run,
]

/// Reports a command's error on stderr and exits with its status (2 for usage and input errors).
func fail(with error: any Error) -> Never {
    if let error = error as? CLIError {
        Log.error(error.description)
        if case .usage = error { Log.info(usage) }
        exit(error.exitStatus)
    }
    Log.error(readableDescription(of: error))
    exit(1)
}

/// The message of an error as a user should read it: a `LocalizedError`'s description and
/// recovery suggestion, or the error's `description`; never a debug dump of an enum case.
func readableDescription(of error: any Error) -> String {
    if let error = error as? any LocalizedError, let description = error.errorDescription {
        guard let suggestion = error.recoverySuggestion else { return description }
        return (description.hasSuffix(".") ? description : description + ".") + " " + suggestion
    }
    return String(describing: error)
}

let arguments: ArraySlice<String>
do { arguments = try TextInput.arguments()[...] } catch { fail(with: error) }
guard let name = arguments.first, name != "-h", name != "--help", name != "help" else {
    print(usage)
    exit(arguments.isEmpty ? 2 : 0)
}

do {
    if name == "respond" {
        // The one command built on the async session API.
        try await RespondCommand.run(arguments.dropFirst())
    } else if let command = commands[name] {
        try command(arguments.dropFirst())
    } else {
        Log.error("unknown command '\(name)'\n\n\(usage)")
        exit(2)
    }
} catch {
    fail(with: error)
}
