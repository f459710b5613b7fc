import Foundation
import Pocket
import Testing

/// ``SystemLanguageModel``: availability, metadata and limits.
@Suite struct LanguageModelSystemTests {
    @Test func missingFileIsModelNotReady() throws {
        #expect(throws: (any Error).self) {
            try SystemLanguageModel(contentsOf: URL(fileURLWithPath: "/nonexistent/model.gguf"))
        }
        let reason = SystemLanguageModel.Availability.UnavailableReason.modelNotReady
        #expect(reason.description.contains("Weights/fetch"))
    }

    @Test func optionsDefaultsAreExplicit() {
        let options = GenerationOptions()
        #expect(options.samplingMode == nil && options.temperature == nil && options.maximumResponseTokens == nil)
        #expect(GenerationOptions.SamplingMode.greedy == .greedy)
        #expect(GenerationOptions.SamplingMode.random(top: 5, seed: 1) != .random(top: 5, seed: 2))
    }

    @Test func generationErrorsCarryTheirContext() {
        let error = LanguageModelSession.GenerationError.concurrentRequests(.init(debugDescription: "busy"))
        #expect(error.context.debugDescription == "busy")
        #expect(error.errorDescription?.contains("busy") == true)
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func theSmallTestModelIsAvailable() throws {
        let model = try #require(smolLM2Model)
        #expect(model.isAvailable)
        #expect(model.availability == .available)
        #expect(model.contextSize == 4096)
        let large = try SystemLanguageModel(contentsOf: smolLM2URL, contextSize: 1 << 30)
        #expect(large.contextSize < 1 << 30)  // capped at the model's trained context
        #expect(model.useCase == .general)
    }

    @Test(.enabled(if: qwenIsInstalled, "Qwen2.5-Coder-0.5B-Instruct, the default model, is not installed (run Weights/fetch)"))
    func defaultLookupFindsTheCheckoutModel() {
        guard ProcessInfo.processInfo.environment["POCKET_MODEL"] == nil else { return }
        // The package's default model is Qwen; most tests use the faster SmolLM2 (`smolLM2URL`).
        #expect(SystemLanguageModel.default.url.standardizedFileURL.path == qwenModelURL.standardizedFileURL.path)
        #expect(SystemLanguageModel.default.isAvailable == qwenIsInstalled)
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func tokenCountsCoverEveryKindOfInput() async throws {
        let model = try #require(smolLM2Model)
        let short = try await model.tokenCount(for: Prompt("Hello"))
        let long = try await model.tokenCount(for: Prompt("Hello there, how are you today?"))
        #expect(short >= 1 && long > short)
        #expect(try await model.tokenCount(for: Instructions("Be brief.")) >= 2)
        let schema = try await model.tokenCount(for: Pet.generationSchema)
        #expect(schema > 10)
        let tools = try await model.tokenCount(for: [WeatherTool(overlap: Overlap())])
        #expect(tools > schema / 2)
        let prompt = Transcript.Entry.prompt(.init(segments: [.text(.init(content: "Hello"))]))
        let instructions = Transcript.Entry.instructions(.init(segments: [.text(.init(content: "Be brief."))], toolDefinitions: []))
        let one = try await model.tokenCount(for: [instructions])
        let two = try await model.tokenCount(for: [instructions, prompt])
        // The second entry adds its text and its chat markers.
        #expect(two >= one + short + 2)
    }
}

/// Compiles only if `.default` resolves where a session takes `any LanguageModel`.
func defaultModelSpelling() -> LanguageModelSession {
    LanguageModelSession(model: .default, instructions: "Hi")
}
