import Foundation
import Testing
import Pocket

extension Handwritten {
    /// A union of two generable types, conformed by hand as the macro would for a schema built
    /// with `init(type:description:anyOf:)` of types.
    struct PlanItem: Generable {
        var content: GeneratedContent
        static var generationSchema: GenerationSchema {
            GenerationSchema(type: PlanItem.self, description: "One plan item", anyOf: [Activity.self, ActivityKind.self])
        }
        init(_ content: GeneratedContent) throws { self.content = content }
        var generatedContent: GeneratedContent { content }
    }

    /// A second type named `Activity`, to provoke a duplicate type name.
    enum Other {
        struct Activity: Generable {
            static var generationSchema: GenerationSchema {
                GenerationSchema(type: Other.Activity.self, properties: [.init(name: "x", type: Int.self)])
            }
            init(_ content: GeneratedContent) throws {}
            var generatedContent: GeneratedContent { GeneratedContent(properties: [:]) }
        }
    }
}

@Suite struct GenerationSchemaTests {
    typealias Itinerary = Handwritten.Itinerary
    typealias DayPlan = Handwritten.DayPlan
    typealias Activity = Handwritten.Activity
    typealias ActivityKind = Handwritten.ActivityKind
    typealias PlanItem = Handwritten.PlanItem
    typealias Other = Handwritten.Other
    @Test func recursiveSchemaUsesDefinitionsAndReferences() throws {
        #expect(try Itinerary.generationSchema.jsonSchemaString() == itineraryJSONSchema)
    }

    @Test func stringChoicesBecomeAnEnum() throws {
        #expect(try ActivityKind.generationSchema.jsonSchemaString() == activityKindDefinition)
    }

    @Test func anyOfTypesReferencesEachType() throws {
        let expected = ##"{"anyOf":[{"$ref":"#/$defs/Activity"},{"$ref":"#/$defs/ActivityKind"}],"description":"One plan item","title":"PlanItem","$defs":{"Activity":"##
            + activityDefinition + ##","ActivityKind":"## + activityKindDefinition + "}}"
        #expect(try PlanItem.generationSchema.jsonSchemaString() == expected)
    }

    @Test func standardTypesAreInline() throws {
        #expect(try String.generationSchema.jsonSchemaString() == #"{"type":"string"}"#)
        #expect(try Int.generationSchema.jsonSchemaString() == #"{"type":"integer"}"#)
        #expect(try Double.generationSchema.jsonSchemaString() == #"{"type":"number"}"#)
        #expect(try Float.generationSchema.jsonSchemaString() == #"{"type":"number"}"#)
        #expect(try Decimal.generationSchema.jsonSchemaString() == #"{"type":"number"}"#)
        #expect(try Bool.generationSchema.jsonSchemaString() == #"{"type":"boolean"}"#)
        #expect(try [[Bool]].generationSchema.jsonSchemaString() == #"{"type":"array","items":{"type":"array","items":{"type":"boolean"}}}"#)
        #expect(try [ActivityKind].generationSchema.jsonSchemaString()
            == ##"{"type":"array","items":{"$ref":"#/$defs/ActivityKind"},"$defs":{"ActivityKind":"## + activityKindDefinition + "}}")
    }

    @Test func duplicatePropertyIsReported() {
        let schema = GenerationSchema(type: Activity.self, properties: [
            .init(name: "title", type: String.self), .init(name: "title", type: Int.self),
        ])
        do {
            _ = try schema.jsonSchemaString()
            Issue.record("encoded a schema with a duplicate property")
        } catch let error as GenerationSchema.SchemaError {
            guard case .duplicateProperty(let name, let property, _) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(name == "Activity")
            #expect(property == "title")
            #expect(error.errorDescription == #"The schema "Activity" has more than one property named "title"."#)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func emptyStringChoicesAreReported() {
        let schema = GenerationSchema(type: ActivityKind.self, anyOf: [String]())
        #expect {
            try schema.jsonSchemaString()
        } throws: { error in
            guard case .emptyTypeChoices(let name, _) = error as? GenerationSchema.SchemaError else { return false }
            return name == "ActivityKind"
        }
    }

