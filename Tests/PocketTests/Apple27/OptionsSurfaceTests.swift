import Foundation
@testable import Pocket
import Synchronization
import Testing

// Apple's FoundationModels 27 options and usage, spelled as Apple's documentation writes them:
// `GenerationOptions(samplingMode:…)`, `SamplingMode.kind`, `ToolCallingMode`,
// `ContextOptions(includeSchemaInPrompt:reasoningLevel:)`, `respond(…contextOptions:metadata:)`,
// `LanguageModelSession.Usage` on responses, snapshots and the session, and the executor
// channel's reasoning events.

/// What the last request of a ``ReasoningModel`` carried.
private let lastReasoningRequest = Mutex<LanguageModelExecutorGenerationRequest?>(nil)

/// A provider that declares `.reasoning` (or not): it reasons, signs its reasoning, answers,
/// and reports usage with the reasoning's share.
struct ReasoningModel: LanguageModel {
    typealias Executor = ReasoningModelExecutor

    /// Whether the model declares the reasoning capability.
    var reasons = true

    var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities(capabilities: reasons ? [.reasoning, .toolCalling] : [])
    }

    var executorConfiguration: Executor.Configuration { Executor.Configuration() }
}

struct ReasoningModelExecutor: LanguageModelExecutor {
    typealias Model = ReasoningModel

    struct Configuration: Hashable, Sendable {}

    init(configuration: Configuration) throws {}

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: ReasoningModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        lastReasoningRequest.withLock { $0 = request }
        let input = LanguageModelExecutorGenerationChannel.Usage.Input(totalTokenCount: 20, cachedTokenCount: 5)
        await channel.send(.reasoning(action: .appendText("The user greets me.", tokenCount: 4)))
        await channel.send(.reasoning(action: .appendText(" I greet back.", tokenCount: 3)))
        await channel.send(.reasoning(action: .updateSignature(Data([1, 2, 3]), tokenCount: 1)))
        await channel.send(.reasoning(action: .updateUsage(
            input: input, output: .init(totalTokenCount: 8, reasoningTokenCount: 8))))
        await channel.send(.response(action: .appendText("Hello", tokenCount: 1)))
        await channel.send(.response(action: .appendText(" there.", tokenCount: 2)))
        await channel.send(.response(action: .updateUsage(
            input: input, output: .init(totalTokenCount: 11, reasoningTokenCount: 8), metadata: ["provider": "test"])))
    }
}

@Suite(.serialized) struct OptionsSurfaceTests {
    // MARK: Options, as values

    @Test func generationOptionsTakeApplesLabels() {
        let options = GenerationOptions(samplingMode: .greedy, temperature: 0.5, maximumResponseTokens: 40)
        #expect(options.samplingMode == .greedy)
        #expect(options.samplingMode?.kind == .greedy)
        #expect(options.temperature == 0.5 && options.maximumResponseTokens == 40)
        #expect(options.toolCallingMode == nil)

        let required = GenerationOptions(samplingMode: .random(top: 40, seed: 7), toolCallingMode: .required)
        #expect(required.toolCallingMode == .required)
        #expect(required.toolCallingMode?.kind == .required)
        #expect(required.samplingMode?.kind == .random(top: 40, probabilityThreshold: nil, seed: 7))
        #expect(GenerationOptions.SamplingMode.random(probabilityThreshold: 0.9).kind == .random(top: nil, probabilityThreshold: 0.9, seed: nil))
    }

    @Test func toolCallingModesAreDistinct() {
        let modes: [GenerationOptions.ToolCallingMode] = [.allowed, .required, .disallowed]
        #expect(modes.map(\.kind) == [.allowed, .required, .disallowed])
        #expect(Set(modes).count == 3)
        var options = GenerationOptions()
        options.toolCallingMode = .disallowed
        switch options.toolCallingMode?.kind {
        case .disallowed: break
        default: Issue.record("expected .disallowed, got \(String(describing: options.toolCallingMode))")
        }
    }

