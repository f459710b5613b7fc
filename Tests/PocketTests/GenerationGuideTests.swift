import Foundation
import Testing
@testable import Pocket

/// Every guide, encoded into JSON Schema; expectations written by hand from the keyword list
/// in GenerationGuide's documentation.
@Suite struct GenerationGuideTests {
    typealias DayPlan = Handwritten.DayPlan
    private func encode(_ properties: [GenerationSchema.Property]) throws -> String {
        try GenerationSchema(type: DayPlan.self, properties: properties).jsonSchemaString()
    }

    /// The JSON of one property's schema inside the object wrapper.
    private func propertySchema(_ property: GenerationSchema.Property) throws -> String {
        let text = try encode([property])
        let content = try GeneratedContent(json: text)
        let properties = try content.value(GeneratedContent.self, forProperty: "properties")
        return try properties.value(GeneratedContent.self, forProperty: property.name).jsonString
    }

    @Test func stringGuides() throws {
        #expect(try propertySchema(.init(name: "s", type: String.self, guides: [.anyOf(["a", "b\""])]))
            == #"{"type":"string","enum":["a","b\""]}"#)
        #expect(try propertySchema(.init(name: "s", type: String.self, guides: [.constant("fixed")]))
            == #"{"type":"string","const":"fixed"}"#)
        #expect(try propertySchema(.init(name: "s", type: String.self, guides: [.pattern(source: #"\d{3}"#)]))
            == #"{"type":"string","pattern":"\\d{3}"}"#)
        #expect(try propertySchema(.init(name: "s", type: String.self, guides: [.pattern(/[A-Z]{3}/)]))
            == #"{"type":"string","pattern":"[A-Z]{3}"}"#)
        #expect(try propertySchema(.init(name: "s", type: String.self, guides: [try Regex("a|b")]))
            == #"{"type":"string","pattern":"a|b"}"#)
    }

    @Test func numericGuides() throws {
        #expect(try propertySchema(.init(name: "n", type: Int.self, guides: [.minimum(-2)])) == #"{"type":"integer","minimum":-2}"#)
        #expect(try propertySchema(.init(name: "n", type: Int.self, guides: [.maximum(9)])) == #"{"type":"integer","maximum":9}"#)
        #expect(try propertySchema(.init(name: "n", type: Int.self, guides: [.range(0...20)])) == #"{"type":"integer","minimum":0,"maximum":20}"#)
        #expect(try propertySchema(.init(name: "n", type: Double.self, guides: [.range(-1.5...2.25)])) == #"{"type":"number","minimum":-1.5,"maximum":2.25}"#)
        #expect(try propertySchema(.init(name: "n", type: Double.self, guides: [.minimum(0.5), .maximum(1)])) == #"{"type":"number","minimum":0.5,"maximum":1}"#)
        #expect(try propertySchema(.init(name: "n", type: Float.self, guides: [.range(0.25...0.75)])) == #"{"type":"number","minimum":0.25,"maximum":0.75}"#)
        #expect(try propertySchema(.init(name: "n", type: Float.self, guides: [.minimum(1), .maximum(2)])) == #"{"type":"number","minimum":1,"maximum":2}"#)
        #expect(try propertySchema(.init(name: "n", type: Decimal.self, guides: [.range(Decimal(string: "0.1")!...Decimal(string: "9.9")!)])) == #"{"type":"number","minimum":0.1,"maximum":9.9}"#)
        #expect(try propertySchema(.init(name: "n", type: Decimal.self, guides: [.minimum(1), .maximum(3)])) == #"{"type":"number","minimum":1,"maximum":3}"#)
        #expect(try propertySchema(.init(name: "n", type: Int?.self, guides: [.range(1...5)])) == #"{"type":"integer","minimum":1,"maximum":5}"#)
    }

    @Test func arrayGuides() throws {
        #expect(try propertySchema(.init(name: "a", type: [String].self, guides: [.count(3)]))
            == #"{"type":"array","items":{"type":"string"},"minItems":3,"maxItems":3}"#)
        #expect(try propertySchema(.init(name: "a", type: [String].self, guides: [.count(1...2)]))
            == #"{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":2}"#)
        #expect(try propertySchema(.init(name: "a", type: [Int].self, guides: [.minimumCount(2)]))
            == #"{"type":"array","items":{"type":"integer"},"minItems":2}"#)
        #expect(try propertySchema(.init(name: "a", type: [Int].self, guides: [.maximumCount(4)]))
            == #"{"type":"array","items":{"type":"integer"},"maxItems":4}"#)
        #expect(try propertySchema(.init(name: "a", type: [String].self, guides: [.element(.anyOf(["x", "y"])), .maximumCount(2)]))
            == #"{"type":"array","items":{"type":"string","enum":["x","y"]},"maxItems":2}"#)
        #expect(try propertySchema(.init(name: "a", type: [[Int]].self, guides: [.element(.count(2)), .element(.element(.range(1...5)))]))
            == #"{"type":"array","items":{"type":"array","items":{"type":"integer","minimum":1,"maximum":5},"minItems":2,"maxItems":2}}"#)
    }

    @Test func guidesOnTheSameKeywordKeepTheLastValue() throws {
        #expect(try propertySchema(.init(name: "n", type: Int.self, guides: [.range(0...20), .maximum(10)]))
            == #"{"type":"integer","minimum":0,"maximum":10}"#)
    }

    @Test func patternWithoutSourceFailsWhenTheSchemaIsBuilt() {
        let guide = GenerationGuide<String>(.unrepresentablePattern("Regex<Substring>"))
        #expect {
            try encode([.init(name: "code", type: String.self, guides: [guide])])
        } throws: { error in
            guard let error = error as? GenerationSchema.GuideError else { return false }
            return error.message.contains("DayPlan.code") && error.message.contains("pattern(source:)")
        }
    }
}
