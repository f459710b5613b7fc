import Foundation
@testable import Pocket
import Testing

/// The session's loop rule: a round that only repeats answered calls makes the next round answer.
@Suite struct ToolLoopTests {
    static func call(_ name: String, _ city: String) -> Transcript.ToolCall {
        Transcript.ToolCall(id: UUID().uuidString, toolName: name, arguments: GeneratedContent(properties: ["city": city]))
    }

    @Test func repeatingAnsweredCallsStopsCalling() {
        var loop = LanguageModelSession.ToolLoop()
        #expect(loop.allowsToolCalls)
        #expect(loop.admit([Self.call("weather", "Paris")]))
        #expect(loop.admit([Self.call("weather", "Lyon")]), "other arguments are a new call")
        #expect(loop.admit([Self.call("time", "Paris")]), "another tool is a new call")
        #expect(loop.allowsToolCalls)
        #expect(loop.admit([Self.call("weather", "Paris"), Self.call("weather", "Nice")]), "one new call is enough")
        #expect(!loop.admit([Self.call("weather", "Lyon"), Self.call("weather", "Paris")]))
        #expect(!loop.allowsToolCalls)
    }
}
