import Foundation
import PocketGrammar
import Testing
@testable import Pocket

// `representNilExplicitlyInGeneratedContent` (Apple's 26.4/27 API): a `nil` optional property
// is present as `null` in generated content, and the schema requires the key (value or null),
// so constrained decoding always writes it.

@Generable(description: "A novel", representNilExplicitlyInGeneratedContent: true)
struct NilNovel: Equatable {
    @Guide(description: "A short title") var title: String
    @Guide(description: "An optional subtitle") var subtitle: String?
    var pages: Int?
}

/// The same shape with the default behaviour: `nil` properties are left out.
@Generable(description: "A novel")
struct NilOmittedNovel: Equatable {
    @Guide(description: "A short title") var title: String
    @Guide(description: "An optional subtitle") var subtitle: String?
    var pages: Int?
}

@Generable(name: "Book", representNilExplicitlyInGeneratedContent: true)
struct NilNamedNovel: Equatable {
    var title: String
    var sequel: NilNovel?
}

@Generable(representNilExplicitlyInGeneratedContent: true)
enum NilEvent: Equatable {
    case meeting(title: String, room: String?)
    case holiday
}

/// Small values, so that the model test stays within a few dozen tokens. `tonnes` can have no
/// value (its bound is beyond the numbers Pocket writes): the schema leaves only `null` for it,
/// so the model must write `"tonnes":null`, where without the flag it would leave the key out.
@Generable(description: "A cat", representNilExplicitlyInGeneratedContent: true)
struct NilCat: Equatable {
    @Guide(description: "The cat's name", /[A-Z][a-z]{1,8}/) var name: String
    @Guide(description: "Age in years", .range(0...20)) var age: Int?
    @Guide(description: "Favourite toy", .anyOf(["ball", "mouse", "string"])) var toy: String?
    @Guide(description: "Weight in tonnes", .minimum(1e16)) var tonnes: Double?
}

@Suite struct RepresentNilTests {
    static let novelSchemaJSON = #"{"type":"object","properties":{"title":{"type":"string","description":"A short title"},"#
        + #""subtitle":{"anyOf":[{"type":"string"},{"type":"null"}],"description":"An optional subtitle"},"#
        + #""pages":{"anyOf":[{"type":"integer"},{"type":"null"}]}},"required":["title","subtitle","pages"],"#
        + #""x-order":["title","subtitle","pages"],"additionalProperties":false,"description":"A novel","title":"NilNovel"}"#

    static let omittedSchemaJSON = #"{"type":"object","properties":{"title":{"type":"string","description":"A short title"},"#
        + #""subtitle":{"type":"string","description":"An optional subtitle"},"pages":{"type":"integer"}},"#
        + #""required":["title"],"x-order":["title","subtitle","pages"],"additionalProperties":false,"#
        + #""description":"A novel","title":"NilOmittedNovel"}"#

    // MARK: Generated content

    @Test func nilPropertiesAreExplicitNull() throws {
        let novel = NilNovel(title: "Dune", subtitle: nil, pages: 412)
        #expect(novel.generatedContent.jsonString == #"{"title":"Dune","subtitle":null,"pages":412}"#)
        guard case .structure(let properties, let keys) = novel.generatedContent.kind else {
            Issue.record("not a structure: \(novel.generatedContent)")
            return
        }
        #expect(keys == ["title", "subtitle", "pages"])
        #expect(properties["subtitle"]?.kind == .null)
        let full = NilNovel(title: "Dune", subtitle: "Book One", pages: nil)
        #expect(full.generatedContent.jsonString == #"{"title":"Dune","subtitle":"Book One","pages":null}"#)
    }

    @Test func nilPropertiesAreLeftOutByDefault() {
        let novel = NilOmittedNovel(title: "Dune", subtitle: nil, pages: 412)
        #expect(novel.generatedContent.jsonString == #"{"title":"Dune","pages":412}"#)
    }

