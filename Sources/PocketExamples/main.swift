// Runnable versions of the patterns in Apple's FoundationModels documentation, on Pocket's
// engine and the default model: `swift run -c release pocket-examples <name>`.
// The default model is Qwen2.5-Coder-0.5B-Instruct, small enough for any CPU: the point is the API and its guarantees (structured output
// always parses, tools are called with valid arguments), not the wisdom of the answers.
import Foundation
import Pocket

// First of all: a build of Pocket for a CPU this one is not refuses here, rather than crash
// later on an instruction the CPU lacks.
SystemLanguageModel.exitUnlessCPUSupported(messagePrefix: "pocket-examples: ")

let examples: [(name: String, summary: String, run: () async throws -> Void)] = [
    ("respond", "a single prompt, then a follow-up turn that reuses the session's cache", BasicRespond.run),
    ("cat-profile", "@Generable CatProfile with a range guide", CatProfileExample.run),
    ("itinerary", "stream a @Generable Itinerary as partially generated snapshots", ItineraryStreaming.run),
    ("weather-tool", "a tool that looks up local weather data", WeatherToolExample.run),
    ("stateful-tool", "a tool that remembers what it already returned", StatefulToolExample.run),
    ("riddle", "a riddle generated with a DynamicGenerationSchema built at run time", DynamicRiddle.run),
    ("context-overflow", "recover from exceededContextWindowSize by condensing the transcript", ContextOverflowRecovery.run),
    ("content-tagging", "the .contentTagging use case: tags for a text", ContentTaggingExample.run),
]

let requested = CommandLine.arguments.dropFirst().first
guard let requested, let example = examples.first(where: { $0.name == requested }) else {
    print("usage: pocket-examples <name>\n")
    for example in examples { print("  \(example.name.padding(toLength: 18, withPad: " ", startingAt: 0)) \(example.summary)") }
    exit(requested == nil ? 0 : 2)
}
guard SystemLanguageModel.default.isAvailable else {
    let reason = SystemLanguageModel.default.unavailableError.map { "\($0)" } ?? "\(SystemLanguageModel.default.availability)"
    FileHandle.standardError.write(Data("The model is unavailable: \(reason)\n".utf8))
    exit(1)
}
do {
    try await example.run()
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
