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
        let admitted1 = loop.admit([Self.call("weather", "Paris")])
        #expect(admitted1)
        let admitted2 = loop.admit([Self.call("weather", "Lyon")])
        #expect(admitted2, "other arguments are a new call")
        let admitted3 = loop.admit([Self.call("time", "Paris")])
        #expect(admitted3, "another tool is a new call")
        #expect(loop.allowsToolCalls)
        let admitted4 = loop.admit([Self.call("weather", "Paris"), Self.call("weather", "Nice")])
        #expect(admitted4, "one new call is enough")
        let admitted5 = loop.admit([Self.call("weather", "Lyon"), Self.call("weather", "Paris")])
        #expect(!admitted5)
        #expect(!loop.allowsToolCalls)
    }
}
