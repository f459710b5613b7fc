// Code written for Apple's FoundationModels, run on a model file named on the command line.
import Foundation
import FoundationModels

guard CommandLine.arguments.count == 2 else {
    FileHandle.standardError.write(Data("usage: Consumer MODEL.gguf\n".utf8))
    exit(2)
}
let model = try SystemLanguageModel(contentsOf: URL(fileURLWithPath: CommandLine.arguments[1]))
guard model.isAvailable else {
    FileHandle.standardError.write(Data("the model is unavailable: \(model.availability)\n".utf8))
    exit(1)
}
let session = LanguageModelSession(model: model, instructions: "Answer in one short sentence.")
let response = try await session.respond(
    to: "What colour is the sky on a clear day?", options: GenerationOptions(sampling: .greedy, maximumResponseTokens: 24))
let answer = response.content.trimmingCharacters(in: .whitespacesAndNewlines)
guard !answer.isEmpty else {
    FileHandle.standardError.write(Data("the answer is empty\n".utf8))
    exit(1)
}
print(answer)
