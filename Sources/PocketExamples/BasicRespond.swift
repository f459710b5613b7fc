import Pocket

/// A prompt, a response, and a follow-up in the same session.
enum BasicRespond {
    static func run() async throws {
        let session = LanguageModelSession(instructions: "You are a helpful assistant. Answer in one or two sentences.")
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 80)
        let first = try await session.respond(to: "What is a good name for a coffee shop?", options: options)
        print("> \(first.content)\n  [\(first.usage)]")
        // The second turn sees the first: only its new tokens are evaluated.
        let second = try await session.respond(to: "Make it shorter.", options: options)
        print("> \(second.content)\n  [\(second.usage)]")
        print("The transcript has \(session.transcript.count) entries.")
    }
}
