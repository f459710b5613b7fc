import Foundation
import Pocket
import Synchronization
import Testing

/// A provider that sends a scripted list of channel events per round.
final class EventScriptModel: LanguageModel, Sendable {
    typealias Executor = EventScriptExecutor
    typealias Event = LanguageModelExecutorGenerationChannel.Event

    private let rounds: Mutex<[[Event]]>
    let failsToStart: Bool
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([.toolCalling]) }
    var executorConfiguration: EventScriptExecutor.Configuration { .init(failsToStart: failsToStart) }

    init(rounds: [[Event]], failsToStart: Bool = false) {
        self.rounds = Mutex(rounds)
        self.failsToStart = failsToStart
    }

    func nextRound() -> [Event] {
        rounds.withLock { $0.isEmpty ? [] : $0.removeFirst() }
    }
}

struct EventScriptExecutor: LanguageModelExecutor {
    typealias Model = EventScriptModel
    struct Configuration: Hashable, Sendable { var failsToStart: Bool }
    struct NoWeights: Error, Equatable {}

    init(configuration: Configuration) throws {
        if configuration.failsToStart { throw NoWeights() }
    }

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: EventScriptModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        for event in model.nextRound() { await channel.send(event) }
    }
}

/// How a session reads what executors send into the channel.
@Suite struct ProviderChannelTests {
    @Test func replaceTextSegmentReplacesWhatWasAppended() async throws {
        let model = EventScriptModel(rounds: [[
            .response(action: .appendText("Helo")),
            .response(action: .replaceTextSegment("Hello")),
            .response(action: .appendText(" world", tokenCount: 2)),
        ]])
        let session = LanguageModelSession(model: model)
        var snapshots: [String] = []
        for try await snapshot in session.streamResponse(to: "Hi") { snapshots.append(snapshot.content) }
        #expect(snapshots == ["Helo", "Hello", "Hello world"])
    }

    @Test func aRetractedToolCallIsNotRunAndArgumentPiecesJoin() async throws {
        let overlap = Overlap()
        let model = EventScriptModel(rounds: [
            [
                .toolCalls(action: .toolCall(id: "a", name: "getWeather", action: .appendArguments(#"{"city":"#))),
                .toolCalls(action: .toolCall(id: "b", name: "getWeather", action: .appendArguments(#"{"city":"Rome"}"#))),
                .toolCalls(action: .toolCall(id: "a", name: "getWeather", action: .appendArguments(#""Oslo"}"#))),
                .toolCalls(action: .removeToolCall(id: "b")),
            ],
            [.response(action: .appendText("Sunny."))],
        ])
        let session = LanguageModelSession(model: model, tools: [WeatherTool(overlap: overlap)])
        let response = try await session.respond(to: "Weather?")
        #expect(response.content == "Sunny.")
        let calls = response.transcriptEntries.compactMap { entry -> [Transcript.ToolCall]? in
            if case .toolCalls(let calls) = entry { Array(calls) } else { nil }
        }
        #expect(calls.count == 1 && calls[0].map(\.id) == ["a"])
        #expect(calls[0].first?.arguments == GeneratedContent(properties: ["city": "Oslo"]))
    }

    @Test func anExecutorThatCannotBeMadeFailsTheRequest() async throws {
        let session = LanguageModelSession(model: EventScriptModel(rounds: [], failsToStart: true))
        await #expect(throws: EventScriptExecutor.NoWeights()) {
            try await session.respond(to: "Hi")
        }
        #expect(session.transcript.isEmpty && !session.isResponding)
    }

    @Test func argumentsThatAreNotJSONAreADecodingFailure() async throws {
        let model = EventScriptModel(rounds: [[
            .toolCalls(action: .toolCall(id: "a", name: "getWeather", action: .appendArguments("{city"))),
        ]])
        let session = LanguageModelSession(model: model, tools: [WeatherTool(overlap: Overlap())])
        await #expect {
            try await session.respond(to: "Weather?")
        } throws: { error in
            guard case LanguageModelSession.GenerationError.decodingFailure(let context) = error else { return false }
            return context.debugDescription.contains("getWeather") && context.debugDescription.contains("{city")
        }
    }
}
