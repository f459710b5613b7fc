import Testing
@testable import PocketGrammar

/// `GrammarMatcher.forcedBytes`: the text every continuation of the document shares.
@Suite struct ForcedTextTests {
    static let vocabulary = SyntheticVocabulary.vocabulary

    static func matcher(_ schema: String, after text: String) throws -> GrammarMatcher {
        let grammar = try CompiledGrammar(try JSONSchemaImport.schema(fromJSON: schema))
        var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        let accepted = matcher.accept(bytes: Array(text.utf8))
        #expect(accepted, "'\(text)' is not a prefix of the schema's documents")
        return matcher
    }

    static func forced(_ schema: String, after text: String) throws -> String {
        var matcher = try matcher(schema, after: text)
        return String(decoding: matcher.forcedBytes(), as: UTF8.self)
    }

    @Test func keysAndTheirPunctuationAreForced() throws {
        let person = Schemas.all[0]  // {"name": string ≤ 40, "age": integer}, both required, in order
        #expect(try Self.forced(person, after: "") == #"{"name":""#)
        #expect(try Self.forced(person, after: #"{"name":"Ad"#) == "")       // the string goes on or closes
        #expect(try Self.forced(person, after: #"{"name":"Ada""#) == #","age":"#)
        #expect(try Self.forced(person, after: #"{"name":"Ada","age":1"#) == "")  // 1, 10…20, or the end
        #expect(try Self.forced(person, after: #"{"name":"Ada","age":3"#) == "}")  // 3 takes no second digit ≤ 20
        #expect(try Self.forced(person, after: #"{"name":"Ada","age":3}"#) == "")  // complete
    }

    @Test func theRestOfAnEnumCaseIsForcedOnceOnlyOneFits() throws {
        let mood = Schemas.all[2]  // mood: calm | curious | sleepy, then score
        #expect(try Self.forced(mood, after: #"{"mood":""#) == "")
        #expect(try Self.forced(mood, after: #"{"mood":"c"#) == "")          // calm or curious
        #expect(try Self.forced(mood, after: #"{"mood":"cu"#) == #"rious","score":"#)
        #expect(try Self.forced(mood, after: #"{"mood":"s"#) == #"leepy","score":"#)
    }

    @Test func optionalPropertiesAndAlternativesAreChoices() throws {
        let flags = Schemas.all[3]  // a required; b, c optional
        #expect(try Self.forced(flags, after: "") == #"{"a":"#)
        #expect(try Self.forced(flags, after: #"{"a":t"#) == "rue")
        #expect(try Self.forced(flags, after: #"{"a":true"#) == "")          // `,` or `}`
        let pets = Schemas.all[6]  // anyOf cat | dog, both with kind first
        #expect(try Self.forced(pets, after: "") == #"{"kind":""#)
        #expect(try Self.forced(pets, after: #"{"kind":"d"#) == #"og"}"#)
    }

    @Test func theLimitCutsTheForcedText() throws {
        var matcher = try Self.matcher(Schemas.all[0], after: "")
        #expect(matcher.forcedBytes(limit: 3) == Array(#"{"n"#.utf8))
        #expect(matcher.forcedBytes() == Array(#"{"name":""#.utf8))  // the cached answer, whole
    }

    /// Every document the grammar generates continues, at every byte, with the forced text
    /// there: checked on random documents of every representative schema.
    @Test(arguments: Schemas.all.indices)
    func everyDocumentContinuesWithTheForcedText(_ index: Int) throws {
        let grammar = try CompiledGrammar(try JSONSchemaImport.schema(fromJSON: Schemas.all[index]))
        var forcedSomewhere = false
        for seed in 0..<20 as Range<UInt64> {
            guard let document = randomWalk(grammar, Self.vocabulary, seed: seed) else { continue }
            let bytes = Array(document.utf8)
            var matcher = GrammarMatcher(grammar: grammar, vocabulary: Self.vocabulary)
            for i in 0...bytes.count {
                let forced = matcher.forcedBytes()
                forcedSomewhere = forcedSomewhere || !forced.isEmpty
                #expect(bytes[i...].starts(with: forced), "schema \(index) after '\(String(decoding: bytes[..<i], as: UTF8.self))'")
                if i < bytes.count {
                    let accepted = matcher.accept(bytes: [bytes[i]])
                    #expect(accepted)
                }
            }
        }
        #expect(forcedSomewhere)
    }
}
