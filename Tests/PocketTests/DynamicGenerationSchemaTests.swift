import Foundation
import Testing
import Pocket

@Suite struct DynamicGenerationSchemaTests {
    typealias Activity = Handwritten.Activity
    private let pet = DynamicGenerationSchema(name: "Pet", anyOf: ["cat", "dog"])

    private func person(extra: [DynamicGenerationSchema.Property] = []) -> DynamicGenerationSchema {
        DynamicGenerationSchema(name: "Person", description: "A person", properties: [
            .init(name: "name", description: "Full name", schema: DynamicGenerationSchema(type: String.self)),
            .init(name: "age", schema: DynamicGenerationSchema(type: Int.self, guides: [.range(0...120)])),
            .init(name: "pets", schema: DynamicGenerationSchema(
                arrayOf: DynamicGenerationSchema(referenceTo: "Pet"), minimumElements: 1, maximumElements: 3)),
            .init(name: "address", schema: DynamicGenerationSchema(name: "Address", properties: [
                .init(name: "city", schema: DynamicGenerationSchema(type: String.self)),
            ])),
            .init(name: "nickname", schema: DynamicGenerationSchema(type: String.self), isOptional: true),
        ] + extra)
    }

    @Test func objectsReferencesArraysAndNestedNamedSchemas() throws {
        let schema = try GenerationSchema(root: person(), dependencies: [pet])
        let expected = ##"{"type":"object","properties":{"name":{"type":"string","description":"Full name"},"age":{"type":"integer","minimum":0,"maximum":120},"pets":{"type":"array","items":{"$ref":"#/$defs/Pet"},"minItems":1,"maxItems":3},"address":{"$ref":"#/$defs/Address"},"nickname":{"type":"string"}},"required":["name","age","pets","address"],"x-order":["name","age","pets","address","nickname"],"additionalProperties":false,"description":"A person","title":"Person","$defs":{"Address":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"x-order":["city"],"additionalProperties":false,"title":"Address"},"Pet":{"type":"string","enum":["cat","dog"],"title":"Pet"}}}"##
        #expect(try schema.jsonSchemaString() == expected)
    }

    @Test func anyOfSchemas() throws {
        let circle = DynamicGenerationSchema(name: "Circle", properties: [
            .init(name: "radius", schema: DynamicGenerationSchema(type: Double.self)),
        ])
        let shape = DynamicGenerationSchema(name: "Shape", description: "A shape", anyOf: [
            circle, DynamicGenerationSchema(referenceTo: "Square"),
        ])
        let square = DynamicGenerationSchema(name: "Square", properties: [
            .init(name: "side", schema: DynamicGenerationSchema(type: Double.self)),
        ])
        let schema = try GenerationSchema(root: shape, dependencies: [square])
        let expected = ##"{"anyOf":[{"$ref":"#/$defs/Circle"},{"$ref":"#/$defs/Square"}],"description":"A shape","title":"Shape","$defs":{"Circle":{"type":"object","properties":{"radius":{"type":"number"}},"required":["radius"],"x-order":["radius"],"additionalProperties":false,"title":"Circle"},"Square":{"type":"object","properties":{"side":{"type":"number"}},"required":["side"],"x-order":["side"],"additionalProperties":false,"title":"Square"}}}"##
        #expect(try schema.jsonSchemaString() == expected)
    }

    @Test func nullSchemaInAnAnyOf() throws {
        let maybe = DynamicGenerationSchema(name: "MaybeName", anyOf: [DynamicGenerationSchema(type: String.self), .null])
        let box = DynamicGenerationSchema(name: "Box", properties: [.init(name: "name", schema: maybe)])
        let schema = try GenerationSchema(root: box, dependencies: [])
        let expected = ##"{"type":"object","properties":{"name":{"$ref":"#/$defs/MaybeName"}},"required":["name"],"x-order":["name"],"additionalProperties":false,"title":"Box","$defs":{"MaybeName":{"anyOf":[{"type":"string"},{"type":"null"}],"title":"MaybeName"}}}"##
        #expect(try schema.jsonSchemaString() == expected)
        // The JSON Schema form decodes back to the same schema.
        let decoded = try JSONDecoder().decode(GenerationSchema.self, from: Data(expected.utf8))
        #expect(try decoded.jsonSchemaString() == expected)
    }

