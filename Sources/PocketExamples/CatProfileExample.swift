import Pocket

@Generable(description: "Basic profile information about a cat")
struct CatProfile {
    // A guide isn't necessary for basic fields.
    var name: String

    @Guide(description: "The age of the cat", .range(0...20))
    var age: Int

    @Guide(description: "A one sentence profile about the cat's personality")
    var profile: String
}

/// Structured output: the response is a `CatProfile`, whatever the model would have written.
enum CatProfileExample {
    static func run() async throws {
        let session = LanguageModelSession()
        let response = try await session.respond(
            to: "Generate a cute rescue cat", generating: CatProfile.self,
            // The grammar enforces the schema either way; a 135M model writes better values
            // when the JSON Schema text is not in its prompt.
            
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 120))
        let cat = response.content
        print("name: \(cat.name)\nage: \(cat.age)\nprofile: \(cat.profile)")
        print("[\(response.usage)]")
    }
}
