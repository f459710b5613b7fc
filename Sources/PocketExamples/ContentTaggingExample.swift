import Pocket

@Generable
struct ContentTaggingResult {
    @Guide(description: "Most important actions in the input text", .maximumCount(3))
    let actions: [String]

    @Guide(description: "Most important emotions in the input text", .maximumCount(3))
    let emotions: [String]

    @Guide(description: "Most important topics in the input text", .maximumCount(3))
    let topics: [String]
}

/// The content-tagging use case: short tags extracted from a text.
enum ContentTaggingExample {
    static func run() async throws {
        let model = SystemLanguageModel(useCase: .contentTagging)
        let session = LanguageModelSession(model: model, instructions: "Tag the text with short words.")
        let text = "We hiked to the lake at dawn, swam in the cold water and laughed all the way home."
        let response = try await session.respond(
            to: text, generating: ContentTaggingResult.self, 
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 120))
        let tags = response.content
        print("actions: \(tags.actions)\nemotions: \(tags.emotions)\ntopics: \(tags.topics)")
    }
}
