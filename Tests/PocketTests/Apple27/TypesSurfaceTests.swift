import Foundation
@testable import Pocket
import Testing

// Code written for Apple's FoundationModels 27, spelled the way Apple's documentation writes
// it, with assertions on what Pocket does with it.

@Generable struct PhotoToolArguments {
    var image: ImageReference
}

@Suite struct TypesSurfaceTests {
    // MARK: Private Cloud Compute

    @Test func privateCloudComputeIsUnavailableWithAReason() {
        let model = PrivateCloudComputeLanguageModel()
        guard case .unavailable(let reason) = model.availability else {
            Issue.record("Private Cloud Compute reported available")
            return
        }
        #expect(reason == .deviceNotEligible)
        #expect(reason.description.contains("SystemLanguageModel.default"))
        #expect(!model.isAvailable)
        #expect(model.capabilities.contains(.guidedGeneration))
    }

    @Test func quotaUsageIsBelowTheLimit() {
        let usage = PrivateCloudComputeLanguageModel().quotaUsage
        #expect(!usage.isLimitReached)
        #expect(usage.resetDate == nil)
        #expect(usage.limitIncreaseSuggestion == nil)
        guard case .belowLimit(let details) = usage.status else {
            Issue.record("quota status is not belowLimit")
            return
        }
        #expect(!details.isApproachingLimit)
    }

