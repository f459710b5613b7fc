import Foundation
import Pocket
import Testing

/// A hand-written Generable type, shaped as the @Generable macro generates them.
struct Pet: Generable, Equatable {
    var name: String
    var age: Int

    static var generationSchema: GenerationSchema {
        GenerationSchema(type: Pet.self, description: "A pet", properties: [
            GenerationSchema.Property(name: "name", description: "The pet's name", type: String.self),
            GenerationSchema.Property(name: "age", description: "Age in years", type: Int.self, guides: [.range(0...30)]),
        ])
    }

    init(name: String, age: Int) {
        self.name = name
        self.age = age
    }

    init(_ content: GeneratedContent) throws {
        name = try content.value(forProperty: "name")
        age = try content.value(forProperty: "age")
    }

    var generatedContent: GeneratedContent { GeneratedContent(properties: ["name": name, "age": age]) }

    struct PartiallyGenerated: ConvertibleFromGeneratedContent {
        var name: String?
        var age: Int?

        init(_ content: GeneratedContent) throws {
            name = try content.value(forProperty: "name")
            age = try content.value(forProperty: "age")
        }
    }
}

/// Structured output on the real small test model, SmolLM2: the grammar guarantees a valid value
/// whatever the model would have preferred to write.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct SessionStructuredOutputTests {
    let model: SystemLanguageModel

    init() throws { model = try #require(smolLM2Model) }

    @Test func respondGeneratingReturnsAValidValue() async throws {
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(to: "Invent a pet.", generating: Pet.self, options: greedy(40))
        #expect((0...30).contains(response.content.age))
        #expect(try Pet(response.rawContent) == response.content)
        guard case .response(let entry)? = session.transcript.last, case .structure(let segment)? = entry.segments.first else {
            Issue.record("the response is not a structured segment: \(session.transcript)")
            return
        }
        #expect(segment.content == response.rawContent)
        #expect(segment.schemaName == "Pet")
        guard case .prompt(let prompt)? = session.transcript.first else { Issue.record("no prompt entry"); return }
        #expect(prompt.responseFormat?.name == "Pet")
        // The schema shown in the prompt is part of the transcript's rendering, so the next turn
        // reuses the whole previous turn from the cache.
        let first = response.usage.inputTokens + response.usage.cachedTokens
        let next = try await session.respond(to: "Another one.", generating: Pet.self, options: greedy(40))
        #expect(next.usage.cachedTokens >= first)
    }

    @Test func respondWithSchemaWorksWithoutTheSchemaInThePrompt() async throws {
        let session = LanguageModelSession(model: model)
        let response = try await session.respond(
            to: "Invent a pet.", schema: Pet.generationSchema, includeSchemaInPrompt: false, options: greedy(40))
        let pet = try Pet(response.content)
        #expect((0...30).contains(pet.age))
    }

    @Test func streamedPartialValuesOnlyGrow() async throws {
        let session = LanguageModelSession(model: model)
        let stream = session.streamResponse(to: "Invent a pet.", generating: Pet.self, options: greedy(40))
        var snapshots: [Pet.PartiallyGenerated] = []
        for try await snapshot in stream { snapshots.append(snapshot.content) }
        let final = try await stream.collect().content
        #expect(!snapshots.isEmpty)
        for (a, b) in zip(snapshots, snapshots.dropFirst()) {
            if let name = a.name { #expect(b.name?.hasPrefix(name) == true) }
            if a.age != nil { #expect(b.age != nil) }
        }
        #expect(snapshots.last?.name == final.name)
        #expect(snapshots.last?.age == final.age)
    }

    @Test func tooFewTokensForTheValueIsADecodingFailure() async throws {
        let session = LanguageModelSession(model: model)
        await #expect {
            try await session.respond(to: "Invent a pet.", generating: Pet.self, options: greedy(2))
        } throws: { error in
            guard case LanguageModelSession.GenerationError.decodingFailure = error else { return false }
            return true
        }
        #expect(session.transcript.isEmpty)
    }
}