    @available(*, deprecated, message: "uses the deprecated `sampling` spelling on purpose")
    @Test func deprecatedSamplingSpellingStillCompiles() {
        var options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 8)
        #expect(options.samplingMode == .greedy && options.sampling == .greedy)
        options.sampling = .random(top: 3)
        #expect(options.samplingMode?.kind == .random(top: 3, probabilityThreshold: nil, seed: nil))
        let penalized = GenerationOptions(sampling: .greedy, repetitionPenalty: 1)
        #expect(penalized.samplingMode == .greedy && penalized.repetitionPenalty == 1)
    }

    @Test func optionsEncodedUnderTheEarlierKeyStillDecode() throws {
        let options = GenerationOptions(samplingMode: .random(top: 5, seed: 9), toolCallingMode: .required)
        let decoded = try JSONDecoder().decode(GenerationOptions.self, from: JSONEncoder().encode(options))
        #expect(decoded == options)
        let sampling = String(decoding: try JSONEncoder().encode(GenerationOptions.SamplingMode.greedy), as: UTF8.self)
        let legacy = try JSONDecoder().decode(GenerationOptions.self, from: Data(#"{"sampling":\#(sampling),"temperature":0.3}"#.utf8))
        #expect(legacy.samplingMode == .greedy && legacy.temperature == 0.3)
    }

    @Test func contextOptionsTakeApplesLabels() {
        let defaults = ContextOptions()
        #expect(defaults.includeSchemaInPrompt == nil && defaults.reasoningLevel == nil)
        let options = ContextOptions(includeSchemaInPrompt: false, reasoningLevel: .custom("max"))
        #expect(options.includeSchemaInPrompt == false)
        #expect(options.reasoningLevel == .custom("max"))
        let levels: [ContextOptions.ReasoningLevel] = [.light, .moderate, .deep, .custom("max")]
        #expect(Set(levels).count == 4)
    }

    @Test func usageAddsUpItsParts() {
        let usage = LanguageModelSession.Usage(
            input: .init(totalTokenCount: 30, cachedTokenCount: 12),
            output: .init(totalTokenCount: 9, reasoningTokenCount: 4), metadata: ["model": "m"])
        #expect(usage.totalTokenCount == 39)
        #expect(usage.inputTokens == 18 && usage.cachedTokens == 12 && usage.outputTokens == 9)
        #expect(usage.metadata["model"] == GeneratedContent("m"))
    }

    // MARK: Reasoning through a provider

    @Test func reasoningStaysOutOfTheContentAndIsCounted() async throws {
        let session = LanguageModelSession(model: ReasoningModel())
        let response = try await session.respond(
            to: "Hi", options: GenerationOptions(toolCallingMode: .disallowed),
            contextOptions: ContextOptions(reasoningLevel: .deep), metadata: ["user": "tester", "attempt": 2])
        #expect(response.content == "Hello there.")
        #expect(!response.content.contains("greet back"))
        // The reasoning is an entry of its own, before the response, never part of it.
        let entries = Array(session.transcript)
        guard entries.count == 3, case .reasoning(let reasoning) = entries[1], case .response(let answer) = entries[2] else {
            Issue.record("expected prompt, reasoning, response: \(entries)")
            return
        }
        #expect(reasoning.segments.text == "The user greets me. I greet back.")
        #expect(reasoning.signature == Data([1, 2, 3]))
        #expect(!answer.segments.text.contains("greet back"))
        #expect(response.usage.input == .init(totalTokenCount: 20, cachedTokenCount: 5))
        #expect(response.usage.output == .init(totalTokenCount: 11, reasoningTokenCount: 8))
        #expect(response.usage.metadata["provider"] == GeneratedContent("test"))

        let request = try #require(lastReasoningRequest.withLock { $0 })
        #expect(request.contextOptions.reasoningLevel == .deep)
        #expect(request.generationOptions.toolCallingMode == .disallowed)
        #expect(request.metadata["user"] as? String == "\"tester\"")
        #expect(request.metadata["attempt"] as? String == "2")
    }

    @Test func aReasoningLevelNeedsTheReasoningCapability() async throws {
        let session = LanguageModelSession(model: ReasoningModel(reasons: false))
        await #expect {
            try await session.respond(to: "Hi", contextOptions: ContextOptions(reasoningLevel: .light))
        } throws: { error in
            guard case LanguageModelError.unsupportedCapability(let info) = error else { return false }
            return info.capability == .reasoning
        }
        #expect(session.transcript.isEmpty && session.usage.totalTokenCount == 0)
        // Without a level the same model answers.
        let response = try await session.respond(to: "Hi", contextOptions: ContextOptions())
        #expect(response.content == "Hello there.")
    }

    @Test func streamedReasoningIsNotInTheSnapshots() async throws {
        let session = LanguageModelSession(model: ReasoningModel())
        let stream = session.streamResponse(to: "Hi", contextOptions: ContextOptions(reasoningLevel: .moderate), metadata: [:])
        var contents: [String] = []
        var outputs: [Int] = []
        for try await snapshot in stream {
            contents.append(snapshot.content)
            outputs.append(snapshot.usage.output.totalTokenCount)
        }
        #expect(contents == ["Hello", "Hello there."])
        // The fragments' counts: the reasoning's 4 + 3 + signature 1, then the answer's 1 and 2.
        #expect(outputs == [9, 11])
        #expect(try await stream.collect().usage.output.reasoningTokenCount == 8)
    }
}

