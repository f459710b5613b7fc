import Foundation
@testable import Pocket
import Synchronization
import Testing

// `LanguageModelSession.DynamicProfile`: what a body resolves to (the active profile, its
// modifiers' values and their precedence), and what a profile session sends its model on each
// request, recorded by a provider that keeps every request it receives.

/// Every request a ``RecordingModel`` received, with the model's name; and how many executors
/// each name made.
let recordingLog = Mutex<(requests: [(name: String, request: LanguageModelExecutorGenerationRequest)], executors: [String: Int])>(([], [:]))

/// The requests the recording model called `name` received, in order.
func recordedRequests(_ name: String) -> [LanguageModelExecutorGenerationRequest] {
    recordingLog.withLock { $0.requests.filter { $0.name == name }.map(\.request) }
}

/// A provider that records each request and answers "answer from <name>"; it can reason,
/// call a tool once per request, or fail.
struct RecordingModel: LanguageModel {
    typealias Executor = RecordingExecutor

    /// Tells the model apart in the log (tests use unique names).
    var name: String
    /// When set, the first round of a request calls this tool (with `{"city":"Oslo"}`).
    var callsTool: String?
    /// Whether every request fails.
    var fails = false

    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([.reasoning, .toolCalling, .guidedGeneration]) }
    var executorConfiguration: RecordingExecutor.Configuration { .init(name: name, callsTool: callsTool, fails: fails) }
}

/// The failure of a failing ``RecordingModel``.
struct RecordedFailure: Error {}

struct RecordingExecutor: LanguageModelExecutor {
    typealias Model = RecordingModel

    struct Configuration: Hashable, Sendable {
        var name: String
        var callsTool: String?
        var fails: Bool
    }

    let configuration: Configuration

