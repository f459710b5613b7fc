import Foundation
import FoundationModels
import Testing

/// The WWDC26-style program, run: what it computes on Pocket.
@Suite struct WWDC26ProgramTests {
    @Test func theProviderAnswersWithReasoningAndUsage() async throws {
        let (answer, reasoning, usage) = try await askWithReasoning(MyLanguageModel())
        #expect(answer == "Hello at temperature 0.0.")
        #expect(reasoning == "Thinking at level light.")
        #expect(usage.output.totalTokenCount == 9 && usage.output.reasoningTokenCount == 5)
        #expect(usage.input.totalTokenCount == 1)
    }

    @Test func theAppFallsBackFromPrivateCloudCompute() {
        #expect(preferredModel() is SystemLanguageModel)
        #expect(canUseCloud())
    }

    @Test func modesAndErrorsReadAsTheAppExpects() async throws {
        #expect(describe(.greedy) == "greedy")
        #expect(describe(.random(probabilityThreshold: 0.9, seed: 7)) == "top-p 0.9 seed 7")
        #expect(toolOptions(mustCall: true).toolCallingMode == .required)
        #expect(message(for: LanguageModelSession.Error.concurrentRequests) == "Wait for the current answer.")
        #expect(message(for: LanguageModelError.contextSizeExceeded(.init(contextSize: 4096, tokenCount: 5000, debugDescription: "")))
            == "The conversation is too long (5000 of 4096 tokens).")
        // The on-device model has no reasoning: a level is refused with Apple's error.
        let session = LanguageModelSession(model: SystemLanguageModel(useCase: .general))
        do {
            _ = try await session.respond(to: "Hi", contextOptions: ContextOptions(reasoningLevel: .deep))
            Issue.record("a reasoning level was accepted by a model without reasoning")
        } catch {
            #expect(message(for: error).hasPrefix("This model can't do that"))
        }
    }

    @Test func transcriptsAndPromptsKeep27Shapes() async throws {
        let transcript = sampleTranscript()
        let decoded = try JSONDecoder().decode(Transcript.self, from: JSONEncoder().encode(transcript))
        #expect(decoded == transcript)
        #expect(responseMetadata(in: decoded) == [["modelID": GeneratedContent("my-model")]])

        // A model without vision refuses an image, before it runs.
        let textOnly = LanguageModelSession(model: MyLanguageModel())
        do {
            _ = try await textOnly.respond(to: captionPrompt(for: URL(fileURLWithPath: "/tmp/cat.png")))
            Issue.record("a text-only model accepted an image")
        } catch LanguageModelError.unsupportedCapability(let info) {
            #expect(info.capability == .vision)
        }
        #expect(textOnly.transcript.isEmpty)

        let session = LanguageModelSession(model: MyLanguageModel(seesImages: true))
        _ = try await session.respond(to: captionPrompt(for: URL(fileURLWithPath: "/tmp/cat.png")))
        guard case .prompt(let prompt) = session.transcript.first, case .attachment(let image) = prompt.segments.last else {
            Issue.record("the prompt entry has no attachment: \(session.transcript)"); return
        }
        #expect(image.label == "photo-1")
        #expect(image.content == .image(Transcript.ImageAttachment(url: URL(fileURLWithPath: "/tmp/cat.png"))))
        #expect(session.transcript.first?.description.contains("Write a caption for this photo:") == true)
        guard case .response(let response) = session.transcript.last else { Issue.record("no response"); return }
        #expect(response.metadata["modelID"] == GeneratedContent("my-model-2026-06-08"))
    }

    @Test func theCraftProfileSwitchesModelAndOptionsBetweenPhases() async throws {
        let orchestrator = CraftOrchestrator(
            onDeviceModel: MyLanguageModel(modelID: "on-device"), pccLanguageModel: MyLanguageModel(modelID: "cloud"))
        orchestrator.techniques = [.origami]
        let session = try await runCraftSession(orchestrator: orchestrator)
        let responses = session.transcript.compactMap { entry -> Transcript.Response? in
            if case .response(let response) = entry { return response }
            return nil
        }
        #expect(responses.map { $0.metadata["modelID"] } == [GeneratedContent("cloud"), GeneratedContent("on-device")])
        // Brainstorming asked for temperature 1; reviewing left it to the model (1 here too),
        // and its instructions are the coach's.
        #expect(responses.first?.segments.description.contains("temperature 1.0") == true)
        guard case .instructions = session.transcript.first else { Issue.record("no instructions"); return }
        #expect(session.transcript.first?.description.contains("review finished projects") == true)
    }

    @Test func sessionPropertiesCompactTheHistory() async throws {
        let counter = ResponseCounter()
        let session = LanguageModelSession(profile: CompactingProfile(counter: counter).model(MyLanguageModel()))
        for turn in 1...3 { _ = try await session.respond(to: "Turn \(turn)") }
        #expect(counter.value == 3)
        #expect(session.transcript.count <= 5)
    }

    @Test func aSessionPropertyEntrySwitchesTheProfile() async throws {
        let session = LanguageModelSession(profile: TutorProfile().model(MyLanguageModel()))
        #expect(session.properties.isExamMode == false)
        let explained = try await session.respond(to: "What is 3 × 4?")
        #expect(session.transcript.first?.description.contains("Explain each step.") == true)
        session.properties.isExamMode = true
        let quizzed = try await session.respond(to: "Test me.")
        #expect(session.transcript.first?.description.contains("Quiz the student") == true)
        #expect(explained.content == "Hello at temperature 1.0." && quizzed.content == "Hello at temperature 0.2.")
    }

    @Test func hooksModifiersAndDynamicInstructionsRun() async throws {
        let log = HookLog()
        let session = LanguageModelSession(profile: observedProfile(log: log, model: MyLanguageModel()))
        let answer = try await session.respond(to: "Hi")
        // The custom modifier asked for greedy sampling: the provider answers at temperature 0.
        #expect(answer.content == "Hello at temperature 0.0.")
        #expect(log.all == ["activate", "prompt", "response"])

        let formal = instructedSession(model: MyLanguageModel(), formal: true)
        _ = try await formal.respond(to: "Hello")
        #expect(formal.transcript.first?.description.contains("formal register") == true)
    }

    @Test func explicitNilAndSchemaNames() throws {
        #expect(Novel(title: "Dune", subtitle: nil).generatedContent.jsonString == #"{"title":"Dune","subtitle":null}"#)
        #expect(BookRecord(title: "Emma", isbn: nil).generatedContent.jsonString == #"{"title":"Emma"}"#)
        #expect(BookRecord.generationSchema.name == "Book")
        let (direct, dynamic) = try nullableSchemas()
        let json = try JSONEncoder().encode(direct)
        #expect(String(decoding: json, as: UTF8.self).contains("null"))
        #expect(try JSONDecoder().decode(GenerationSchema.self, from: json).jsonSchemaString() == direct.jsonSchemaString())
        #expect(String(decoding: try JSONEncoder().encode(dynamic), as: UTF8.self).contains("null"))
    }

    @Test func handBuiltValuesKeepApplesShapes() async throws {
        #expect(handBuiltValues() == [
            "schema Novel", "describe", #"{"title":"Dune","subtitle":null}"#, "[image: p]", "true", "Novel", "allowed", "true",
        ])
        let refusal = LanguageModelSession.GenerationError.Refusal(transcriptEntries: [])
        #expect(try await explain(refusal) == "The model declined to respond to this request.")
        let tool = DescribePhotoTool()
        #expect(try await tool.call(arguments: .init(image: ImageReference(attachmentLabel: "p-1"))) == "photo p-1")
    }
}
