import Foundation
import Pocket

/// `pocket respond`: one turn of a `LanguageModelSession`, as an app would run it.
///
/// Text responses print as they stream (with `--stream`) or at the end. With `--schema`, the
/// response is JSON constrained to the schema; `--stream` then prints one line per snapshot
/// (the partial value as JSON), the last line being the complete value.
enum RespondCommand {
    static let valueOptions: Set<String> = ["model", "context", "instructions", "schema", "tokens", "temperature", "top-k", "top-p", "seed", "repeat-penalty", "repeat-last-n", "presence-penalty", "frequency-penalty"]
    static let switches: Set<String> = ["stream", "greedy"]

    static func run(_ argv: ArraySlice<String>) async throws {
        do {
            try await respond(argv)
        } catch let error as LanguageModelError {
            let what = error.errorDescription ?? ""
            guard case .contextSizeExceeded = error else { throw CLIError.failure(what) }
            throw CLIError.failure((what.hasSuffix(".") ? what : what + ".") + " Raise --context or lower -n.")
        } catch let error as LanguageModelSession.GenerationError {
            throw CLIError.failure(error.description)
        } catch let error as SystemLanguageModel.Error {
            throw CLIError.failure(error.errorDescription ?? error.debugDescription)
        } catch let error as LanguageModelSession.Error {
            throw CLIError.failure(error.errorDescription ?? error.debugDescription)
        }
    }

    private static func respond(_ argv: ArraySlice<String>) async throws {
        let arguments = try Arguments(argv, valueOptions: valueOptions, switches: switches, aliases: ["n": "tokens"])
        guard arguments.positionals.count == 1, let prompt = arguments.positionals.first else {
            throw CLIError.usage("respond takes exactly one PROMPT argument (quote it)")
        }
        let options = try generationOptions(arguments)
        let schema = try arguments.string("schema").map(loadSchema(atPath:))
        let url = try ModelLocator.locate(arguments.string("model"))
        let context = try arguments.integer("context", default: 4096, in: 16...(1 << 20))
        let model = try SystemLanguageModel(contentsOf: url, contextSize: context)
        let session = arguments.string("instructions").map { LanguageModelSession(model: model, instructions: $0) }
            ?? LanguageModelSession(model: model)
        let stream = arguments.has("stream")

        let usage: LanguageModelSession.Usage
        switch (schema, stream) {
        case (nil, false):
            let response = try await session.respond(to: prompt, options: options)
            Log.output(response.content + "\n")
            usage = response.usage
        case (nil, true):
            let responses = session.streamResponse(to: prompt, options: options)
            var printed = ""
            for try await snapshot in responses {
                // Snapshots carry the whole text so far; print what is new.
                let text = snapshot.content
                Log.output(text.hasPrefix(printed) ? String(text.dropFirst(printed.count)) : "\n" + text)
                printed = text
            }
            Log.output("\n")
            usage = try await responses.collect().usage
        case (let schema?, false):
            let response = try await session.respond(to: prompt, schema: schema, options: options)
            Log.output(response.content.jsonString + "\n")
            usage = response.usage
        case (let schema?, true):
            let responses = session.streamResponse(to: prompt, schema: schema, options: options)
            var last = ""
            for try await snapshot in responses where snapshot.rawContent.jsonString != last {
                last = snapshot.rawContent.jsonString
                Log.output(last + "\n")
            }
            usage = try await responses.collect().usage
        }
        Log.info("pocket: \(usage)")
    }

    /// `--greedy`, or `--temperature` with `--top-k` or `--top-p`, and `--seed`; `-n` caps the length.
    static func generationOptions(_ arguments: Arguments) throws(CLIError) -> GenerationOptions {
        var options = GenerationOptions(maximumResponseTokens: try arguments.integer("tokens", default: 512, in: 1...(1 << 20)))
        // Given penalties replace the session defaults (GenerationOptions' documentation).
        let p = try SamplingOptions.penalties(arguments)
        options.repetitionPenalty = p.repeat.map(Double.init)
        options.penaltyWindow = p.window
        options.presencePenalty = p.presence.map(Double.init)
        options.frequencyPenalty = p.frequency.map(Double.init)
        let seed = try arguments.string("seed").map { (text) throws(CLIError) -> UInt64 in
            guard let value = UInt64(text) else { throw .usage("--seed takes a non-negative integer, got '\(text)'") }
            return value
        }
        if arguments.has("greedy") {
            if ["temperature", "top-k", "top-p"].contains(where: { arguments.string($0) != nil }) {
                throw .usage("--greedy cannot be combined with --temperature, --top-k or --top-p")
            }
            options.samplingMode = .greedy
            return options
        }
        if arguments.string("top-k") != nil && arguments.string("top-p") != nil {
            throw .usage("--top-k and --top-p are alternatives here (Apple's sampling modes); give one")
        }
        if arguments.string("top-k") != nil {
            options.samplingMode = .random(top: try arguments.integer("top-k", default: 40, in: 1...1_000_000), seed: seed)
        } else if arguments.string("top-p") != nil {
            options.samplingMode = .random(probabilityThreshold: Double(try arguments.float("top-p", default: 0.95, in: 0...1)), seed: seed)
        } else if let seed {
            options.samplingMode = .random(probabilityThreshold: 0.95, seed: seed)
        }
        if arguments.string("temperature") != nil {
            options.temperature = Double(try arguments.float("temperature", default: 0.8, in: 0...100))
        }
        return options
    }

    /// Reads a JSON Schema file as a `GenerationSchema`.
    static func loadSchema(atPath path: String) throws -> GenerationSchema {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw CLIError.failure("cannot read the schema file \(path): \(error.localizedDescription)")
        }
        do {
            return try JSONDecoder().decode(GenerationSchema.self, from: data)
        } catch {
            throw CLIError.failure("the schema in \(path) cannot be used: \(error)")
        }
    }
}