    @Test func emptyTypeChoicesAreReported() {
        let schema = GenerationSchema(type: PlanItem.self, anyOf: [any Generable.Type]())
        #expect {
            try schema.jsonSchemaString()
        } throws: { error in
            guard case .emptyTypeChoices(let name, _) = error as? GenerationSchema.SchemaError else { return false }
            return name == "PlanItem" && (error as? GenerationSchema.SchemaError)?.errorDescription == #"The any-of schema "PlanItem" has no choices."#
        }
    }

    @Test func twoTypesWithOneNameAreReported() {
        let schema = GenerationSchema(type: DayPlan.self, properties: [
            .init(name: "a", type: Activity.self), .init(name: "b", type: Other.Activity.self),
        ])
        #expect {
            try schema.jsonSchemaString()
        } throws: { error in
            guard case .duplicateType(_, let type, _) = error as? GenerationSchema.SchemaError else { return false }
            return type == "Activity"
        }
    }

    @Test func optionalPropertiesAreNotRequired() throws {
        let schema = GenerationSchema(type: DayPlan.self, description: nil, properties: [
            .init(name: "maybe", description: "Perhaps", type: Int?.self, guides: [.maximum(3)]),
            .init(name: "sure", type: Bool.self),
        ])
        #expect(try schema.jsonSchemaString() == #"{"type":"object","properties":{"maybe":{"type":"integer","maximum":3,"description":"Perhaps"},"sure":{"type":"boolean"}},"required":["sure"],"x-order":["maybe","sure"],"additionalProperties":false,"title":"DayPlan"}"#)
    }

    @Test func codableRoundTripKeepsTheSchema() throws {
        let data = try JSONEncoder().encode(Itinerary.generationSchema)
        // The encoder writes a JSON Schema object, not a string holding one.
        let tree = try GeneratedContent(json: String(decoding: data, as: UTF8.self))
        #expect(try tree.value(String.self, forProperty: "title") == "Itinerary")
        let decoded = try JSONDecoder().decode(GenerationSchema.self, from: data)
        #expect(try decoded.jsonSchemaString() == itineraryJSONSchema)
    }

    @Test func decodesHandWrittenJSONSchema() throws {
        let decoded = try JSONDecoder().decode(GenerationSchema.self, from: Data(itineraryJSONSchema.utf8))
        #expect(try decoded.jsonSchemaString() == itineraryJSONSchema)
        let any = try JSONDecoder().decode(GenerationSchema.self, from: Data("{}".utf8))
        #expect(try any.jsonSchemaString() == "{}")
    }

    @Test func decodingRejectsUnsupportedSchemas() {
        let cases = [
            (#"{"type":"tuple"}"#, "#/type: unsupported type \"tuple\""),
            (#"{"type":"object","properties":{}}"#, "#: expected a \"title\" naming the object schema"),
            (#"{"type":"array"}"#, "#: expected \"items\""),
            (#"{"$ref":"Elsewhere"}"#, "#/$ref: expected a reference of the form"),
            (#"{"not":{}}"#, "#: expected \"type\", \"anyOf\" or \"$ref\""),
            (#"{"type":"array","items":{},"minItems":-1}"#, "#/minItems: expected a non-negative integer"),
        ]
        for (json, message) in cases {
            do {
                _ = try JSONDecoder().decode(GenerationSchema.self, from: Data(json.utf8))
                Issue.record("decoded \(json)")
            } catch DecodingError.dataCorrupted(let context) {
                #expect(context.debugDescription.contains(message), "\(json): \(context.debugDescription)")
            } catch {
                Issue.record("unexpected error \(error)")
            }
        }
    }

    @Test func prettyPrintingIndents() throws {
        let text = try ActivityKind.generationSchema.jsonSchemaString(prettyPrinted: true)
        #expect(text == """
            {
              "type": "string",
              "enum": [
                "sightseeing",
                "food"
              ],
              "description": "What kind of activity",
              "title": "ActivityKind"
            }
            """)
        #expect(ActivityKind.generationSchema.debugDescription == text)
    }
}
