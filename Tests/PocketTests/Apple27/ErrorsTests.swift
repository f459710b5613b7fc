import Foundation
@testable import Pocket
import Testing

// The errors Apple's 27 SDK throws instead of the deprecated `GenerationError`, caught the way
// Apple's documentation catches them, and the transcript entry's 27 metadata.

@Suite struct ErrorsTests {
    @Test func aMissingModelFileIsSystemLanguageModelAssetsUnavailable() async throws {
        let model = SystemLanguageModel(url: URL(fileURLWithPath: "/nonexistent/model.gguf"))
        let session = LanguageModelSession(model: model)
        do {
            _ = try await session.respond(to: "Hello")
            Issue.record("a session on a missing file answered")
        } catch SystemLanguageModel.Error.assetsUnavailable(let info) {
            #expect(info.debugDescription.contains("/nonexistent/model.gguf"))
            let error = SystemLanguageModel.Error.assetsUnavailable(info)
            #expect(error.errorDescription?.hasPrefix("The model is unavailable.") == true)
            #expect(error.recoverySuggestion?.contains("Weights/fetch") == true)
        }
        #expect(session.transcript.isEmpty)
    }

    @Test func sessionErrorsAreHashableAndReadable() {
        let errors: Set<LanguageModelSession.Error> = [.concurrentRequests, .transcriptMutationWhileResponding, .concurrentRequests]
        #expect(errors.count == 2)
        #expect(LanguageModelSession.Error.concurrentRequests.errorDescription == "The session is already responding.")
        #expect(LanguageModelSession.Error.transcriptMutationWhileResponding.recoverySuggestion?.contains("isResponding") == true)
        #expect(LanguageModelSession.Error.concurrentRequests.localizedDescription == "The session is already responding.")
    }

    @Test func languageModelErrorsReadAsSentences() {
        let full = LanguageModelError.contextSizeExceeded(.init(contextSize: 64, tokenCount: 80, debugDescription: "80 tokens in a 64-token window"))
        #expect(full.errorDescription == "The conversation exceeds the model's context window. 80 tokens in a 64-token window")
        #expect(full.recoverySuggestion?.contains("shorter") == true)
        #expect(full.debugDescription == "contextSizeExceeded: 80 tokens in a 64-token window")
        #expect(LanguageModelError.guardrailViolation(.init(debugDescription: "")).errorDescription == "The request was rejected by a guardrail.")
    }

    @Test func anUnenforceableSchemaIsAnUnsupportedGenerationGuide() async throws {
        let model = try #require(smolLM2Model, "SmolLM2 is not installed (run Weights/fetch)")
        // A pattern the grammar sampler cannot compile: a lookahead.
        let schema = try GenerationSchema(root: DynamicGenerationSchema(
            name: "Code", properties: [.init(name: "code", schema: DynamicGenerationSchema(type: String.self, guides: [.pattern(#/(?=a)b/#)]))]),
            dependencies: [])
        await #expect {
            try await LanguageModelSession(model: model).respond(to: "Give me a code.", schema: schema, options: greedy(8))
        } throws: { error in
            guard case LanguageModelError.unsupportedGenerationGuide = error else { return false }
            return true
        }
    }

    /// Replacing the transcript while a request runs fails that request with Apple's 27 error;
    /// the replacement stands and the request adds nothing to it.
    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func replacingTheTranscriptWhileRespondingFailsTheRequest() async throws {
        let model = try #require(smolLM2Model)
        let session = LanguageModelSession(model: model, instructions: "Be brief.")
        let request = Task { try await session.respond(to: "Tell me a long story about a dragon.", options: greedy(60)) }
        while !session.isResponding { await Task.yield() }
        let replacement = Transcript(entries: [.instructions(.init(segments: [.text(.init(content: "Be verbose."))], toolDefinitions: []))])
        session.transcript = replacement
        await #expect {
            try await request.value
        } throws: { error in
            (error as? LanguageModelSession.Error) == .transcriptMutationWhileResponding
        }
        #expect(session.transcript == replacement)
        #expect(!session.isResponding)
        // The next request continues the replacement.
        _ = try await session.respond(to: "Hi", options: greedy(2))
        #expect(session.transcript.count == 3)
        guard case .instructions(let instructions) = session.transcript[0] else { Issue.record("no instructions"); return }
        #expect(instructions.segments.text == "Be verbose.")
    }

    /// Pocket's models read text: an image in the prompt is refused with Apple's error.
    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func anImageForATextModelIsAnUnsupportedCapability() async throws {
        let session = LanguageModelSession(model: try #require(smolLM2Model))
        await #expect {
            try await session.respond(options: greedy(4)) {
                "What is in this picture?"
                Attachment(imageURL: URL(fileURLWithPath: "/tmp/picture.png")).label("picture")
            }
        } throws: { error in
            guard case LanguageModelError.unsupportedCapability(let info) = error else { return false }
            return info.capability == .vision
        }
        #expect(session.transcript.isEmpty)
    }

    // MARK: Transcript.Response.metadata

    @Test func responseMetadataRoundTrips() throws {
        let response = Transcript.Response(id: "r", metadata: ["tokensPerSecond": 41.5, "engine": "pocket"], segments: [.text(.init(content: "Hi"))])
        #expect(response.metadata["engine"] == GeneratedContent("pocket"))
        #expect(response.assetIDs.isEmpty)
        let transcript = Transcript(entries: [.response(response)])
        let decoded = try JSONDecoder().decode(Transcript.self, from: JSONEncoder().encode(transcript))
        #expect(decoded == transcript)
        guard case .response(let back) = decoded[0] else { Issue.record("not a response"); return }
        #expect(back.metadata["tokensPerSecond"] == GeneratedContent(kind: .number(41.5)))
    }

    /// Pocket's engine reports its timings as metadata; the response entry carries them.
    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func theEnginesTimingsAreTheResponseEntrysMetadata() async throws {
        let session = LanguageModelSession(model: try #require(smolLM2Model))
        let response = try await session.respond(to: "Say hello.", options: greedy(6))
        guard case .response(let entry) = session.transcript.last else { Issue.record("no response entry"); return }
        guard case .number(let rate) = entry.metadata[SystemLanguageModel.Executor.tokensPerSecondKey]?.kind,
              case .number(let seconds) = entry.metadata[SystemLanguageModel.Executor.timeToFirstTokenKey]?.kind
        else { Issue.record("no timing metadata: \(entry.metadata)"); return }
        #expect(rate > 0 && seconds > 0)
        #expect(abs(response.usage.tokensPerSecond - rate) < 1e-6)
    }

    @Test func responsesSavedBefore27DecodeWithNoMetadata() throws {
        let plain = Transcript.Response(id: "r", assetIDs: ["a"], segments: [.text(.init(content: "Hi"))])
        let json = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!json.contains("metadata"))
        let decoded = try JSONDecoder().decode(Transcript.Response.self, from: Data(json.utf8))
        #expect(decoded == plain && decoded.metadata.isEmpty)
    }
}
