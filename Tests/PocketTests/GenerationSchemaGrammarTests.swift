import Foundation
import PocketGrammar
import Testing
@testable import Pocket

/// `GenerationSchema` lowered straight to the grammar's schema must give the grammar that
/// importing its JSON Schema text gives (patterns matching whole strings, as sessions use
/// them): equal schemas, or the same error.
@Suite struct GenerationSchemaGrammarTests {
    /// The result of a route: the schema, or the error's description.
    enum Outcome: Equatable {
        case schema(GrammarSchema)
        case error(String)
    }

    /// Lowered and compiled, as a session does.
    static func lowered(_ schema: GenerationSchema) -> Outcome {
        do {
            let lowered = try schema.grammarSchema()
            _ = try CompiledGrammar(lowered)
            return .schema(lowered)
        } catch {
            return .error("\(error)")
        }
    }

    /// Written as JSON Schema text and imported (which compiles it too).
    static func imported(_ schema: GenerationSchema) -> Outcome {
        do {
            return .schema(try JSONSchemaImport.schema(fromJSON: try schema.jsonSchemaString(), patterns: .wholeString))
        } catch {
            return .error("\(error)")
        }
    }

    static func expectSameGrammar(_ schema: GenerationSchema, _ label: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let lowered = lowered(schema), imported = imported(schema)
        #expect(lowered == imported, "\(label)", sourceLocation: sourceLocation)
    }

    /// The `@Generable` types of the Pocket tests, hand-written ones and standard types.
    @Test func generableTypesLowerAsTheirJSONSchema() {
        let types: [any Generable.Type] = [
            Person.self, CatProfile.self, SearchSuggestions.self, Itinerary.self, DayPlan.self, Activity.self, Kind.self,
            NPC.self, NPC.Encounter.self, RegexNames.self, Bookshelf.self, FindContacts.Arguments.self, PublicRecipe.self,
            TrickyDeclaration.self, Handwritten.Itinerary.self, Handwritten.DayPlan.self,
            String.self, Int.self, Double.self, Float.self, Decimal.self, Bool.self, [String].self, [[Int]].self,
            GeneratedContent.self,
        ]
        for type in types {
            Self.expectSameGrammar(type.generationSchema, "\(type)")
        }
    }