    @Test func explicitNullAndMissingKeysDecodeToNil() throws {
        let expected = NilNovel(title: "Dune", subtitle: nil, pages: nil)
        #expect(try NilNovel(GeneratedContent(json: #"{"title":"Dune","subtitle":null,"pages":null}"#)) == expected)
        #expect(try NilNovel(GeneratedContent(json: #"{"title":"Dune"}"#)) == expected)
        for novel in [expected, NilNovel(title: "A", subtitle: "B", pages: 3), NilNovel(title: "A", subtitle: nil, pages: 3)] {
            #expect(try NilNovel(novel.generatedContent) == novel)
            #expect(try NilNovel(GeneratedContent(json: novel.generatedContent.jsonString)) == novel)
        }
        let partial = try NilNovel.PartiallyGenerated(GeneratedContent(json: #"{"title":"Du","subtitle":null"#))
        #expect(partial.title == "Du")
        #expect(partial.subtitle == nil)
        // A value of the wrong kind is still an error, naming the property.
        #expect(throws: GeneratedContent.ConversionError.self) {
            try NilNovel(GeneratedContent(json: #"{"title":"Dune","subtitle":7,"pages":null}"#))
        }
    }

    @Test func enumPayloadsWriteExplicitNull() throws {
        let event = NilEvent.meeting(title: "Standup", room: nil)
        #expect(event.generatedContent.jsonString == #"{"meeting":{"title":"Standup","room":null}}"#)
        #expect(try NilEvent(event.generatedContent) == event)
        #expect(try NilEvent(GeneratedContent(json: #"{"meeting":{"title":"Standup"}}"#)) == event)
        let schema = try NilEvent.generationSchema.jsonSchemaString()
        #expect(schema.contains(#""room":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["title","room"]"#), "\(schema)")
    }

    // MARK: Schemas

    @Test func schemaRequiresNullableOptionals() throws {
        #expect(try NilNovel.generationSchema.jsonSchemaString() == Self.novelSchemaJSON)
        #expect(try NilOmittedNovel.generationSchema.jsonSchemaString() == Self.omittedSchemaJSON)
    }

    /// The initializer the macro calls, written by hand, gives the same schema; `false` is the
    /// 26 initializer.
    @Test func handWrittenSchemasMatchTheMacro() throws {
        func properties() -> [GenerationSchema.Property] {
            [
                GenerationSchema.Property(name: "title", description: "A short title", type: String.self),
                GenerationSchema.Property(name: "subtitle", description: "An optional subtitle", type: String?.self),
                GenerationSchema.Property(name: "pages", type: Int?.self),
            ]
        }
        let explicit = GenerationSchema(
            type: NilNovel.self, description: "A novel", representNilExplicitlyInGeneratedContent: true, properties: properties())
        #expect(try explicit.jsonSchemaString() == Self.novelSchemaJSON)
        let omitted = GenerationSchema(
            type: NilOmittedNovel.self, description: "A novel", representNilExplicitlyInGeneratedContent: false,
            properties: properties())
        #expect(try omitted.jsonSchemaString() == Self.omittedSchemaJSON)
        #expect(try omitted.jsonSchemaString()
            == GenerationSchema(type: NilOmittedNovel.self, description: "A novel", properties: properties()).jsonSchemaString())
    }

    @Test func dynamicSchemasRepresentNilExplicitly() throws {
        func lab(_ explicit: Bool) throws -> GenerationSchema {
            let root = DynamicGenerationSchema(name: "Lab", representNilExplicitlyInGeneratedContent: explicit, properties: [
                .init(name: "value", schema: DynamicGenerationSchema(type: Double.self)),
                .init(name: "unit", description: "SI unit", schema: DynamicGenerationSchema(referenceTo: "Unit"), isOptional: true),
            ])
            return try GenerationSchema(root: root, dependencies: [DynamicGenerationSchema(name: "Unit", anyOf: ["g", "mol"])])
        }
        #expect(try lab(true).jsonSchemaString() == #"{"type":"object","properties":{"value":{"type":"number"},"#
            + ##""unit":{"anyOf":[{"$ref":"#/$defs/Unit"},{"type":"null"}],"description":"SI unit"}},"##
            + #""required":["value","unit"],"x-order":["value","unit"],"additionalProperties":false,"title":"Lab","#
            + #""$defs":{"Unit":{"type":"string","enum":["g","mol"],"title":"Unit"}}}"#)
        #expect(try lab(false).jsonSchemaString().contains(##""unit":{"$ref":"#/$defs/Unit","description":"SI unit"}},"required":["value"]"##))
        // Nested named schemas keep the flag when they are moved into the definitions.
        let outer = DynamicGenerationSchema(name: "Outer", properties: [
            .init(name: "inner", schema: DynamicGenerationSchema(
                name: "Inner", representNilExplicitlyInGeneratedContent: true,
                properties: [.init(name: "note", schema: DynamicGenerationSchema(type: String.self), isOptional: true)])),
        ])
        let nested = try GenerationSchema(root: outer, dependencies: []).jsonSchemaString()
        #expect(nested.contains(#""Inner":{"type":"object","properties":{"note":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":["note"]"#), "\(nested)")
    }

    /// `Codable` keeps the flag: the decoded schema writes the same JSON Schema and grammar.
    @Test func codableRoundTripKeepsExplicitNil() throws {
        for schema in [NilNovel.generationSchema, NilNamedNovel.generationSchema, NilEvent.generationSchema] {
            let data = try JSONEncoder().encode(schema)
            let decoded = try JSONDecoder().decode(GenerationSchema.self, from: data)
            #expect(try decoded.jsonSchemaString() == schema.jsonSchemaString())
            #expect(GenerationSchemaGrammarTests.lowered(decoded) == GenerationSchemaGrammarTests.lowered(schema))
        }
        let decoded = try JSONDecoder().decode(GenerationSchema.self, from: Data(Self.novelSchemaJSON.utf8))
        let grammar = try CompiledGrammar(decoded.grammarSchema())
        #expect(grammar.accepts(Array(#"{"title":"A","subtitle":null,"pages":null}"#.utf8)))
        #expect(!grammar.accepts(Array(#"{"title":"A","pages":null}"#.utf8)))
    }

    /// A nullable property that is not required is outside the subset Pocket reads: a typed
    /// decoding error naming the property, never a crash or a silently different schema.
    @Test func nullableButNotRequiredIsADecodingError() throws {
        let text = #"{"type":"object","properties":{"a":{"anyOf":[{"type":"string"},{"type":"null"}]}},"required":[],"title":"T"}"#
        #expect {
            try JSONDecoder().decode(GenerationSchema.self, from: Data(text.utf8))
        } throws: { error in
            guard case DecodingError.dataCorrupted(let context) = error else { return false }
            return context.debugDescription.contains("#/properties/a") && context.debugDescription.contains("required")
        }
    }

    // MARK: Grammar

    @Test func grammarRequiresTheKeyAndAllowsNull() throws {
        let explicit = try CompiledGrammar(NilNovel.generationSchema.grammarSchema())
        let omitted = try CompiledGrammar(NilOmittedNovel.generationSchema.grammarSchema())
        let complete = #"{"title":"A","subtitle":"B","pages":3}"#
        let nulls = #"{"title":"A","subtitle":null,"pages":null}"#
        let missing = #"{"title":"A"}"#
        #expect(explicit.accepts(Array(complete.utf8)))
        #expect(explicit.accepts(Array(nulls.utf8)))
        #expect(!explicit.accepts(Array(missing.utf8)))
        #expect(omitted.accepts(Array(complete.utf8)))
        #expect(omitted.accepts(Array(missing.utf8)))
        #expect(!omitted.accepts(Array(nulls.utf8)))
        for type in [NilNovel.self, NilNamedNovel.self, NilEvent.self, NilCat.self] as [any Generable.Type] {
            GenerationSchemaGrammarTests.expectSameGrammar(type.generationSchema, "\(type)")
        }
        // An optional property that can have no value is null, still required.
        let impossible = try GenerationSchema(
            root: DynamicGenerationSchema(name: "Holder", representNilExplicitlyInGeneratedContent: true, properties: [
                .init(name: "n", schema: DynamicGenerationSchema(type: Double.self, guides: [.minimum(1e16)]), isOptional: true),
            ]), dependencies: [])
        GenerationSchemaGrammarTests.expectSameGrammar(impossible, "impossible")
        let holder = try CompiledGrammar(impossible.grammarSchema())
        #expect(holder.accepts(Array(#"{"n":null}"#.utf8)))
        #expect(!holder.accepts(Array("{}".utf8)))
        // The same with the macro: NilCat's `tonnes` is always written, and only as null.
        let cat = try CompiledGrammar(NilCat.generationSchema.grammarSchema())
        #expect(cat.accepts(Array(#"{"name":"Tom","age":null,"toy":null,"tonnes":null}"#.utf8)))
        #expect(!cat.accepts(Array(#"{"name":"Tom","age":null,"toy":null}"#.utf8)))
        #expect(!cat.accepts(Array(#"{"name":"Tom","age":null,"toy":null,"tonnes":1}"#.utf8)))
    }

    // MARK: Names

    @Test func nameRenamesTheSchema() throws {
        #expect(NilNamedNovel.generationSchema.name == "Book")
        #expect(NilNovel.generationSchema.name == "NilNovel")
        #expect(String.generationSchema.name == "String")
        #expect([Int].generationSchema.name == "Array<Int>")
        #expect(try GenerationSchema(root: DynamicGenerationSchema(name: "Lab", properties: []), dependencies: []).name == "Lab")
        #expect(try GenerationSchema(root: DynamicGenerationSchema(type: Int.self), dependencies: []).name == "Int")
        #expect(try GenerationSchema(root: DynamicGenerationSchema(type: NilNamedNovel.self), dependencies: []).name == "Book")
        #expect(try GenerationSchema(root: DynamicGenerationSchema(arrayOf: DynamicGenerationSchema(type: Int.self)), dependencies: []).name == "")
        #expect(try JSONDecoder().decode(GenerationSchema.self, from: JSONEncoder().encode(NilNamedNovel.generationSchema)).name == "Book")
        #expect(String.generationSchema.renamed("Text").name == "String")  // no title to rename
        let text = try NilNamedNovel.generationSchema.jsonSchemaString()
        #expect(text.hasSuffix(#""title":"Book","$defs":{"NilNovel":"# + Self.novelSchemaJSON + "}}"), "\(text)")
        #expect(text.contains(##""sequel":{"anyOf":[{"$ref":"#/$defs/NilNovel"},{"type":"null"}]}"##), "\(text)")
        // Referenced from another type, the renamed schema is defined under its new name.
        let shelf = try GenerationSchema(
            root: DynamicGenerationSchema(name: "Shelf", properties: [
                .init(name: "book", schema: DynamicGenerationSchema(type: NilNamedNovel.self)),
            ]), dependencies: []).jsonSchemaString()
        #expect(shelf.contains(##""book":{"$ref":"#/$defs/Book"}"##), "\(shelf)")
        #expect(shelf.contains(#""Book":{"type":"object""#), "\(shelf)")
        // A rename onto one of the schema's own definitions is a duplicate type.
        #expect(throws: GenerationSchema.SchemaError.self) {
            try NilNamedNovel.generationSchema.renamed("NilNovel").jsonSchemaString()
        }
    }
}

/// The flag on the real small model: the key of an optional property is always written, with a
/// value or `null`, and the content decodes into the Swift type.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct RepresentNilModelTests {
    @Test func optionalKeysArePresentInTheModelsOutput() async throws {
        let model = try #require(smolLM2Model)
        for prompt in ["Invent a cat.", "Invent a cat. It has no toy and its age is unknown."] {
            let session = LanguageModelSession(model: model)
            let response = try await session.respond(to: prompt, generating: NilCat.self, options: greedy(80))
            let json = response.rawContent.jsonString
            let reread = try GeneratedContent(json: json)
            guard case .structure(let properties, let keys) = reread.kind else {
                Issue.record("not an object: \(json)")
                continue
            }
            #expect(keys == ["name", "age", "toy", "tonnes"], "\(json)")
            #expect(properties["age"] != nil && properties["toy"] != nil, "\(json)")
            #expect(properties["tonnes"]?.kind == .null, "\(json)")
            #expect(response.content.tonnes == nil)
            #expect(try NilCat(reread) == response.content, "\(json)")
            // The Swift value writes the same JSON back: a nil property as null.
            #expect(response.content.generatedContent.jsonString == json)
        }
    }
}