/// The usage figures on the default model (SmolLM2), against its own token counts.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct OptionsSurfaceModelTests {
    let model: SystemLanguageModel

    init() throws { model = try #require(smolLM2Model) }

    /// The tokens the assistant header adds after a conversation (the chat template's
    /// generation prompt), which the engine evaluates as part of the input.
    func generationHeaderTokens() throws -> Int {
        let rendering = try model.loadedModel().rendering
        let request = RenderedRequest(messages: [.init(role: .user, content: "x")])
        return rendering.tokens(request, addGenerationPrompt: true).count - rendering.tokens(request, addGenerationPrompt: false).count
    }

    @Test func responseUsageEqualsTheModelsTokenCounts() async throws {
        let session = LanguageModelSession(model: model, instructions: "You are a storyteller.")
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 12)
        let before = Array(session.transcript)
        let response = try await session.respond(to: "Write a long story about a dragon.", options: options)
        let header = try generationHeaderTokens()
        #expect(header > 0)

        // Input: the conversation the model read (instructions and prompt), then the header.
        let conversation = Array(before) + [session.transcript[before.count]]
        let counted = try await model.tokenCount(for: conversation)
        #expect(response.usage.input.totalTokenCount == counted + header)
        // Output: the story runs into the 12-token budget.
        #expect(response.usage.output.totalTokenCount == 12)
        #expect(response.usage.output.reasoningTokenCount == 0)
        #expect(response.usage.totalTokenCount == counted + header + 12)
        #expect(response.usage.timeToFirstToken > .zero && response.usage.tokensPerSecond > 0)
    }

    @Test func sessionUsageAccumulatesOverTwoRequests() async throws {
        let session = LanguageModelSession(model: model)
        #expect(session.usage.totalTokenCount == 0)
        let first = try await session.respond(to: "Name a color.", options: greedy(6))
        #expect(session.usage.input == first.usage.input && session.usage.output == first.usage.output)
        let second = try await session.respond(to: "Name another.", options: greedy(6))
        // The second request read the whole conversation, most of it from the cache.
        #expect(second.usage.input.totalTokenCount > first.usage.input.totalTokenCount)
        #expect(second.usage.input.cachedTokenCount > 0)
        let counted = try await model.tokenCount(for: Array(session.transcript.dropLast()))
        #expect(second.usage.input.totalTokenCount == counted + (try generationHeaderTokens()))

        let total = session.usage
        #expect(total.input.totalTokenCount == first.usage.input.totalTokenCount + second.usage.input.totalTokenCount)
        #expect(total.input.cachedTokenCount == first.usage.input.cachedTokenCount + second.usage.input.cachedTokenCount)
        #expect(total.output.totalTokenCount == first.usage.output.totalTokenCount + second.usage.output.totalTokenCount)
        #expect(total.totalTokenCount == first.usage.totalTokenCount + second.usage.totalTokenCount)
    }

    @Test func snapshotUsageGrowsWhileStreaming() async throws {
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(
            to: "Write a long story about a dragon.", options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 10),
            contextOptions: ContextOptions(), metadata: [:])
        var outputs: [Int] = []
        for try await snapshot in stream {
            outputs.append(snapshot.usage.output.totalTokenCount)
        }
        #expect(outputs.count >= 3)
        #expect(zip(outputs, outputs.dropFirst()).allSatisfy { $0 < $1 }, "\(outputs)")
        let response = try await stream.collect()
        #expect(response.usage.output.totalTokenCount == 10)
        #expect(outputs.last! <= 10)
        #expect(session.usage.output.totalTokenCount == 10)
    }

    @Test func theDefaultModelRefusesAReasoningLevel() async throws {
        let session = LanguageModelSession(model: model)
        await #expect {
            try await session.respond(to: "Hi", options: greedy(2), contextOptions: ContextOptions(reasoningLevel: .deep))
        } throws: { error in
            guard case LanguageModelError.unsupportedCapability(let info) = error else { return false }
            return info.capability == .reasoning
        }
        #expect(session.transcript.isEmpty)
    }

    @Test func structuredRespondTakesContextOptions() async throws {
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(
            to: "Pick a number.", generating: Int.self, options: greedy(8),
            contextOptions: ContextOptions(includeSchemaInPrompt: false), metadata: ["purpose": "test"])
        #expect(response.usage.output.totalTokenCount > 0)
        #expect(response.usage.output.totalTokenCount <= 8)
    }
}
