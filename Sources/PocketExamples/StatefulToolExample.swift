import Pocket
import Synchronization

/// A tool with state: it hands out each contact once, so repeated calls in a session never
/// return the same person twice. Tools are `Sendable`, so the state sits behind a `Mutex`.
final class ContactPickerTool: Tool {
    let name = "pickContact"
    let description = "Picks a contact from the address book who has not been picked before"

    @Generable
    struct Arguments {
        @Guide(description: "What the contact is needed for")
        var reason: String
    }

    private let remaining = Mutex(["Ana Lima", "Bo Chen", "Chidi Okafor"])

    func call(arguments: Arguments) async throws -> String {
        let picked = remaining.withLock { names in names.isEmpty ? nil : names.removeFirst() }
        return picked.map { "Picked \($0) for: \(arguments.reason)" } ?? "Every contact has been picked already."
    }
}

enum StatefulToolExample {
    static func run() async throws {
        let tool = ContactPickerTool()
        let session = LanguageModelSession(tools: [tool], instructions: "Choose people only with the pickContact tool, then say in one sentence whom you picked.")
        let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 80)
        for request in ["Pick someone to invite to dinner.", "Pick someone else for the hike."] {
            let response = try await session.respond(to: request, options: options)
            for entry in response.transcriptEntries {
                if case .toolOutput(let output) = entry {
                    for case .text(let segment) in output.segments { print("  tool output: \(segment.content)") }
                }
            }
            print("> \(response.content)")
        }
        // Direct calls show the state the tool keeps between calls.
        print(try await tool.call(arguments: .init(reason: "a direct call")))
    }
}
