import Foundation
import Pocket
import Synchronization
import Testing

/// Apple-documented usage on the default model, Qwen2.5-Coder-0.5B-Instruct: answers that make
/// sense, multi-turn with the cache, streaming structured output, a dynamic schema, tools
/// (called, their output used, a throwing one, tools during guided generation).
@Suite(.enabled(if: qwenIsInstalled, "Qwen2.5-Coder-0.5B-Instruct, the default model, is not installed (run Weights/fetch)"), .serialized)
struct DefaultModelSessionTests {
    let model: SystemLanguageModel

    init() throws { model = try #require(qwenModel) }

    @Test func theDefaultModelIsQwen() {
        #expect(SystemLanguageModel.default.url.lastPathComponent == "Qwen2.5-Coder-0.5B-Instruct.gguf"
                || ProcessInfo.processInfo.environment["POCKET_MODEL"] != nil)
    }

    @Test func multiTurnAnswersAreSensibleAndReuseTheCache() async throws {
        let session = LanguageModelSession(model: model)
        let first = try await session.respond(to: "What is the capital of France? Answer in one sentence.", options: greedy(24))
        #expect(first.content.contains("Paris"), "\(first.content)")
        let second = try await session.respond(to: "And the capital of Germany?", options: greedy(24))
        #expect(second.content.contains("Berlin"), "\(second.content)")
        #expect(second.usage.cachedTokens > first.usage.inputTokens)
    }

    /// `respond` right after `break` out of a stream, with and without tools: the session is
    /// free the moment the loop is left.
    @Test(arguments: [false, true])
    func respondRightAfterBreakingOutOfAStream(withTools: Bool) async throws {
        let session = LanguageModelSession(model: model, tools: withTools ? [TemperatureTool()] : [])
        for try await snapshot in session.streamResponse(to: "Write a long poem about the sea.", options: greedy(200))
        where !snapshot.content.isEmpty { break }
        let next = try await session.respond(to: "What is the capital of France? Answer in one word.", options: greedy(8))
        #expect(next.content.contains("Paris"), "\(next.content)")
    }

    /// `ToolCallingMode` is enforced by the grammar: `.required` makes a greeting open with a
    /// call, `.disallowed` answers a weather question without one.
    @Test func toolCallingModesAreEnforced() async throws {
        func calls(_ response: LanguageModelSession.Response<String>) -> Int {
            response.transcriptEntries.filter { if case .toolCalls = $0 { return true } else { return false } }.count
        }
        var required = greedy(60)
        required.toolCallingMode = .required
        let greeting = try await LanguageModelSession(model: model, tools: [TemperatureTool()]).respond(to: "hi", options: required)
        #expect(calls(greeting) >= 1, "\(greeting.transcriptEntries)")

        let question = "What is the temperature in Tokyo?"
        let allowed = try await LanguageModelSession(model: model, tools: [TemperatureTool()]).respond(to: question, options: greedy(60))
        #expect(calls(allowed) >= 1, "the question calls the tool when calls are allowed: \(allowed.transcriptEntries)")
        var disallowed = greedy(60)
        disallowed.toolCallingMode = .disallowed
        let answer = try await LanguageModelSession(model: model, tools: [TemperatureTool()]).respond(to: question, options: disallowed)
        #expect(calls(answer) == 0, "\(answer.transcriptEntries)")
        #expect(!answer.content.isEmpty && !answer.content.contains("<tool_call>"))
    }

    @Test func aGreetingGetsAGreetingNotCode() async throws {
        // The template's default system prompt is rendered when there are no instructions.
        let response = try await LanguageModelSession(model: model).respond(to: "hi", options: greedy(24))
        #expect(!response.content.contains("```") && !response.content.contains("def "), "\(response.content)")
        #expect(!response.content.isEmpty)
    }

    @Test func aCalledToolsOutputReachesTheAnswer() async throws {
        let session = LanguageModelSession(
            model: model, tools: [TemperatureTool()], instructions: "Help the person with getting weather information.")
        let response = try await session.respond(to: "What is the temperature in Tokyo?", options: greedy(60))
        let calls = response.transcriptEntries.compactMap { entry -> Transcript.ToolCalls? in
            if case .toolCalls(let calls) = entry { calls } else { nil }
        }
        #expect(calls.count == 1, "\(response.transcriptEntries)")
        #expect(try calls.first?.first.map { try $0.arguments.value(String.self, forProperty: "city") } == "Tokyo")
        #expect(response.content.contains("22"), "\(response.content)")
        #expect(!response.content.contains("{"))
    }

