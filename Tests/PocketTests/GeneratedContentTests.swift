import Testing
import Pocket

@Suite struct GeneratedContentTests {
    @Test func propertiesKeepTheirOrder() {
        let content = GeneratedContent(properties: ["name": "Johnny Appleseed", "age": 30])
        #expect(content.jsonString == #"{"name":"Johnny Appleseed","age":30}"#)
        guard case .structure(let properties, let keys) = content.kind else {
            Issue.record("expected a structure")
            return
        }
        #expect(keys == ["name", "age"])
        #expect(properties["age"] == GeneratedContent(kind: .number(30)))
    }

    @Test func nilOptionalPropertiesAreLeftOut() {
        let missing: String? = nil
        let present: Int? = 4
        let content = GeneratedContent(properties: [
            "a": missing, "b": present, "c": GeneratedContent(kind: .null),
        ])
        #expect(content.jsonString == #"{"b":4,"c":null}"#)
    }

    @Test func repeatedKeysKeepTheFirstPositionAndTheLastValue() {
        let content = GeneratedContent(properties: ["a": 1, "b": 2, "a": 3])
        #expect(content.jsonString == #"{"a":3,"b":2}"#)
    }

    @Test func uniquingKeysWithCombines() throws {
        let pairs: [(String, any ConvertibleToGeneratedContent)] = [("n", 1), ("m", "x"), ("n", 2)]
        let content = try GeneratedContent(properties: pairs) { old, new in
            try old.value(Int.self) + new.value(Int.self)
        }
        #expect(content.jsonString == #"{"n":3,"m":"x"}"#)
    }

    @Test func elementsAndIdentifiers() {
        let id = GenerationID()
        let content = GeneratedContent(elements: ["a", 1, true] as [any ConvertibleToGeneratedContent], id: id)
        #expect(content.jsonString == #"["a",1,true]"#)
        #expect(content.id == id)
        #expect(content.id != GenerationID())
        #expect(GeneratedContent("s", id: id).id == id)
        #expect(GeneratedContent(kind: .null).id == nil)
    }

    @Test func orderedKeysMissingFromPropertiesAreIgnoredAndExtraKeysSorted() {
        let content = GeneratedContent(kind: .structure(
            properties: ["b": GeneratedContent(kind: .number(1)), "a": GeneratedContent(kind: .number(2)),
                         "c": GeneratedContent(kind: .number(3))],
            orderedKeys: ["c", "ghost"]))
        #expect(content.jsonString == #"{"c":3,"a":2,"b":1}"#)
    }

    @Test func equalityIgnoresIdentityAndCompleteness() throws {
        let partial = try GeneratedContent(json: #"["a", "b"#)
        #expect(!partial.isComplete)
        #expect(partial == GeneratedContent(elements: ["a", "b"] as [any ConvertibleToGeneratedContent]))
        #expect(GeneratedContent(kind: .bool(true), id: GenerationID()) == GeneratedContent(kind: .bool(true)))
        #expect(GeneratedContent(kind: .bool(true)) != GeneratedContent(kind: .string("true")))
    }

    @Test func debugDescriptionShowsJSONAndIncompleteness() throws {
        #expect(GeneratedContent(properties: ["a": 1]).debugDescription == #"{"a":1}"#)
        #expect(try GeneratedContent(json: "[1").debugDescription == "[1] (incomplete)")
    }

    @Test func contentIsItsOwnGenerable() throws {
        let content = GeneratedContent(properties: ["x": [1, 2]])
        #expect(try GeneratedContent(content) == content)
        #expect(content.generatedContent == content)
        #expect(try GeneratedContent.generationSchema.jsonSchemaString() == "{}")
    }
}
