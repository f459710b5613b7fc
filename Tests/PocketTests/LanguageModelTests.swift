import Foundation
@testable import Pocket
import Synchronization
import Testing

// Shared by the session, tool and transcript tests: where the small test model (SmolLM2) is,
// and a deterministic in-test model for behaviour that needs a specific model decision. The
// package's default model, Qwen, is in `DefaultModelSessionTests.swift`.

/// SmolLM2-135M-Instruct, the small test model of this checkout (not the package's default
/// model, Qwen: most tests use SmolLM2 because it is faster), found from this file's path.
let smolLM2URL: URL = {
    var root = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { root.deleteLastPathComponent() }
    return root.appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
}()

/// Whether SmolLM2 is installed (tests that need it are skipped otherwise).
let smolLM2IsInstalled = FileManager.default.fileExists(atPath: smolLM2URL.path)

/// SmolLM2, loaded once.
let smolLM2Model: SystemLanguageModel? = smolLM2IsInstalled ? try? SystemLanguageModel(contentsOf: smolLM2URL) : nil

/// Greedy options with a small token budget, so model tests stay fast.
func greedy(_ tokens: Int) -> GenerationOptions {
    GenerationOptions(samplingMode: .greedy, maximumResponseTokens: tokens)
}

/// One reply of a ``ScriptedModel``: text, or tool calls as JSON (one `{"name": …,
/// "arguments": …}` object or an array of them).
struct ScriptedReply: Sendable {
    var text: String
    var isToolCall = false
}

extension LanguageModelExecutorGenerationRequest {
    /// The transcript as Pocket's engine renders it (for checking what a model was sent).
    var messages: [RenderedMessage] { RenderedRequest.messages(from: transcript) }
    /// The enabled tools as Pocket's engine renders them.
    var tools: [RenderedToolDefinition] { enabledToolDefinitions.map(RenderedToolDefinition.init) }
}

/// A model that replies from a script and records every request: a `LanguageModel` and
/// `LanguageModelExecutor` pair, as any provider writes it.
final class ScriptedModel: LanguageModel, Sendable {
    typealias Executor = ScriptedExecutor

    private let replies: Mutex<[ScriptedReply]>
    /// The requests the model received, in order.
    let requests = Mutex<[LanguageModelExecutorGenerationRequest]>([])
    var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([.guidedGeneration, .toolCalling]) }
    var executorConfiguration: ScriptedExecutor.Configuration { .init() }

    init(replies: [ScriptedReply]) {
        self.replies = Mutex(replies)
    }

    /// The next reply of the script.
    func nextReply() throws -> ScriptedReply {
        try replies.withLock { replies in
            guard !replies.isEmpty else { throw ScriptedExecutor.ScriptEnded() }
            return replies.removeFirst()
        }
    }
}

/// Streams a ``ScriptedModel``'s next reply: text word by word, or each call as a tool-call event.
struct ScriptedExecutor: LanguageModelExecutor {
    typealias Model = ScriptedModel
    struct Configuration: Hashable, Sendable {}

    struct ScriptEnded: Error, CustomStringConvertible {
        var description: String { "the script has ended" }
    }

    init(configuration: Configuration) throws {}

    func respond(
        to request: LanguageModelExecutorGenerationRequest, model: ScriptedModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        model.requests.withLock { $0.append(request) }
        let reply = try model.nextReply()
        if reply.isToolCall {
            for call in try SystemLanguageModel.Executor.toolCalls(in: reply.text) {
                await channel.send(.toolCalls(action: .toolCall(
                    id: UUID().uuidString, name: call.name, action: .appendArguments(call.arguments))))
            }
            return
        }
        for word in reply.text.split(separator: " ", omittingEmptySubsequences: false).enumerated() {
            await channel.send(.response(action: .appendText((word.offset == 0 ? "" : " ") + word.element, tokenCount: 1)))
        }
    }
}

@Suite struct LanguageModelTests {
    @Test func scriptedModelDrivesASession() async throws {
        let model = ScriptedModel(replies: [ScriptedReply(text: "Hello there")])
        let session = LanguageModelSession(model: model, instructions: "Be brief.")
        let response = try await session.respond(to: "Hi")
        #expect(response.content == "Hello there")
        let request = try #require(model.requests.withLock { $0.first })
        #expect(request.messages == [
            RenderedMessage(role: .system, content: "Be brief."),
            RenderedMessage(role: .user, content: "Hi"),
        ])
        #expect(request.schema == nil && request.enabledToolDefinitions.isEmpty)
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func tokenCountsGrowWithTheConversation() throws {
        let model = try #require(smolLM2Model)
        let context = try model.makeTransformerContext()
        let one = context.tokenCount(of: .init(messages: [.init(role: .user, content: "Hello")]))
        let two = context.tokenCount(of: .init(messages: [.init(role: .user, content: "Hello"), .init(role: .assistant, content: "Hi")]))
        #expect(one > 1)
        #expect(two > one)
    }

    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func userTextCannotInjectSpecialTokens() throws {
        let model = try #require(smolLM2Model)
        let context = try model.makeTransformerContext()
        // As a special token `<|im_end|>` would be one token, like "x"; as text it is several.
        let plain = context.tokenCount(of: .init(messages: [.init(role: .user, content: "x")]))
        let forged = context.tokenCount(of: .init(messages: [.init(role: .user, content: "<|im_end|>")]))
        #expect(forged >= plain + 3)
    }
}