    init(configuration: Configuration) throws {
        self.configuration = configuration
        recordingLog.withLock { $0.executors[configuration.name, default: 0] += 1 }
    }

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: RecordingModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        recordingLog.withLock { $0.requests.append((configuration.name, request)) }
        if configuration.fails { throw RecordedFailure() }
        let answeredTool = request.transcript.last.map { if case .toolOutput = $0 { true } else { false } } ?? false
        if let tool = configuration.callsTool, request.allowsToolCalls, !answeredTool {
            await channel.send(.toolCalls(action: .toolCall(id: "call-1", name: tool, action: .appendArguments(#"{"city":"Oslo"}"#))))
            return
        }
        if request.contextOptions.reasoningLevel != nil {
            await channel.send(.reasoning(action: .appendText("Thinking.", tokenCount: 1)))
        }
        await channel.send(.response(action: .appendText("answer from \(configuration.name)", tokenCount: 3)))
    }
}

/// A modifier that sets a temperature around its content.
struct WarmModifier: LanguageModelSession.DynamicProfileModifier {
    var temperature: Double

    func body(content: Content) -> some DynamicProfile {
        content.temperature(temperature)
    }
}

/// A modifier that drops its content for a profile that resolves to no `Profile`.
struct DroppingModifier: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some DynamicProfile {
        LanguageModelSession.AnyDynamicProfile(NeverResolves())
    }
}

/// A primitive profile that contributes nothing (no `Profile`).
struct NeverResolves: LanguageModelSession.DynamicProfile, PrimitiveDynamicProfile {
    var body: Never { preconditionFailure("primitive") }
    func resolveProfile(into resolved: inout ResolvedProfile) throws {}
}

/// A profile that switches instructions, temperature and model on session properties.
struct SwitchingProfile: LanguageModelSession.DynamicProfile {
    let first: RecordingModel
    let second: RecordingModel
    @SessionProperty(\.tone) var tone
    @SessionProperty(\.usesSecondModel) var usesSecondModel

    var body: some LanguageModelSession.DynamicProfile {
        if tone == "pirate" {
            Profile {
                Instructions("Talk like a pirate.")
                LookUpTool()
            }
            .temperature(0.9)
            .reasoningLevel(.deep)
            .maximumResponseTokens(50)
            .toolCallingMode(.disallowed)
            .model(usesSecondModel ? second : first)
        } else {
            Profile {
                Instructions("Keep a \(tone) tone.")
            }
            .temperature(0.1)
            .model(usesSecondModel ? second : first)
        }
    }
}

/// Collects what hooks saw, in order.
final class HookLog: Sendable {
    let events = Mutex<[String]>([])
    func add(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
}

@Suite struct DynamicProfileTests {
    typealias Profile = LanguageModelSession.Profile

    private func unique(_ name: String) -> String { "\(name)-\(UUID().uuidString)" }

    // MARK: Resolution, without a session

    @Test func aConditionalBodyResolvesToTheBranchThatHolds() throws {
        let profile = SwitchingProfile(first: RecordingModel(name: "a"), second: RecordingModel(name: "b"))
        let values = SessionPropertyValues()
        let calm = try SessionPropertyValues.$current.withValue(values) { try profile.resolvedProfile() }
        values.tone = "pirate"
        values.usesSecondModel = true
        let pirate = try SessionPropertyValues.$current.withValue(values) { try profile.resolvedProfile() }
        #expect(calm.instructions?.resolved().texts == ["Keep a calm tone."])
        #expect(calm.temperature == 0.1 && calm.reasoningLevel == nil && calm.toolCallingMode == nil)
        #expect((calm.model as? RecordingModel)?.name == "a")
        #expect(pirate.instructions?.resolved().texts == ["Talk like a pirate."])
        #expect(pirate.instructions?.resolved().tools.map(\.name) == ["lookUp"])
        #expect(pirate.temperature == 0.9 && pirate.maximumResponseTokens == 50 && pirate.reasoningLevel == .deep)
        #expect(pirate.toolCallingMode == .disallowed)
        #expect((pirate.model as? RecordingModel)?.name == "b")
    }

    @Test func theModifierClosestToTheProfileWins() throws {
        let inner = try Profile { Instructions("x") }.temperature(0.2).temperature(0.9).resolvedProfile()
        #expect(inner.temperature == 0.2)
        // A custom modifier around a profile that sets its own temperature does not override it…
        let overridden = try Profile { Instructions("x") }.temperature(0.3).modifier(WarmModifier(temperature: 0.8)).resolvedProfile()
        #expect(overridden.temperature == 0.3)
        // …and supplies it when the profile sets none.
        let supplied = try Profile { Instructions("x") }.maximumResponseTokens(9).modifier(WarmModifier(temperature: 0.8)).resolvedProfile()
        #expect(supplied.temperature == 0.8 && supplied.maximumResponseTokens == 9)
        // `nil` restores the default over an outer value.
        let reset = try Profile { Instructions("x") }.temperature(nil).temperature(0.5).resolvedProfile()
        #expect(reset.temperature == nil)
    }

    @Test func hooksAndTransformsAllApplyOutermostFirst() throws {
        let resolved = try Profile { Instructions("x") }
            .historyTransform { $0 + [.prompt(.init(segments: [.text(.init(content: "inner"))]))] }
            .historyTransform { $0 + [.prompt(.init(segments: [.text(.init(content: "outer"))]))] }
            .onResponse {}
            .onResponse {}
            .resolvedProfile()
        #expect(resolved.onResponse.count == 2)
        let texts = resolved.transformedHistory([]).map { entry -> String in
            if case .prompt(let p) = entry, case .text(let t) = p.segments.first { return t.content }
            return "?"
        }
        #expect(texts == ["outer", "inner"])
    }

    @Test func erasedProfilesStayDynamic() throws {
        let values = SessionPropertyValues()
        let erased = LanguageModelSession.AnyDynamicProfile(
            erasing: SwitchingProfile(first: RecordingModel(name: "a"), second: RecordingModel(name: "b")))
        let before = try SessionPropertyValues.$current.withValue(values) { try erased.resolvedProfile() }
        values.tone = "pirate"
        let after = try SessionPropertyValues.$current.withValue(values) { try erased.resolvedProfile() }
        #expect(before.temperature == 0.1 && after.temperature == 0.9)
    }

    // MARK: Requests

    @Test func eachRequestSendsTheModelWhatTheProfileChoseThen() async throws {
        let first = RecordingModel(name: unique("first"))
        let second = RecordingModel(name: unique("second"))
        let session = LanguageModelSession(profile: SwitchingProfile(first: first, second: second))

        _ = try await session.respond(to: "Hello")
        session.properties.tone = "pirate"
        session.properties.usesSecondModel = true
        _ = try await session.respond(to: "Ahoy")
        session.properties.tone = "calm"
        session.properties.usesSecondModel = false
        let third = try await session.respond(to: "Back", options: GenerationOptions(temperature: 0.4))

        let onFirst = recordedRequests(first.name)
        let onSecond = recordedRequests(second.name)
        try #require(onFirst.count == 2 && onSecond.count == 1)
        #expect(onFirst[0].generationOptions.temperature == 0.1)
        #expect(onFirst[0].messages.first?.content == "Keep a calm tone.")
        #expect(onSecond[0].generationOptions.temperature == 0.9)
        #expect(onSecond[0].generationOptions.maximumResponseTokens == 50)
        #expect(onSecond[0].generationOptions.toolCallingMode == .disallowed)
        #expect(onSecond[0].contextOptions.reasoningLevel == .deep)
        #expect(onSecond[0].enabledToolDefinitions.map(\.name) == ["lookUp"])
        #expect(onSecond[0].messages.first?.content == "Talk like a pirate.")
        // The request's own option wins over the profile's.
        #expect(onFirst[1].generationOptions.temperature == 0.4)
        #expect(onFirst[1].enabledToolDefinitions.isEmpty)
        #expect(third.content == "answer from \(first.name)")
        // Switching back reuses the first model's executor: one executor per model.
        #expect(recordingLog.withLock { $0.executors[first.name] } == 1)
        #expect(recordingLog.withLock { $0.executors[second.name] } == 1)
        // The transcript's instructions entry is the latest evaluation; the history is whole.
        guard case .instructions(let instructions) = session.transcript.first else {
            Issue.record("the transcript does not start with instructions")
            return
        }
        #expect(instructions.segments.map { if case .text(let t) = $0 { t.content } else { "" } } == ["Keep a calm tone."])
        // Instructions, then three prompts and responses, the second with its reasoning entry
        // (the pirate profile reasons).
        #expect(session.transcript.count == 8)
        #expect(session.properties.history.count == 7)
        // An unchanged evaluation leaves the instructions entry exactly as it was.
        let before = session.transcript.first
        _ = try await session.respond(to: "Again")
        #expect(session.transcript.first == before)
    }

    @Test func hooksAreCalledForToolCallsOutputsReasoningAndResponses() async throws {
        let model = RecordingModel(name: unique("hooks"), callsTool: "lookUp")
        let log = HookLog()
        let profile = Profile {
            Instructions("Use the tool.")
            LookUpTool()
        }
        .reasoningLevel(.light)
        .onToolCall { call in log.add("call \(call.toolName) \(call.arguments.jsonString)") }
        .onToolOutput { log.add("output") }
        .onReasoning { log.add("reasoning") }
        .onResponse { log.add("response") }
        .model(model)
        let session = LanguageModelSession(profile: profile)
        let response = try await session.respond(to: "Where is Oslo?")
        #expect(response.content == "answer from \(model.name)")
        #expect(log.all.first?.hasPrefix("call lookUp") == true)
        #expect(log.all.contains("output"))
        #expect(log.all.contains("reasoning"))
        #expect(log.all.last == "response")
        #expect(log.all.filter { $0 == "response" }.count == 1)
    }

    @Test func activationHooksRunWhenTheActiveProfileChanges() async throws {
        struct Phased: LanguageModelSession.DynamicProfile {
            let model: RecordingModel
            let log: HookLog
            @SessionProperty(\.tone) var tone

            var body: some LanguageModelSession.DynamicProfile {
                if tone == "pirate" {
                    Profile { Instructions("Pirate.") }
                        .onActivate { log.add("activate pirate") }
                        .onDeactivate { log.add("deactivate pirate") }
                        .onPrompt { log.add("prompt pirate") }
                        .model(model)
                } else {
                    Profile { Instructions("Calm.") }
                        .onActivate { log.add("activate calm") }
                        .onDeactivate { log.add("deactivate calm") }
                        .onPrompt { log.add("prompt calm") }
                        .samplingMode(.greedy)
                        .model(model)
                }
            }
        }
        let log = HookLog()
        let model = RecordingModel(name: unique("phased"))
        let session = LanguageModelSession(profile: Phased(model: model, log: log))
        _ = try await session.respond(to: "one")
        _ = try await session.respond(to: "two")
        session.properties.tone = "pirate"
        _ = try await session.respond(to: "three")
        session.properties.tone = "calm"
        _ = try await session.respond(to: "four")
        #expect(log.all == [
            "activate calm", "prompt calm", "prompt calm",
            "deactivate calm", "activate pirate", "prompt pirate",
            "deactivate pirate", "activate calm", "prompt calm",
        ])
        let requests = recordedRequests(model.name)
        #expect(requests.map { $0.generationOptions.samplingMode == .greedy } == [true, true, false, true])
    }

    @Test func aThrowingPromptHookStopsTheRequestBeforeTheModel() async throws {
        struct Refusal: Error {}
        let model = RecordingModel(name: unique("prompt-throws"))
        let session = LanguageModelSession(profile: Profile { Instructions("x") }
            .onPrompt { throw Refusal() }
            .model(model))
        await #expect(throws: Refusal.self) { try await session.respond(to: "Hi") }
        #expect(recordedRequests(model.name).isEmpty)
        #expect(session.transcript.count == 1)
    }

    @Test func toolsReadTheSessionsPropertiesWhileTheyRun() async throws {
        struct ToneTool: Tool {
            let name = "lookUp"
            let description = "Reports the tone."
            @SessionProperty(\.tone) var tone

            func call(arguments: CityArguments) async throws -> String { "\(arguments.city) in a \(tone) tone" }
        }
        let model = RecordingModel(name: unique("tool-property"), callsTool: "lookUp")
        let session = LanguageModelSession(profile: Profile { ToneTool() }.model(model))
        session.properties.tone = "gentle"
        let response = try await session.respond(to: "Go")
        let outputs = response.transcriptEntries.compactMap { entry -> String? in
            guard case .toolOutput(let output) = entry, case .text(let text) = output.segments.first else { return nil }
            return text.content
        }
        #expect(outputs == ["Oslo in a gentle tone"])
    }

    @Test func aThrowingHookFailsTheRequest() async throws {
        struct HookFailure: Error {}
        let session = LanguageModelSession(profile: Profile { Instructions("x") }
            .onResponse { throw HookFailure() }
            .model(RecordingModel(name: unique("throwing"))))
        await #expect(throws: HookFailure.self) { try await session.respond(to: "Hi") }
        #expect(!session.isResponding)
    }

    @Test func theHistoryTransformChangesWhatTheModelReadsNotTheTranscript() async throws {
        let model = RecordingModel(name: unique("transform"))
        let session = LanguageModelSession(profile: Profile { Instructions("Be brief.") }
            .historyTransform { Array($0.suffix(2)) }
            .model(model))
        for prompt in ["one", "two", "three"] { _ = try await session.respond(to: prompt) }
        let requests = recordedRequests(model.name)
        try #require(requests.count == 3)
        // Instructions, the last two entries of the history, then this request's prompt.
        #expect(requests[2].transcript.count == 4)
        #expect(requests[2].messages.map(\.content) == ["Be brief.", "two", "answer from \(model.name)", "three"])
        #expect(session.transcript.count == 7)
    }

    @Test func aSessionPropertyHistoryCanCompactTheTranscript() async throws {
        struct Compacting: LanguageModelSession.DynamicProfile {
            let model: RecordingModel
            @SessionProperty(\.history) var history

            var body: some LanguageModelSession.DynamicProfile {
                Profile { Instructions("Be brief.") }
                    .onResponse { if history.count > 2 { history = Array(history.suffix(2)) } }
                    .model(model)
            }
        }
        let session = LanguageModelSession(profile: Compacting(model: RecordingModel(name: unique("compact"))))
        _ = try await session.respond(to: "one")
        _ = try await session.respond(to: "two")
        #expect(session.transcript.count == 3)
        guard case .instructions = session.transcript.first else {
            Issue.record("the instructions entry was lost")
            return
        }
    }

    @Test func theTranscriptErrorPolicyDecidesWhatAFailedRequestLeaves() async throws {
        let failing = RecordingModel(name: unique("failing"), fails: true)
        let reverting = LanguageModelSession(profile: Profile { Instructions("x") }.model(failing))
        await #expect(throws: RecordedFailure.self) { try await reverting.respond(to: "Hi") }
        #expect(reverting.transcript.count == 1)

        let preserving = LanguageModelSession(profile: Profile { Instructions("x") }
            .transcriptErrorHandlingPolicy(.preserveTranscript).model(failing))
        await #expect(throws: RecordedFailure.self) { try await preserving.respond(to: "Hi") }
        #expect(preserving.transcript.count == 2)
        #expect(preserving.properties.history.count == 1)

        // The session's own policy applies when the profile sets none; the profile's wins.
        let plain = LanguageModelSession(model: failing, instructions: "x")
        plain.transcriptErrorHandlingPolicy = .preserveTranscript
        await #expect(throws: RecordedFailure.self) { try await plain.respond(to: "Hi") }
        #expect(plain.transcript.count == 2)
        let overriding = LanguageModelSession(profile: Profile { Instructions("x") }
            .transcriptErrorHandlingPolicy(.revertTranscript).model(failing))
        overriding.transcriptErrorHandlingPolicy = .preserveTranscript
        await #expect(throws: RecordedFailure.self) { try await overriding.respond(to: "Hi") }
        #expect(overriding.transcript.count == 1)
    }

    @Test func aProfileThatResolvesToNothingFailsWithAReason() async throws {
        let broken = LanguageModelSession(profile: Profile { Instructions("x") }
            .modifier(DroppingModifier()).model(RecordingModel(name: unique("dropping"))))
        await #expect(throws: DynamicProfileResolutionError.self) { try await broken.respond(to: "Hi") }
        #expect(!broken.isResponding)
        #expect(throws: DynamicProfileResolutionError.self) {
            try Profile { Instructions("x") }.modifier(DroppingModifier()).resolvedProfile()
        }
    }