    /// An app that picks the cloud model when it is available and falls back otherwise
    /// compiles, and a session on the cloud model fails with Apple's typed error.
    @Test func sessionOnPrivateCloudComputeThrowsServiceUnavailable() async throws {
        let cloud = PrivateCloudComputeLanguageModel()
        let model: any LanguageModel = cloud.isAvailable ? cloud : CannedTextModel(text: "local answer")
        #expect(try await LanguageModelSession(model: model).respond(to: "Hi").content == "local answer")

        let session = LanguageModelSession(model: PrivateCloudComputeLanguageModel(), instructions: "Be brief.")
        let before = session.transcript
        do {
            _ = try await session.respond(to: "Analyze this document...")
            Issue.record("a request to Private Cloud Compute succeeded")
        } catch PrivateCloudComputeLanguageModel.Error.serviceUnavailable(let info) {
            #expect(info.debugDescription.contains("not available in Pocket"))
        }
        #expect(session.transcript == before)

        let error = PrivateCloudComputeLanguageModel.Error.quotaLimitReached(
            .init(limitIncreaseSuggestion: nil, resetDate: Date(timeIntervalSince1970: 0), debugDescription: "daily limit"))
        #expect(error.debugDescription == "quotaLimitReached: daily limit")
        #expect(PrivateCloudComputeLanguageModel.Error.networkFailure(.init(debugDescription: "offline")).localizedDescription
            .contains("networkFailure: offline"))
    }

    // MARK: Capabilities

    struct MyLanguageModel: LanguageModel {
        struct Executor: LanguageModelExecutor {
            typealias Model = MyLanguageModel
            struct Configuration: Hashable, Sendable {}
            init(configuration: Configuration) {}
            func respond(
                to request: LanguageModelExecutorGenerationRequest, model: MyLanguageModel,
                streamingInto channel: LanguageModelExecutorGenerationChannel
            ) async throws {}
        }
        var capabilities: LanguageModelCapabilities {
            LanguageModelCapabilities([
                .toolCalling,
                .guidedGeneration,
                .reasoning,
            ])
        }
        var executorConfiguration: Executor.Configuration { .init() }
    }

    @Test func capabilitiesUseTheUnlabeledInitializer() {
        let capabilities = MyLanguageModel().capabilities
        #expect(capabilities.contains(.toolCalling) && capabilities.contains(.guidedGeneration) && capabilities.contains(.reasoning))
        #expect(!capabilities.contains(.vision))
        #expect(SystemLanguageModel.default.capabilities == LanguageModelCapabilities([.guidedGeneration, .toolCalling]))
    }

    @available(*, deprecated)
    @Test func deprecatedCapabilitiesInitializerStillWorks() {
        #expect(LanguageModelCapabilities(capabilities: [.vision]) == LanguageModelCapabilities([.vision]))
        #expect(LanguageModelCapabilities() == LanguageModelCapabilities([]))
    }

    // MARK: Errors

    @Test func errorShapes() {
        let reset = Date(timeIntervalSince1970: 1_800_000_000)
        let rateLimited = LanguageModelError.rateLimited(.init(resetDate: reset, debugDescription: "slow down"))
        guard case .rateLimited(let info) = rateLimited else { Issue.record("wrong case"); return }
        #expect(info.resetDate == reset)
        #expect(LanguageModelError.RateLimited(debugDescription: "x").resetDate == nil)

        let guide = LanguageModelError.UnsupportedGenerationGuide(schemaName: "Itinerary", debugDescription: "lookahead in a pattern")
        #expect(guide.schemaName == "Itinerary")
        #expect(LanguageModelError.UnsupportedGenerationGuide(debugDescription: "x").schemaName == nil)

        let assets = SystemLanguageModel.Error.assetsUnavailable(.init(debugDescription: "no GGUF file"))
        #expect(assets.debugDescription == "assetsUnavailable: no GGUF file")
        do {
            throw assets
        } catch SystemLanguageModel.Error.assetsUnavailable(let info) {
            #expect(info.debugDescription == "no GGUF file")
        } catch {
            Issue.record("not caught as SystemLanguageModel.Error: \(error)")
        }
    }

    @Test func refusalExplanations() async throws {
        let refusal = LanguageModelSession.GenerationError.Refusal(transcriptEntries: [
            .prompt(.init(segments: [.text(.init(content: "Tell me a secret."))])),
            .response(.init(segments: [.text(.init(content: "I can't share that."))])),
        ])
        #expect(try await refusal.explanation.content == "I can't share that.")
        #expect(try await refusal.explanationStream.collect().content == "I can't share that.")
        let bare = LanguageModelSession.GenerationError.Refusal(transcriptEntries: [])
        #expect(try await bare.explanation.content == "The model declined to respond to this request.")

        let providerRefusal = LanguageModelError.Refusal(explanation: "Out of scope.", debugDescription: "policy")
        #expect(try await providerRefusal.explanation.content == "Out of scope.")
        var last = ""
        for try await snapshot in providerRefusal.explanationStream { last = snapshot.content }
        #expect(last == "Out of scope.")
        #expect(try await LanguageModelError.Refusal(debugDescription: "policy").explanation.content == "policy")
    }

    // MARK: Transcript

    static func transcriptWithReasoningAndAttachment() -> Transcript {
        let photo = Transcript.ImageAttachment(url: URL(fileURLWithPath: "/tmp/photo.png"))
        return Transcript(entries: [
            .prompt(.init(segments: [
                .text(.init(content: "Describe this image:")),
                .attachment(.init(content: .image(photo), label: "photo-1")),
                .attachment(.init(id: "a2", content: .image(Transcript.ImageAttachment(data: Data([0x89, 0x50])))))
            ])),
            .reasoning(.init(
                id: "r1", metadata: ["effort": "low", "steps": 2],
                segments: [.text(.init(content: "The user wants a description."))], signature: Data([1, 2, 3]))),
            .response(.init(segments: [.structure(.init(schemaName: "Caption", content: GeneratedContent(properties: ["text": "A cat"])))])),
        ])
    }

    @Test func transcriptWithReasoningAndAttachmentsRoundTrips() throws {
        let transcript = Self.transcriptWithReasoningAndAttachment()
        let decoded = try JSONDecoder().decode(Transcript.self, from: JSONEncoder().encode(transcript))
        #expect(decoded == transcript)
        guard case .reasoning(let reasoning) = decoded[1] else { Issue.record("entry 1 is not reasoning"); return }
        #expect(reasoning.id == "r1")
        #expect(reasoning.signature == Data([1, 2, 3]))
        #expect(reasoning.metadata["steps"] == GeneratedContent(kind: .number(2)))
        #expect(reasoning.description == "The user wants a description.")
        #expect(decoded[1].description == "Reasoning: The user wants a description.")
        guard case .prompt(let prompt) = decoded[0], case .attachment(let attachment) = prompt.segments[1] else {
            Issue.record("no attachment segment"); return
        }
        #expect(attachment.label == "photo-1")
        #expect(attachment.content == .image(Transcript.ImageAttachment(url: URL(fileURLWithPath: "/tmp/photo.png"))))
        #expect(prompt.segments.map(\.description) == ["Describe this image:", "[image: photo-1]", "[image]"])
    }

    /// Pocket's models read text: reasoning entries are left out of the rendered conversation
    /// and attachments become their placeholder.
    @Test func renderingSkipsReasoningAndShowsAttachmentLabels() {
        let messages = RenderedRequest.messages(from: Self.transcriptWithReasoningAndAttachment())
        #expect(messages.map(\.role) == [.user, .assistant])
        #expect(messages[0].content == "Describe this image:\n[image: photo-1]\n[image]")
        #expect(messages[1].content == #"{"text":"A cat"}"#)
    }

    @Test func attachmentsInPromptsAndImageReferences() throws {
        let first = URL(fileURLWithPath: "/tmp/first.png")
        let prompt = Prompt {
            "Compare these two images:"
            Attachment(imageURL: first)
                .label("image-0")
            Attachment(imageURL: URL(fileURLWithPath: "/tmp/second.png"))
                .label("image-1")
        }
        #expect(prompt.segments == ["Compare these two images:", "[image: image-0]", "[image: image-1]"])
        #expect(Attachment(imageURL: first).label == nil)

        let arguments = try PhotoToolArguments(GeneratedContent(json: #"{"image": {"attachmentLabel": "photo-1"}}"#))
        #expect(arguments.image.attachmentLabel == "photo-1")
        #expect(arguments.image.resolved(in: Self.transcriptWithReasoningAndAttachment())?.url == URL(fileURLWithPath: "/tmp/photo.png"))
        #expect(ImageReference(attachmentLabel: "nope").resolved(in: Self.transcriptWithReasoningAndAttachment()) == nil)
        #expect(try ImageReference.generationSchema.jsonSchemaString().contains(#""attachmentLabel""#))
    }

    @Test func structuredSegmentSchemaNameAndDeprecatedSource() throws {
        let segment = Transcript.StructuredSegment(schemaName: "Pet", content: GeneratedContent(properties: ["name": "Rex"]))
        #expect(segment.schemaName == "Pet")
        #expect(Transcript.Segment.structure(segment).description == #"{"name":"Rex"}"#)
        #expect(Transcript.Segment.text(.init(content: "plain")).description == "plain")
        #expect(Self.deprecatedSource(of: segment) == "Pet")
    }

    @available(*, deprecated)
    static func deprecatedSource(of segment: Transcript.StructuredSegment) -> String {
        var copy = Transcript.StructuredSegment(id: segment.id, source: segment.source, content: segment.content)
        copy.source = "Renamed"
        #expect(copy.schemaName == "Renamed")
        return segment.source
    }

    @Test func responseFormatKind() throws {
        let format = Transcript.ResponseFormat(type: PhotoToolArguments.self)
        guard case .schema(let schema) = format.kind else { Issue.record("not a schema format"); return }
        #expect(try schema.jsonSchemaString() == PhotoToolArguments.generationSchema.jsonSchemaString())
    }

    // MARK: Tool definitions

    @Test func toolDefinitionsDoNotThrow() throws {
        let good = Transcript.ToolDefinition(name: "find", description: "Finds.", parameters: PhotoToolArguments.generationSchema)
        #expect(good.parametersError == nil)
        #expect(good.parametersJSON == (try PhotoToolArguments.generationSchema.jsonSchemaString()))

        let duplicate = GenerationSchema(type: PhotoToolArguments.self, properties: [
            GenerationSchema.Property(name: "a", type: String.self),
            GenerationSchema.Property(name: "a", type: Int.self),
        ])
        let broken = Transcript.ToolDefinition(name: "broken", description: "Has a duplicate property.", parameters: duplicate)
        #expect(broken.parametersJSON == "{}")
        #expect(broken.parametersError?.contains("a") == true)
    }
}
