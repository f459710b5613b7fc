import Foundation
@testable import Pocket
import Testing

// `DynamicInstructions` and its builder, evaluated without a model: what a body resolves to
// (instruction texts and tools, in order) and how session properties reach it.

/// A session property the profile tests read: the tone the instructions ask for.
struct ToneKey: SessionPropertyKey {
    static let defaultValue = "calm"
}

/// A second session property: which of two models a profile picks.
struct UsesSecondModelKey: SessionPropertyKey {
    static let defaultValue = false
}

extension SessionPropertyValues {
    var tone: String {
        get { self[ToneKey.self] }
        set { self[ToneKey.self] = newValue }
    }

    var usesSecondModel: Bool {
        get { self[UsesSecondModelKey.self] }
        set { self[UsesSecondModelKey.self] = newValue }
    }
}

/// A tool that looks a city up (the profile tests offer it and check that it is offered).
struct LookUpTool: Tool {
    var name = "lookUp"
    let description = "Looks a city up."

    func call(arguments: CityArguments) async throws -> String { "\(arguments.city) is a city." }
}

/// Instructions that branch on their own state: `if`/`else`, an optional `if`, `if let`, a loop.
struct BranchingInstructions: DynamicInstructions {
    var isFormal: Bool
    var extra: String?
    var offersTool = false
    var rules: [String] = []

    var body: some DynamicInstructions {
        Instructions("You are a helper.")
        if isFormal {
            Instructions("Be formal.")
        } else {
            Instructions("Be casual.")
        }
        if let extra {
            Instructions(extra)
        }
        if offersTool {
            LookUpTool()
        }
        for rule in rules {
            Instructions(rule)
        }
    }
}

/// Instructions that read a session property.
struct ToneInstructions: DynamicInstructions {
    @SessionProperty(\.tone) var tone

    var body: some DynamicInstructions {
        Instructions("Answer in one sentence.")
        if tone == "pirate" {
            Instructions("Talk like a pirate.")
        } else {
            Instructions("Keep a \(tone) tone.")
        }
    }
}

/// Nested custom instructions, erased and not.
struct NestingInstructions: DynamicInstructions {
    var body: some DynamicInstructions {
        BranchingInstructions(isFormal: true)
        AnyDynamicInstructions(erasing: BranchingInstructions(isFormal: false, offersTool: true))
        [LookUpTool(name: "second")] as [any Tool]
        EmptyDynamicInstructions()
    }
}

@Suite struct DynamicInstructionsTests {
    @Test func conditionalsPickTheBranchThatHolds() {
        #expect(BranchingInstructions(isFormal: true).resolved().texts == ["You are a helper.", "Be formal."])
        #expect(BranchingInstructions(isFormal: false).resolved().texts == ["You are a helper.", "Be casual."])
    }

    @Test func optionalContentAppearsOnlyWhenPresent() {
        #expect(BranchingInstructions(isFormal: true, extra: "Cite sources.").resolved().texts
            == ["You are a helper.", "Be formal.", "Cite sources."])
        #expect(BranchingInstructions(isFormal: true, extra: nil).resolved().texts.count == 2)
    }

    @Test func toolsAndLoopsContributeInOrder() {
        let resolved = BranchingInstructions(isFormal: false, offersTool: true, rules: ["One.", "Two."]).resolved()
        #expect(resolved.texts == ["You are a helper.", "Be casual.", "One.", "Two."])
        #expect(resolved.tools.map(\.name) == ["lookUp"])
        #expect(BranchingInstructions(isFormal: false).resolved().tools.isEmpty)
    }

    @Test func nestedAndErasedInstructionsKeepDeclarationOrder() {
        let resolved = NestingInstructions().resolved()
        #expect(resolved.texts == ["You are a helper.", "Be formal.", "You are a helper.", "Be casual."])
        #expect(resolved.tools.map(\.name) == ["lookUp", "second"])
        #expect(resolved.text == "You are a helper.\nBe formal.\nYou are a helper.\nBe casual.")
    }

    @Test func erasedInstructionsAreEvaluatedAgainEachTime() {
        let values = SessionPropertyValues()
        let erased = AnyDynamicInstructions(ToneInstructions())
        let first = SessionPropertyValues.$current.withValue(values) { erased.resolved().texts }
        values.tone = "pirate"
        let second = SessionPropertyValues.$current.withValue(values) { erased.resolved().texts }
        #expect(first == ["Answer in one sentence.", "Keep a calm tone."])
        #expect(second == ["Answer in one sentence.", "Talk like a pirate."])
    }

    @Test func aSessionPropertyReadsTheBoundSessionsValues() {
        let instructions = ToneInstructions()
        // Outside any session the wrapper reads its own container, at the default value.
        #expect(instructions.tone == "calm")
        let values = SessionPropertyValues()
        values.tone = "stern"
        SessionPropertyValues.$current.withValue(values) {
            #expect(instructions.tone == "stern")
            instructions.tone = "cheerful"
        }
        #expect(values.tone == "cheerful")
    }

    @Test func theSessionExposesItsPropertiesAndHistory() {
        let session = LanguageModelSession(model: CannedTextModel(text: "hi"), dynamicInstructions: ToneInstructions())
        #expect(session.properties.tone == "calm")
        session.properties.tone = "dry"
        #expect(session.properties.tone == "dry")
        // The history leaves out the instructions entry, which the profile defines.
        #expect(session.properties.history.isEmpty)
        #expect(session.transcript.count == 1)
    }
}