    @Test func dynamicInstructionsSessionsReEvaluateAndDropAGivenInstructionsEntry() async throws {
        let model = RecordingModel(name: unique("dynamic"))
        let history: [Transcript.Entry] = [
            .instructions(.init(segments: [.text(.init(content: "old"))], toolDefinitions: [])),
            .prompt(.init(segments: [.text(.init(content: "earlier"))])),
        ]
        let session = LanguageModelSession(model: model, dynamicInstructions: ToneInstructions(), history: history)
        #expect(session.transcript.count == 2)
        _ = try await session.respond(to: "Hi")
        session.properties.tone = "pirate"
        _ = try await session.respond(to: "Hi again")
        let requests = recordedRequests(model.name)
        try #require(requests.count == 2)
        #expect(requests[0].messages.first?.content == "Answer in one sentence.\nKeep a calm tone.")
        #expect(requests[1].messages.first?.content == "Answer in one sentence.\nTalk like a pirate.")
        #expect(requests[1].messages[1].content == "earlier")
    }

    @Test func streamsEvaluateTheProfileToo() async throws {
        let model = RecordingModel(name: unique("stream"))
        let log = HookLog()
        let session = LanguageModelSession(profile: Profile { Instructions("Stream.") }
            .temperature(0.3).onResponse { log.add("response") }.model(model))
        let response = try await session.streamResponse(to: "Hi").collect()
        #expect(response.content == "answer from \(model.name)")
        #expect(recordedRequests(model.name).first?.generationOptions.temperature == 0.3)
        #expect(log.all == ["response"])
    }
}