    /// Guides of every kind, optionals, references, definitions and recursion, built at run time.
    @Test func dynamicSchemasLowerAsTheirJSONSchema() throws {
        let pet = DynamicGenerationSchema(name: "Pet", anyOf: ["cat", "dog", "cat"])
        let person = DynamicGenerationSchema(name: "Person", description: "A person", properties: [
            .init(name: "name", description: "Full name", schema: DynamicGenerationSchema(type: String.self)),
            .init(name: "age", schema: DynamicGenerationSchema(type: Int.self, guides: [.range(0...120)])),
            .init(name: "height", schema: DynamicGenerationSchema(type: Double.self, guides: [.range(0.5...2.75)])),
            .init(name: "score", schema: DynamicGenerationSchema(type: Double.self, guides: [.minimum(-1e20), .maximum(1e20)])),
            .init(name: "offset", schema: DynamicGenerationSchema(type: Int.self, guides: [.minimum(-3)])),
            .init(name: "weight", schema: DynamicGenerationSchema(type: Float.self, guides: [.maximum(99.5)])),
            .init(name: "pets", schema: DynamicGenerationSchema(
                arrayOf: DynamicGenerationSchema(referenceTo: "Pet"), minimumElements: 1, maximumElements: 3)),
            .init(name: "tags", schema: DynamicGenerationSchema(type: [String].self, guides: [.count(2...4), .element(.anyOf(["a", "b"]))])),
            .init(name: "codes", schema: DynamicGenerationSchema(type: [String].self, guides: [.minimumCount(1), .element(.pattern(source: "[A-Z]{3}"))])),
            .init(name: "steps", schema: DynamicGenerationSchema(type: [Int].self, guides: [.count(3), .element(.range(1...5))])),
            .init(name: "kind", schema: DynamicGenerationSchema(type: String.self, guides: [.constant("person")])),
            .init(name: "mood", schema: DynamicGenerationSchema(type: String.self, guides: [.anyOf(["calm", "curious", "calm"])])),
            .init(name: "code", schema: DynamicGenerationSchema(type: String.self, guides: [.pattern(source: "^[A-Z]{2}-\\d+$")])),
            .init(name: "initials", schema: DynamicGenerationSchema(
                type: String.self, guides: [.anyOf(["AB", "x", "CD"]), .pattern(source: "[A-Z]+")])),
            .init(name: "address", schema: DynamicGenerationSchema(name: "Address", properties: [
                .init(name: "city", schema: DynamicGenerationSchema(type: String.self)),
            ])),
            .init(name: "nickname", schema: DynamicGenerationSchema(type: String.self), isOptional: true),
            .init(name: "extra", schema: DynamicGenerationSchema(type: GeneratedContent.self), isOptional: true),
            .init(name: "plan", schema: DynamicGenerationSchema(type: Activity.self), isOptional: true),
        ])
        Self.expectSameGrammar(try GenerationSchema(root: person, dependencies: [pet]), "person")

        let circle = DynamicGenerationSchema(name: "Circle", properties: [
            .init(name: "radius", schema: DynamicGenerationSchema(type: Double.self)),
        ])
        let shape = DynamicGenerationSchema(name: "Shape", description: "A shape", anyOf: [
            circle, DynamicGenerationSchema(referenceTo: "Square"), .null,
        ])
        let square = DynamicGenerationSchema(name: "Square", properties: [
            .init(name: "side", schema: DynamicGenerationSchema(type: Double.self)),
        ])
        let unused = DynamicGenerationSchema(name: "Unused", properties: [])
        Self.expectSameGrammar(try GenerationSchema(root: shape, dependencies: [square, unused]), "shape")

        let node = DynamicGenerationSchema(name: "Node", properties: [
            .init(name: "value", schema: DynamicGenerationSchema(type: Int.self)),
            .init(name: "children", schema: DynamicGenerationSchema(arrayOf: DynamicGenerationSchema(referenceTo: "Node"))),
            .init(name: "flag", schema: DynamicGenerationSchema(type: Bool.self), isOptional: true),
        ])
        Self.expectSameGrammar(try GenerationSchema(root: node, dependencies: []), "node")

        let maybe = DynamicGenerationSchema(name: "MaybeName", anyOf: [DynamicGenerationSchema(type: String.self), .null])
        Self.expectSameGrammar(try GenerationSchema(
            root: DynamicGenerationSchema(name: "Box", properties: [.init(name: "name", schema: maybe)]), dependencies: []), "box")
    }

    /// Schemas the grammar cannot enforce fail with the same error on both routes.
    @Test func unenforceableSchemasFailAlike() throws {
        let cases: [(String, DynamicGenerationSchema)] = [
            ("invalid pattern", DynamicGenerationSchema(type: String.self, guides: [.pattern(source: "(a")])),
            ("no choice matches", DynamicGenerationSchema(type: String.self, guides: [.anyOf(["a", "b"]), .pattern(source: "[0-9]+")])),
            ("empty range", DynamicGenerationSchema(type: Int.self, guides: [.minimum(5), .maximum(3)])),
            ("minimum beyond reach", DynamicGenerationSchema(type: Double.self, guides: [.minimum(1e16)])),
            ("constant outside pattern", DynamicGenerationSchema(type: String.self, guides: [.constant("x"), .pattern(source: "y")])),
        ]
        for (label, value) in cases {
            let schema = try GenerationSchema(
                root: DynamicGenerationSchema(name: "Holder", properties: [.init(name: "value", schema: value)]), dependencies: [])
            guard case .error = Self.imported(schema) else {
                Issue.record("\(label): expected the JSON Schema route to fail")
                continue
            }
            Self.expectSameGrammar(schema, label)
        }
    }
}
