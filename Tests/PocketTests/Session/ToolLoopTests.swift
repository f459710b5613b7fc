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
        let first = loop.admit([Self.call("weather", "Paris")])
        let otherArguments = loop.admit([Self.call("weather", "Lyon")])
        let otherTool = loop.admit([Self.call("time", "Paris")])
        #expect(first && otherArguments && otherTool, "new calls are run")
        #expect(loop.allowsToolCalls)
        let oneNew = loop.admit([Self.call("weather", "Paris"), Self.call("weather", "Nice")])
        #expect(oneNew, "one new call in a round is enough")
        #expect(loop.allowsToolCalls)
        let repeated = loop.admit([Self.call("weather", "Lyon"), Self.call("weather", "Paris")])
        #expect(!repeated, "a round of answered calls is not run")
        #expect(!loop.allowsToolCalls, "and the next round must answer")
    }
}
