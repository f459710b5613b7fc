import Testing
@testable import Pocket

@Suite struct PromptTests {
    typealias DayPlan = Handwritten.DayPlan
    typealias ActivityKind = Handwritten.ActivityKind
    @Test func builderHandlesConditionsLoopsAndOptionals() {
        let rhyme = true
        let formal = false
        let topics = ["sea", "sky"]
        let extra: String? = nil
        let prompt = Prompt {
            "Write a poem."
            if rhyme {
                "It must rhyme."
            }
            if formal {
                "Be formal."
            } else {
                "Be casual."
            }
            for topic in topics {
                "Mention the \(topic)."
            }
            if let extra {
                extra
            }
        }
        #expect(prompt.segments == ["Write a poem.", "It must rhyme.", "Be casual.", "Mention the sea.", "Mention the sky."])
        #expect(prompt.text == "Write a poem.\nIt must rhyme.\nBe casual.\nMention the sea.\nMention the sky.")
    }

    @Test func singleValuesAndGenerableContent() {
        #expect(Prompt("Hello").text == "Hello")
        #expect(Prompt(["a", "b"]).segments == ["a", "b"])
        let plan = DayPlan(day: 2, activities: [], note: nil)
        #expect(Prompt(plan).text == #"{"day":2,"activities":[]}"#)
        #expect(Prompt { Prompt("inner"); 42 }.segments == ["inner", "42"])
    }

    @Test func instructionsBuildTheSameWay() {
        let strict = true
        let instructions = Instructions {
            "You are a travel agent."
            if strict {
                "Answer in JSON."
            }
        }
        #expect(instructions.text == "You are a travel agent.\nAnswer in JSON.")
        #expect(Instructions("x").segments == ["x"])
        #expect(Instructions(ActivityKind.food).text == #""food""#)
    }
}
