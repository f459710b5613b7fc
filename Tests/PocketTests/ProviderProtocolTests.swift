import Foundation
import Pocket
import Synchronization
import Testing

// A provider written as WWDC26 session 339 ("Bring an LLM provider to the Foundation Models
// framework") shows it: a `LanguageModel` that names its executor's configuration, and a
// `LanguageModelExecutor` that streams into the channel. Only the public API is used.

/// Counts the executors sessions make (one per session, kept for its lifetime).
let myExecutorsMade = Atomic(0)

public struct MyLanguageModel: LanguageModel {
    public typealias Executor = MyLanguageModelExecutor

    /// The words the model answers with.
    let words: [String]

    public var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities([])
    }

    public var executorConfiguration: Executor.Configuration {
        Executor.Configuration(modelID: "my-model-2026-06-08")
    }
}

public struct MyLanguageModelExecutor: LanguageModelExecutor {
    public typealias Model = MyLanguageModel

    public struct Configuration: Hashable, Sendable {
        var modelID: String
    }

    let configuration: Configuration

    public init(configuration: Configuration) throws {
        self.configuration = configuration
        myExecutorsMade.add(1, ordering: .relaxed)
    }

    public func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: MyLanguageModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        // 1. Report metadata
        await channel.send(.response(action: .updateMetadata([
            "modelID": configuration.modelID,
            "requestID": request.id.uuidString,
        ])))
        // 2. Report prompt token usage before generating
        let promptTokens = request.transcript.count
        await channel.send(.response(action: .updateUsage(
            input: .init(totalTokenCount: promptTokens, cachedTokenCount: 0),
            output: .init(totalTokenCount: 0, reasoningTokenCount: 0)
        )))
        // 3. Stream text deltas as the model generates
        for (index, word) in model.words.enumerated() {
            try Task.checkCancellation()
            await channel.send(.response(action: .appendText(index == 0 ? word : " " + word)))
        }
        await channel.send(.response(action: .updateUsage(
            input: .init(totalTokenCount: promptTokens, cachedTokenCount: 0),
            output: .init(totalTokenCount: model.words.count, reasoningTokenCount: 0)
        )))
    }
}

@Suite(.serialized) struct ProviderProtocolTests {
    @Test func aCustomProviderRespondsThroughASession() async throws {
        let before = myExecutorsMade.load(ordering: .relaxed)
        let session = LanguageModelSession(model: MyLanguageModel(words: ["Hello", "from", "a", "provider."]))
        let response = try await session.respond(to: "Hi")
        #expect(response.content == "Hello from a provider.")
        #expect(response.usage.outputTokens == 4)
        #expect(response.usage.inputTokens == 1)  // the transcript held the prompt only
        // A second turn reuses the session's executor and sees the first turn in its transcript.
        let second = try await session.respond(to: "Again")
        #expect(second.content == "Hello from a provider.")
        #expect(second.usage.inputTokens == 3)
        #expect(myExecutorsMade.load(ordering: .relaxed) - before == 1)
        #expect(session.transcript.count == 4)
    }

    @Test func aCustomProviderStreamsThroughASession() async throws {
        let session = LanguageModelSession(model: MyLanguageModel(words: ["one", "two", "three"]))
        var snapshots: [String] = []
        for try await snapshot in session.streamResponse(to: "Count.") {
            snapshots.append(snapshot.content)
        }
        #expect(snapshots == ["one", "one two", "one two three"])
        guard case .response(let response)? = session.transcript.last else {
            Issue.record("no response entry in \(session.transcript)")
            return
        }
        #expect(response.segments.count == 1 && "\(session.transcript.last!)".contains("one two three"))
    }

    @Test func aRequestNeedingAMissingCapabilityIsRefusedBeforeTheExecutor() async throws {
        let before = myExecutorsMade.load(ordering: .relaxed)
        let session = LanguageModelSession(model: MyLanguageModel(words: ["{}"]))
        await #expect {
            try await session.respond(to: "Structured?", schema: GenerationSchema(type: String.self, properties: []))
        } throws: { error in
            guard case LanguageModelError.unsupportedCapability(let info) = error else { return false }
            return info.capability == .guidedGeneration && info.debugDescription.contains("guided generation")
        }
        #expect(myExecutorsMade.load(ordering: .relaxed) == before)
        #expect(session.transcript.isEmpty && !session.isResponding)
    }

    @Test func anExecutorCanBeCalledDirectlyWithAChannelThatBuffersItsEvents() async throws {
        let executor = try MyLanguageModelExecutor(configuration: .init(modelID: "m"))
        let channel = LanguageModelExecutorGenerationChannel()
        let request = LanguageModelExecutorGenerationRequest(transcript: Transcript())
        try await executor.respond(to: request, model: MyLanguageModel(words: ["a", "b"]), streamingInto: channel)
        // The channel has no end (a response ends when `respond` returns): read the five
        // events sent (metadata, usage, two words, usage), giving up after ten seconds.
        let events = try await withThrowingTaskGroup(of: [LanguageModelExecutorGenerationChannel.Event]?.self) { group in
            group.addTask { await channel.prefix(5).reduce(into: []) { $0.append($1) } }
            group.addTask { try await Task.sleep(for: .seconds(10)); return nil }
            defer { group.cancelAll() }
            return try await group.next()!
        }
        let read = try #require(events, "the channel did not deliver five events")
        var text = ""
        for case .response(_, .appendText(let fragment)) in read { text += fragment.content }
        #expect(text == "a b")
    }

    /// The configuration of any provider, through the protocol only.
    static func configuration<Model: LanguageModel>(of model: Model) -> Model.Executor.Configuration {
        model.executorConfiguration
    }

    @Test func systemLanguageModelIsAProvider() {
        let model = SystemLanguageModel.default
        #expect(model.capabilities.contains(.guidedGeneration) && model.capabilities.contains(.toolCalling))
        #expect(!model.capabilities.contains(.vision) && !model.capabilities.contains(.reasoning))
        let configuration = Self.configuration(of: model)
        #expect(configuration == SystemLanguageModel.Executor.Configuration(url: model.url, contextSize: model.contextSize))
    }
}