    @Test func aThrowingToolEndsInToolCallError() async throws {
        let session = LanguageModelSession(
            model: model, tools: [TemperatureTool(fails: true)], instructions: "Help the person with getting weather information.")
        let before = session.transcript
        await #expect {
            try await session.respond(to: "What is the temperature in Tokyo?", options: greedy(60))
        } throws: { error in
            guard let error = error as? LanguageModelSession.ToolCallError else { return false }
            return error.tool.name == "getTemperature"
        }
        #expect(session.transcript == before)
    }

    @Test func toolsDuringGuidedGenerationStillGiveAValidValue() async throws {
        let session = LanguageModelSession(model: model, tools: [TemperatureTool()])
        let response = try await session.respond(
            to: "Report the temperature in Tokyo.", generating: TemperatureReport.self, options: greedy(60))
        #expect(!response.content.city.isEmpty)
        // If the model chose to call the tool, its value is the one reported.
        if response.transcriptEntries.contains(where: { if case .toolCalls = $0 { true } else { false } }) {
            #expect(response.content.celsius == 22)
        }
    }

    @Test func structuredOutputStreamsSnapshotsThatGrow() async throws {
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(to: "Invent a pet.", generating: Pet.self, options: greedy(40))
        var snapshots: [Pet.PartiallyGenerated] = []
        for try await snapshot in stream { snapshots.append(snapshot.content) }
        let final = try await stream.collect().content
        #expect(snapshots.count >= 2)
        #expect(snapshots.last?.name == final.name && (0...30).contains(final.age))
    }

    @Test func aDynamicSchemaIsFollowed() async throws {
        let answers = ["a shadow", "an echo", "a candle", "a map"]
        let riddle = DynamicGenerationSchema(name: "Riddle", properties: [
            .init(name: "question", schema: DynamicGenerationSchema(type: String.self)),
            .init(name: "answer", schema: DynamicGenerationSchema(referenceTo: "Answer")),
        ])
        let schema = try GenerationSchema(root: riddle, dependencies: [DynamicGenerationSchema(name: "Answer", anyOf: answers)])
        let response = try await LanguageModelSession(model: model).respond(to: "Write a riddle.", schema: schema, options: greedy(80))
        #expect(answers.contains(try response.content.value(String.self, forProperty: "answer")))
        #expect(!(try response.content.value(String.self, forProperty: "question")).isEmpty)
    }

    @Test func aMultilingualPromptIsAnswered() async throws {
        // Qwen is multilingual; a Korean prompt must not be refused by language.
        let response = try await LanguageModelSession(model: model).respond(to: "안녕하세요! 한국어로 대답해 주세요.", options: greedy(8))
        #expect(!response.content.isEmpty)
    }
}

/// Qwen2.5-Coder-0.5B-Instruct, the package's default model, in this checkout.
let qwenModelURL = smolLM2URL.deletingLastPathComponent().appendingPathComponent("Qwen2.5-Coder-0.5B-Instruct.gguf")
/// Whether Qwen is installed.
let qwenIsInstalled = FileManager.default.fileExists(atPath: qwenModelURL.path)
/// Qwen, loaded once.
let qwenModel: SystemLanguageModel? = qwenIsInstalled ? try? SystemLanguageModel(contentsOf: qwenModelURL) : nil

/// A weather tool over fixed data.
struct TemperatureTool: Tool {
    let name = "getTemperature"
    let description = "Gets the current temperature of a city, in degrees Celsius"
    var fails = false

    struct Unreachable: Error {}

    func call(arguments: CityArguments) async throws -> String {
        if fails { throw Unreachable() }
        return "The temperature in \(arguments.city) is \(arguments.city == "Tokyo" ? 22 : 15) degrees Celsius."
    }
}

/// A report the model fills in, possibly after calling ``TemperatureTool``.
struct TemperatureReport: Generable {
    var city: String
    var celsius: Int

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: TemperatureReport.self, properties: [
            GenerationSchema.Property(name: "city", type: String.self),
            GenerationSchema.Property(name: "celsius", type: Int.self),
        ])
    }

    init(_ content: GeneratedContent) throws {
        city = try content.value(forProperty: "city")
        celsius = try content.value(forProperty: "celsius")
    }

    var generatedContent: GeneratedContent { GeneratedContent(properties: ["city": city, "celsius": celsius]) }
}