    @Test func recursiveReferenceToTheRoot() throws {
        let node = DynamicGenerationSchema(name: "Node", properties: [
            .init(name: "value", schema: DynamicGenerationSchema(type: Int.self)),
            .init(name: "children", schema: DynamicGenerationSchema(arrayOf: DynamicGenerationSchema(referenceTo: "Node"))),
        ])
        let object = ##"{"type":"object","properties":{"value":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["value","children"],"x-order":["value","children"],"additionalProperties":false,"title":"Node""##
        #expect(try GenerationSchema(root: node, dependencies: []).jsonSchemaString()
            == object + ##","$defs":{"Node":"## + object + "}}}")
    }

    @Test func generableTypesInsideDynamicSchemas() throws {
        let root = DynamicGenerationSchema(name: "Day", properties: [
            .init(name: "plan", schema: DynamicGenerationSchema(type: Activity.self)),
        ])
        let expected = ##"{"type":"object","properties":{"plan":{"$ref":"#/$defs/Activity"}},"required":["plan"],"x-order":["plan"],"additionalProperties":false,"title":"Day","$defs":{"Activity":"##
            + activityDefinition + ##","ActivityKind":"## + activityKindDefinition + "}}"
        #expect(try GenerationSchema(root: root, dependencies: []).jsonSchemaString() == expected)
    }

    @Test func duplicateProperty() {
        #expect {
            try GenerationSchema(root: person(extra: [.init(name: "age", schema: DynamicGenerationSchema(type: Int.self))]), dependencies: [pet])
        } throws: { error in
            guard case .duplicateProperty(let schema, let property, let context) = error as? GenerationSchema.SchemaError else { return false }
            return schema == "Person" && property == "age" && context.debugDescription.contains("\"age\"")
        }
    }

    @Test func duplicateType() {
        #expect {
            try GenerationSchema(root: person(), dependencies: [pet, DynamicGenerationSchema(name: "Pet", anyOf: ["fish"])])
        } throws: { error in
            guard case .duplicateType(let schema, let type, _) = error as? GenerationSchema.SchemaError else { return false }
            return schema == "Person" && type == "Pet"
                && (error as? GenerationSchema.SchemaError)?.errorDescription == #"More than one schema is named "Pet" in the schema "Person"; type names must be unique."#
        }
    }

    @Test func emptyChoices() {
        #expect {
            try GenerationSchema(root: DynamicGenerationSchema(name: "Nothing", anyOf: [String]()), dependencies: [])
        } throws: { error in
            guard case .emptyTypeChoices(let schema, _) = error as? GenerationSchema.SchemaError else { return false }
            return schema == "Nothing"
        }
        #expect {
            try GenerationSchema(root: DynamicGenerationSchema(name: "None", anyOf: [DynamicGenerationSchema]()), dependencies: [])
        } throws: { error in
            guard case .emptyTypeChoices(let schema, _) = error as? GenerationSchema.SchemaError else { return false }
            return schema == "None"
        }
    }

    @Test func undefinedReferences() {
        let root = DynamicGenerationSchema(name: "Owner", properties: [
            .init(name: "a", schema: DynamicGenerationSchema(referenceTo: "Ghost")),
            .init(name: "b", schema: DynamicGenerationSchema(referenceTo: "Phantom")),
            .init(name: "c", schema: DynamicGenerationSchema(referenceTo: "Ghost")),
        ])
        #expect {
            try GenerationSchema(root: root, dependencies: [])
        } throws: { error in
            guard case .undefinedReferences(let schema, let references, _) = error as? GenerationSchema.SchemaError else { return false }
            return schema == "Owner" && references == ["Ghost", "Phantom"]
                && (error as? GenerationSchema.SchemaError)?.errorDescription == #"The schema "Owner" refers to undefined schemas: "Ghost", "Phantom"."#
        }
    }
}
