import Foundation
@testable import Pocket
import Testing

// Dynamic profiles on a real model (SmolLM2): instructions that follow a session property,
// a model switch, hooks, history transforms, and the engine's prefix cache across them.

/// Qwen2.5-Coder-0.5B, the second real model (for switching models), if installed.
let qwenURL: URL = smolLM2URL.deletingLastPathComponent().appendingPathComponent("Qwen2.5-Coder-0.5B-Instruct.gguf")

/// A profile whose last instruction follows the `tone` session property, on `model`.
struct TonedProfile: LanguageModelSession.DynamicProfile {
    let model: SystemLanguageModel
    var other: SystemLanguageModel?
    @SessionProperty(\.tone) var tone
    @SessionProperty(\.usesSecondModel) var usesSecondModel

    var body: some LanguageModelSession.DynamicProfile {
        Profile {
            Instructions("You are a helpful assistant. Answer in one short sentence.")
            Instructions("Keep a \(tone) tone.")
        }
        .temperature(tone == "wild" ? 0.9 : 0.0)
        .model(usesSecondModel ? (other ?? model) : model)
    }
}

@Suite(.serialized) struct ProfileModelTests {
    /// The text of the instructions entry the transcript starts with.
    private func instructionsText(_ transcript: Transcript) -> String? {
        guard case .instructions(let entry) = transcript.first, case .text(let text) = entry.segments.first else { return nil }
        return text.content
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func aChangedPropertyReachesTheNextRequestAndTheCacheKeepsTheUnchangedPrefix() async throws {
        let model = try #require(smolLM2Model)
        let session = LanguageModelSession(profile: TonedProfile(model: model))
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 8)

        let first = try await session.respond(to: "Name a colour.", options: options)
        #expect(instructionsText(session.transcript)?.hasSuffix("Keep a calm tone.") == true)
        // Same instructions: the whole previous conversation comes from the cache.
        let second = try await session.respond(to: "Name a fruit.", options: options)
        #expect(second.usage.input.cachedTokenCount >= first.usage.input.totalTokenCount)

        session.properties.tone = "wild"
        let third = try await session.respond(to: "Name an animal.", options: GenerationOptions(maximumResponseTokens: 8))
        #expect(instructionsText(session.transcript)?.hasSuffix("Keep a wild tone.") == true)
        // The instructions changed near their end: only the prefix before the change is reused.
        #expect(third.usage.input.cachedTokenCount > 0)
        #expect(third.usage.input.cachedTokenCount < second.usage.input.cachedTokenCount)
        // The profile's temperature was recorded with the request that used it.
        guard case .prompt(let prompt) = third.transcriptEntries.first else {
            Issue.record("the request's first entry is not its prompt")
            return
        }
        #expect(prompt.options.temperature == 0.9)
        #expect(session.transcript.count == 7)
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func prewarmWarmsWhatTheProfileWouldSendNow() async throws {
        let model = try #require(smolLM2Model)
        // The profile switches to its second model after the session is made: that model (not
        // the session's `model`) is the one to warm, with the instructions as they are now.
        let other = try SystemLanguageModel(contentsOf: smolLM2URL, contextSize: 1024)
        let session = LanguageModelSession(profile: TonedProfile(model: model, other: other))
        session.properties.tone = "patient"
        session.properties.usesSecondModel = true
        session.prewarm()
        let response = try await session.respond(to: "Hi.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 2))
        // The instructions, evaluated with the property's new value, were already cached.
        #expect(response.usage.input.cachedTokenCount > 10)
        #expect(instructionsText(session.transcript)?.hasSuffix("Keep a patient tone.") == true)
        #expect(session.executorBoxes.count == 1)
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func switchingModelsKeepsEachModelsCache() async throws {
        let model = try #require(smolLM2Model)
        // A second SmolLM2 with another context size is another executor (and cache); Qwen, when
        // installed, is another model altogether.
        let other = FileManager.default.fileExists(atPath: qwenURL.path)
            ? try SystemLanguageModel(contentsOf: qwenURL, contextSize: 2048)
            : try SystemLanguageModel(contentsOf: smolLM2URL, contextSize: 2048)
        let session = LanguageModelSession(profile: TonedProfile(model: model, other: other))
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6)

        let first = try await session.respond(to: "Say hello.", options: options)
        session.properties.usesSecondModel = true
        let second = try await session.respond(to: "Say goodbye.", options: options)
        // The other model has read nothing yet.
        #expect(second.usage.input.cachedTokenCount == 0)
        session.properties.usesSecondModel = false
        let third = try await session.respond(to: "Say thanks.", options: options)
        // Back on the first model, what it read for the first request is still cached.
        #expect(third.usage.input.cachedTokenCount >= first.usage.input.totalTokenCount - 1)
        #expect(session.executorBoxes.count == 2)
        #expect(session.transcript.count == 7)
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func hooksRunAndTheHistoryTransformShortensWhatTheModelReads() async throws {
        let model = try #require(smolLM2Model)
        let log = HookLog()
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 6)
        let session = LanguageModelSession(profile: LanguageModelSession.Profile { Instructions("Answer briefly.") }
            .historyTransform { _ in [] }
            .onResponse { log.add("response") }
            .model(model))
        let plain = LanguageModelSession(model: model, instructions: "Answer briefly.")

        for prompt in ["Name a colour.", "Name a fruit.", "Name a tree."] {
            _ = try await session.respond(to: prompt, options: options)
            _ = try await plain.respond(to: prompt, options: options)
        }
        let forgetful = try await session.respond(to: "Name a bird.", options: options)
        let remembering = try await plain.respond(to: "Name a bird.", options: options)
        #expect(log.all.count == 4)
        // Without its history the request reads only the instructions and the prompt.
        #expect(forgetful.usage.input.totalTokenCount < remembering.usage.input.totalTokenCount)
        #expect(session.transcript.count == plain.transcript.count)
    }
}
