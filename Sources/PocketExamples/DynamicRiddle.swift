import Pocket

/// A schema built at run time, e.g. from user configuration: a riddle with an answer chosen
/// from a list that is only known when the program runs.
enum DynamicRiddle {
    static func run() async throws {
        let answers = ["a shadow", "an echo", "a candle", "a map"]
        let answer = DynamicGenerationSchema(name: "Answer", anyOf: answers)
        let riddle = DynamicGenerationSchema(name: "Riddle", description: "A short riddle", properties: [
            .init(name: "question", description: "The riddle itself", schema: DynamicGenerationSchema(type: String.self)),
            .init(name: "answer", schema: DynamicGenerationSchema(referenceTo: "Answer")),
        ])
        let schema = try GenerationSchema(root: riddle, dependencies: [answer])
        let session = LanguageModelSession()
        let response = try await session.respond(
            to: "Write a riddle.", schema: schema, options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 100))
        let question = try response.content.value(String.self, forProperty: "question")
        let solution = try response.content.value(String.self, forProperty: "answer")
        print("Q: \(question)\nA: \(solution)")
    }
}
