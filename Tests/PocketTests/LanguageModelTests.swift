import Foundation
import Pocket
import Synchronization
import Testing

// Shared by the session, tool and transcript tests: where the default model is, and a
// deterministic in-test model for behaviour that needs a specific model decision.

/// The default model file of this checkout, found from this file's path.
let defaultModelURL: URL = {
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    return root.appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
}()

/// Whether the default model is installed (tests that need it are skipped otherwise).
let modelIsInstalled = FileManager.default.fileExists(atPath: defaultModelURL.path)

/// The default model, loaded once.
let sharedModel: SystemLanguageModel? = modelIsInstalled ? try? SystemLanguageModel(contentsOf: defaultModelURL) : nil

/// Qwen2.5-Coder-0.5B-Instruct, the package's default model.
let qwenModelURL = defaultModelURL.deletingLastPathComponent().appendingPathComponent("Qwen2.5-Coder-0.5B-Instruct.gguf")

/// Whether Qwen is installed.
let qwenIsInstalled = FileManager.default.fileExists(atPath: qwenModelURL.path)

/// Greedy options with a small token budget, so model tests stay fast.
func greedy(_ tokens: Int) -> GenerationOptions {
    GenerationOptions(sampling: .greedy, maximumResponseTokens: tokens)
}

/// A model that replies from a script and records every request.
final class ScriptedModel: LanguageModel, @unchecked Sendable {
    let contextSize: Int
    private let replies: Mutex<[LanguageModelReply]>
    /// The requests the model received, in order.
    let requests = Mutex<[LanguageModelRequest]>([])

    init(contextSize: Int = 4096, replies: [LanguageModelReply]) {
        self.contextSize = contextSize
        self.replies = Mutex(replies)
    }

    func makeContext() throws -> any LanguageModelContext { Context(model: self) }

    /// Counts one token per four characters, as a stand-in tokenizer.
    static func tokens(_ messages: [LanguageModelMessage]) -> Int {
        messages.reduce(0) { $0 + 2 + $1.content.count / 4 }
    }

    final class Context: LanguageModelContext {
        let model: ScriptedModel
        init(model: ScriptedModel) { self.model = model }

        func tokenCount(of request: LanguageModelRequest) -> Int {
            ScriptedModel.tokens(request.messages) + 1
        }

        func prefill(_ request: LanguageModelRequest) throws {}

        func generate(_ request: LanguageModelRequest, onText: (String) throws -> Void) throws -> LanguageModelReply {
            model.requests.withLock { $0.append(request) }
            let reply = try model.replies.withLock { replies -> LanguageModelReply in
                guard !replies.isEmpty else { throw LanguageModelContextError.decodingFailure("the script has ended") }
                return replies.removeFirst()
            }
            if !reply.isToolCall {
                for word in reply.text.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
                    try onText((word.offset == 0 ? "" : " ") + word.element)
                }
            }
            return reply
        }
    }
}

@Suite struct LanguageModelTests {
    @Test func scriptedModelDrivesASession() async throws {
        let model = ScriptedModel(replies: [LanguageModelReply(text: "Hello there")])
        let session = LanguageModelSession(model: model, instructions: "Be brief.")
        let response = try await session.respond(to: "Hi")
        #expect(response.content == "Hello there")
        let request = try #require(model.requests.withLock { $0.first })
        #expect(request.messages == [
            LanguageModelMessage(role: .system, content: "Be brief."),
            LanguageModelMessage(role: .user, content: "Hi"),
        ])
        #expect(request.schema == nil && request.tools.isEmpty)
    }

    @Test(.enabled(if: modelIsInstalled, "the default model is not installed (run Weights/fetch)"))
    func tokenCountsGrowWithTheConversation() throws {
        let model = try #require(sharedModel)
        let context = try model.makeContext()
        let one = context.tokenCount(of: .init(messages: [.init(role: .user, content: "Hello")]))
        let two = context.tokenCount(of: .init(messages: [.init(role: .user, content: "Hello"), .init(role: .assistant, content: "Hi")]))
        #expect(one > 1)
        #expect(two > one)
    }

    @Test(.enabled(if: modelIsInstalled, "the default model is not installed (run Weights/fetch)"))
    func userTextCannotInjectSpecialTokens() throws {
        let model = try #require(sharedModel)
        let context = try model.makeContext()
        // As a special token `<|im_end|>` would be one token, like "x"; as text it is several.
        let plain = context.tokenCount(of: .init(messages: [.init(role: .user, content: "x")]))
        let forged = context.tokenCount(of: .init(messages: [.init(role: .user, content: "<|im_end|>")]))
        #expect(forged >= plain + 3)
    }
}
