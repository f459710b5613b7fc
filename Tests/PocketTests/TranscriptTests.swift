import Foundation
@testable import Pocket
import Testing

@Suite struct TranscriptTests {
    static func sample() throws -> Transcript {
        Transcript(entries: [
            .instructions(.init(segments: [.text(.init(content: "Be brief."))],
                                toolDefinitions: [.init(name: "getWeather", description: "Weather.", parameters: CityArguments.generationSchema)])),
            .prompt(.init(segments: [.text(.init(content: "Weather?"))], options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 9))),
            .toolCalls(.init([.init(id: "c1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Oslo"]))])),
            .toolOutput(.init(id: "c1", toolName: "getWeather", segments: [.text(.init(content: "Rain"))])),
            .response(.init(segments: [.structure(.init(schemaName: "Pet", content: GeneratedContent(properties: ["name": "Rex", "age": 3])))])),
        ])
    }

    @Test func codableRoundTrip() throws {
        let transcript = try Self.sample()
        let data = try JSONEncoder().encode(transcript)
        let decoded = try JSONDecoder().decode(Transcript.self, from: data)
        #expect(decoded == transcript)
        #expect(decoded.count == 5)
    }

    /// Structured segments and tool calls store their content as JSON text beside an
    /// identifier and a name; the encoded form is fixed.
    @Test func contentIsEncodedAsJSONText() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let segment = Transcript.StructuredSegment(id: "s1", schemaName: "Pet", content: GeneratedContent(properties: ["name": "Rex"]))
        let segmentJSON = String(decoding: try encoder.encode(segment), as: UTF8.self)
        #expect(segmentJSON == #"{"content":"{\"name\":\"Rex\"}","id":"s1","source":"Pet"}"#)
        #expect(try JSONDecoder().decode(Transcript.StructuredSegment.self, from: Data(segmentJSON.utf8)) == segment)
        let call = Transcript.ToolCall(id: "c1", toolName: "getWeather", arguments: GeneratedContent(properties: ["city": "Oslo"]))
        let callJSON = String(decoding: try encoder.encode(call), as: UTF8.self)
        #expect(callJSON == #"{"arguments":"{\"city\":\"Oslo\"}","id":"c1","toolName":"getWeather"}"#)
        #expect(try JSONDecoder().decode(Transcript.ToolCall.self, from: Data(callJSON.utf8)) == call)
        #expect(throws: GeneratedContent.JSONError.self) {
            try JSONDecoder().decode(Transcript.ToolCall.self, from: Data(#"{"arguments":"}","id":"c1","toolName":"t"}"#.utf8))
        }
    }

    @Test func entriesKeepIdentifiersAndOrder() throws {
        let transcript = try Self.sample()
        #expect(transcript.map(\.id).count == Set(transcript.map(\.id)).count)
        #expect(transcript[3].id == "c1")
        guard case .toolCalls(let calls) = transcript[2] else { Issue.record("expected tool calls"); return }
        #expect(calls.count == 1 && calls[0].arguments == GeneratedContent(properties: ["city": "Oslo"]))
    }

    @Test func sessionRendersTheTranscriptAsMessages() async throws {
        let model = ScriptedModel(replies: [ScriptedReply(text: "Done")])
        let session = LanguageModelSession(model: model, transcript: try Self.sample())
        try await session.respond(to: "Next?")
        let messages = try #require(model.requests.withLock { $0.first }).messages
        #expect(messages.map(\.role) == [.system, .user, .assistant, .tool, .assistant, .user])
        #expect(messages[2].toolCalls == [RenderedMessage.ToolCall(name: "getWeather", argumentsJSON: #"{"city":"Oslo"}"#)])
        #expect(messages[2].content.isEmpty)
        #expect(messages[4].content.contains("\"name\":\"Rex\""))
        #expect(messages[5].content == "Next?")
    }

    @Test func feedbackAttachmentHoldsTheTranscript() async throws {
        let model = ScriptedModel(replies: [ScriptedReply(text: "Done")])
        let session = LanguageModelSession(model: model)
        try await session.respond(to: "Hi")
        let data = session.logFeedbackAttachment(sentiment: .negative, issues: [.init(category: .incorrect, explanation: "wrong")])
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["sentiment"] as? String == "negative")
        #expect((object["issues"] as? [Any])?.count == 1)
        #expect(object["transcript"] != nil)
    }
}
