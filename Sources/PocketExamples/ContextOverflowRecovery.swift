import Pocket

/// A long conversation eventually exceeds the context window. The session throws
/// `LanguageModelError.contextSizeExceeded` (the transcript is unchanged), and the app continues in a new
/// session seeded with a condensed transcript: the instructions and the last exchange.
enum ContextOverflowRecovery {
    static func run() async throws {
        // A deliberately small window, so that the overflow comes quickly.
        let model = try SystemLanguageModel(contentsOf: SystemLanguageModel.default.url, contextSize: 384)
        var session = LanguageModelSession(model: model, instructions: "You are a storyteller. Continue the story.")
        let options = GenerationOptions(samplingMode: .random(probabilityThreshold: 0.9, seed: 7), maximumResponseTokens: 60)
        for turn in 1...8 {
            do {
                let response = try await session.respond(to: "Continue the story (part \(turn)).", options: options)
                print("turn \(turn): \(response.content.prefix(70))…")
            } catch LanguageModelError.contextSizeExceeded(let info) {
                print("turn \(turn): the context is full (\(info.tokenCount) of \(info.contextSize) tokens); condensing the transcript")
                session = LanguageModelSession(model: model, transcript: condensed(session.transcript))
                let response = try await session.respond(to: "Continue the story (part \(turn)).", options: options)
                print("turn \(turn), new session: \(response.content.prefix(70))…")
            }
        }
    }

    /// The first entry (the instructions) and the last response.
    static func condensed(_ transcript: Transcript) -> Transcript {
        let entries = Array(transcript)
        var kept = Array(entries.prefix(1))
        if let last = entries.last(where: { if case .response = $0 { return true } else { return false } }) {
            kept.append(last)
        }
        return Transcript(entries: kept)
    }
}
