import Foundation
import Observation
@testable import Pocket
import Synchronization
import Testing

/// A model that writes `words` words, one every `interval`, checking for cancellation before
/// each as a real engine does: long enough to be cut off, fast enough for unit tests.
final class SlowModel: LanguageModel, Sendable {
    typealias Executor = SlowExecutor

    let words: Int
    let interval: TimeInterval
    /// Words written so far, by all requests.
    let written = Mutex(0)
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([]) }
    var executorConfiguration: SlowExecutor.Configuration { .init() }

    init(words: Int = 400, interval: TimeInterval = 0.005) {
        self.words = words
        self.interval = interval
    }
}

/// Writes a ``SlowModel``'s words, blocking its thread between them.
struct SlowExecutor: LanguageModelExecutor {
    typealias Model = SlowModel
    struct Configuration: Hashable, Sendable {}
    init(configuration: Configuration) throws {}

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: SlowModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let count = min(model.words, request.generationOptions.maximumResponseTokens ?? model.words)
        for i in 0..<count {
            try Task.checkCancellation()
            usleep(UInt32(model.interval * 1_000_000))  // blocks the thread, as an engine does
            model.written.withLock { $0 += 1 }
            await channel.send(.response(action: .appendText(i == 0 ? "word" : " word", tokenCount: 1)))
        }
        await channel.send(.response(action: .updateUsage(
            input: .init(totalTokenCount: 1, cachedTokenCount: 0), output: .init(totalTokenCount: count, reasoningTokenCount: 0))))
    }
}

/// Where Pocket once differed from Apple's framework (issue 16, section 2).
@Suite struct SessionParityTests {
    @Test func toolCallErrorIsNestedInTheSession() async throws {
        let call = ScriptedReply(text: #"{"name": "broken", "arguments": {"city": "Rome"}}"#, isToolCall: true)
        let session = LanguageModelSession(model: ScriptedModel(replies: [call]), tools: [FailingTool()])
        do {
            try await session.respond(to: "Go.")
            Issue.record("the tool's error was not thrown")
        } catch let error as LanguageModelSession.ToolCallError {
            #expect(error.tool.name == "broken" && error.underlyingError is FailingTool.Broken)
        }
    }

    @Test func respondingIsObservable() async throws {
        let session = LanguageModelSession(model: ScriptedModel(replies: [ScriptedReply(text: "Hello")]))
        let changes = Mutex<Set<String>>([])
        withObservationTracking { _ = session.isResponding } onChange: { changes.withLock { _ = $0.insert("isResponding") } }
        withObservationTracking { _ = session.transcript } onChange: { changes.withLock { _ = $0.insert("transcript") } }
        #expect(changes.withLock { $0 }.isEmpty)
        try await session.respond(to: "Hi")
        #expect(changes.withLock { $0 } == ["isResponding", "transcript"])
    }

    @Test func cancellingAStreamsConsumerThrowsCancellationError() async throws {
        let model = SlowModel()
        let session = LanguageModelSession(model: model)
        let started = Mutex(false)
        let consumer = Task {
            var last = ""
            for try await snapshot in session.streamResponse(to: "Talk.") {
                last = snapshot.content
                started.withLock { $0 = true }
            }
            return last
        }
        while !started.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(1)) }
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        #expect(session.transcript.isEmpty)
        #expect(!session.isResponding)
        // The generation stopped long before its 400 words.
        try await Task.sleep(for: .milliseconds(50))
        let written = model.written.withLock { $0 }
        try await Task.sleep(for: .milliseconds(50))
        #expect(model.written.withLock { $0 } == written)
        #expect(written < model.words)
    }

    @Test func leavingAStreamEarlyFreesTheSessionAtOnce() async throws {
        let model = SlowModel()
        let session = LanguageModelSession(model: model)
        for try await _ in session.streamResponse(to: "Talk.") { break }
        #expect(!session.isResponding)
        // No sleep: the next request is accepted and waits for the abandoned one to stop.
        let next = try await session.respond(to: "Again.", options: GenerationOptions(maximumResponseTokens: 3))
        #expect(next.content == "word word word")
        #expect(session.transcript.count == 2)
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func leavingARealStreamEarlyFreesTheSessionAtOnce() async throws {
        let session = LanguageModelSession(model: try #require(smolLM2Model))
        for try await snapshot in session.streamResponse(to: "Tell me a long story.", options: greedy(200))
        where !snapshot.content.isEmpty { break }
        let next = try await session.respond(to: "Hi", options: greedy(2))
        #expect(next.usage.outputTokens <= 2)
        #expect(session.transcript.count == 2)
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func aModelThatListsLanguagesRejectsOtherScripts() async throws {
        let model = try #require(smolLM2Model)
        #expect(model.supportedLanguages.map { $0.languageCode?.identifier } == ["en"])
        #expect(!model.supportsLocale(Locale(identifier: "ko_KR")))
        await #expect {
            try await LanguageModelSession(model: model).respond(to: "안녕하세요, 오늘 날씨가 어때요?", options: greedy(2))
        } throws: { error in
            guard case LanguageModelError.unsupportedLanguageOrLocale = error else { return false }
            return true
        }
    }

    @Test(.enabled(if: qwenIsInstalled, "Qwen2.5-Coder-0.5B-Instruct is not installed (run Weights/fetch)"))
    func aModelThatListsNoLanguagesIsNotRestricted() async throws {
        let model = try SystemLanguageModel(contentsOf: qwenModelURL, contextSize: 512)
        #expect(model.supportedLanguages.isEmpty)
        #expect(model.supportsLocale(Locale(identifier: "ko_KR")))
        #expect(model.supportsLocale(Locale(identifier: "en_US")))
        let response = try await LanguageModelSession(model: model).respond(to: "안녕하세요, 오늘 날씨가 어때요?", options: greedy(4))
        #expect(response.usage.outputTokens > 0)
    }
}

