import Foundation
import Testing
@testable import PocketGrammar

@Suite struct JSONSchemaImportTests {
    @Test func propertiesKeepDocumentOrderOrXOrder() throws {
        let schema = try JSONSchemaImport.schema(fromJSON: ##"{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}},"required":["a","b"],"additionalProperties":false}"##)
        guard case .object(let props) = schema.root else { Issue.record("not an object"); return }
        #expect(props.map(\.name) == ["b", "a"])
        let ordered = try JSONSchemaImport.schema(fromJSON: ##"{"type":"object","x-order":["a","b"],"properties":{"b":{"type":"string"},"a":{"type":"integer"}},"additionalProperties":false}"##)
        guard case .object(let props2) = ordered.root else { Issue.record("not an object"); return }
        #expect(props2.map(\.name) == ["a", "b"])
        #expect(props2.allSatisfy { !$0.isRequired })
    }

    @Test func unsupportedKeywordsAreNamedWithTheirPointer() {
        #expect(throws: GrammarError.unsupportedKeyword("format 'iri'", path: "#/properties/name/format")) {
            try JSONSchemaImport.schema(fromJSON: ##"{"type":"object","properties":{"name":{"type":"string","format":"iri"}}}"##)
        }
        #expect(throws: GrammarError.self) {
            try JSONSchemaImport.schema(fromJSON: ##"{"type":"string","pattern":"(a"}"##)
        }
        #expect(throws: GrammarError.self) {
            try JSONSchemaImport.schema(fromJSON: ##"{"type":"string","pattern":"(?=a)b"}"##)
        }
        #expect(throws: GrammarError.unsupportedKeyword("uniqueItems", path: "#/uniqueItems")) {
            try JSONSchemaImport.schema(fromJSON: ##"{"type":"array","uniqueItems":true}"##)
        }
        #expect(throws: GrammarError.undefinedReference("#/$defs/Missing", path: "#/$ref")) {
            try JSONSchemaImport.schema(fromJSON: ##"{"$ref":"#/$defs/Missing"}"##)
        }
        #expect(throws: GrammarError.self) { try JSONSchemaImport.schema(fromJSON: ##"{"type":"##) }
    }
}

@Suite struct GrammarMatcherTests {
    func grammar(_ json: String) throws -> CompiledGrammar {
        try CompiledGrammar(JSONSchemaImport.schema(fromJSON: json))
    }

    func accepts(_ g: CompiledGrammar, _ text: String) -> Bool {
        var stacks = g.initialStacks
        for b in text.utf8 {
            stacks = g.advance(stacks, b)
            if stacks.isEmpty { return false }
        }
        return g.isAccepting(stacks)
    }

    @Test func compactJSONInSchemaOrder() throws {
        let g = try grammar(Schemas.all[0])
        #expect(accepts(g, ##"{"name":"Tom","age":3}"##))
        #expect(!accepts(g, ##"{"age":3,"name":"Tom"}"##))       // order
        #expect(!accepts(g, ##"{"name": "Tom","age":3}"##))      // whitespace
        #expect(!accepts(g, ##"{"name":"Tom","age":21}"##))      // range
        #expect(!accepts(g, ##"{"name":"Tom"}"##))                // required
        #expect(accepts(g, ##"{"name":"T\"o\\m\u00e9","age":0}"##))
        #expect(!accepts(g, "{\"name\":\"a\nb\",\"age\":1}"))   // raw control character
    }

    @Test func constantsAndNull() throws {
        let g = try grammar(##"{"type":"object","properties":{"ok":{"const":true},"n":{"type":"null"},"k":{"const":"x"},"v":{"const":2}},"required":["ok","n","k","v"]}"##)
        #expect(accepts(g, ##"{"ok":true,"n":null,"k":"x","v":2}"##))
        #expect(!accepts(g, ##"{"ok":false,"n":null,"k":"x","v":2}"##))
        #expect(!accepts(g, ##"{"ok":true,"n":null,"k":"y","v":2}"##))
        #expect(!accepts(g, ##"{"ok":true,"n":null,"k":"x","v":3}"##))
    }

    @Test func numbersRespectInclusiveBoundsIncludingNegativeAndFractional() throws {
        let g = try grammar(##"{"type":"number","minimum":-2.5,"maximum":3.75}"##)
        for ok in ["-2.5", "3.75", "0", "-0.1", "3.7", "-2"] { #expect(accepts(g, ok), "\(ok)") }
        for bad in ["-2.51", "3.76", "4", "-3", "01", "1.", "+1"] { #expect(!accepts(g, bad), "\(bad)") }
        let i = try grammar(##"{"type":"integer","minimum":-50,"maximum":120}"##)
        for ok in ["-50", "120", "0", "7", "-9"] { #expect(accepts(i, ok), "\(ok)") }
        for bad in ["-51", "121", "1.5", "200", "-0.5"] { #expect(!accepts(i, bad), "\(bad)") }
    }

    @Test func patternsMatchTheWholeString() throws {
        let g = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: ##"{"type":"string","pattern":"^[A-Z]{2}-\\d{3}(x|yz)?$"}"##, patterns: .wholeString))
        for ok in ["AB-123", "ZZ-000x", "QA-999yz"] { #expect(accepts(g, "\"\(ok)\""), "\(ok)") }
        for bad in ["AB-12", "ab-123", "AB-1234", "AB-123y", "xAB-123", ""] { #expect(!accepts(g, "\"\(bad)\""), "\(bad)") }
        let dots = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: ##"{"type":"string","pattern":"a.+b|[^a-c]*"}"##, patterns: .wholeString))
        for ok in ["aéb", "a🙂🙂b", "", "xyz", "dd"] { #expect(accepts(dots, "\"\(ok)\""), "\(ok)") }
        for bad in ["ab", "abc", "axbc"] { #expect(!accepts(dots, "\"\(bad)\""), "\(bad)") }
    }

    @Test func whitespaceIsCompactByDefaultAndBoundedWhenAllowed() throws {
        let schema = try JSONSchemaImport.schema(fromJSON: Schemas.all[0])
        let compact = try CompiledGrammar(schema)
        let pretty = try CompiledGrammar(schema, whitespace: .bounded(maximumRun: 4))
        let spaced = "{\n  \"name\": \"Tom\",\n  \"age\": 3\n}"
        #expect(!accepts(compact, spaced))
        #expect(accepts(pretty, spaced))
        #expect(accepts(pretty, ##"{"name":"Tom","age":3}"##))
        #expect(!accepts(pretty, "{     \"name\":\"Tom\",\"age\":3}"))     // a run of 5
        #expect(!accepts(pretty, "{\"na me\":\"Tom\",\"age\":3}".replacingOccurrences(of: "na me", with: "name ")))
        for seed in 0..<10 {
            guard let out = randomWalk(pretty, SyntheticVocabulary.vocabulary, seed: UInt64(seed)) else {
                Issue.record("dead end with whitespace, seed \(seed)")
                continue
            }
            #expect(Validator.validate(out, against: Schemas.all[0]) == nil, "\(out)")
        }
    }

    @Test func stringsAreBoundedByDefault() throws {
        let g = try grammar(##"{"type":"string"}"##)
        #expect(accepts(g, "\"" + String(repeating: "a", count: GrammarSchema.StringConstraint.defaultMaximumLength) + "\""))
        #expect(!accepts(g, "\"" + String(repeating: "a", count: GrammarSchema.StringConstraint.defaultMaximumLength + 1) + "\""))
    }

    @Test func invalidUTF8IsRejected() throws {
        let g = try grammar(##"{"type":"string"}"##)
        var stacks = g.initialStacks
        for b: UInt8 in [0x22, 0xC3] { stacks = g.advance(stacks, b) }
        #expect(g.advance(stacks, 0x41).isEmpty)          // continuation expected
        #expect(g.advance(g.advance(g.initialStacks, 0x22), 0xC0).isEmpty)  // overlong lead
        #expect(g.advance(g.advance(g.advance(g.initialStacks, 0x22), 0xED), 0xA0).isEmpty)  // surrogate
    }

    @Test func tokensSpanningSeveralElementsAreHandled() throws {
        let g = try grammar(Schemas.all[0])
        var matcher = GrammarMatcher(grammar: g, vocabulary: SyntheticVocabulary.vocabulary)
        let v = SyntheticVocabulary.vocabulary
        func id(_ s: String) -> Int { v.tokens.firstIndex(of: Array(s.utf8))! }
        for piece in ["{\"", "name", "\":\"", "ab", "\",", "\"", "age", "\":", "12", "}"] {
            let accepted = matcher.accept(id(piece))
            #expect(accepted, "\(piece)")
        }
        #expect(matcher.canEnd)
        matcher.rollback(tokens: 2)
        #expect(!matcher.canEnd)
    }

    @Test(arguments: Array(Schemas.all.indices))
    func randomWalksEndInValidJSONWithoutDeadEnds(schema index: Int) throws {
        let text = Schemas.all[index]
        let g = try grammar(text)
        for seed in 0..<25 {
            guard let out = randomWalk(g, SyntheticVocabulary.vocabulary, seed: UInt64(seed)) else {
                Issue.record("dead end in schema \(index) seed \(seed)")
                continue
            }
            #expect(Validator.validate(out, against: text) == nil, "schema \(index) seed \(seed): \(out) — \(Validator.validate(out, against: text) ?? "")")
        }
    }

    @Test func endOfGenerationOnlyWhenComplete() throws {
        let g = try grammar(Schemas.all[0])
        var matcher = GrammarMatcher(grammar: g, vocabulary: SyntheticVocabulary.vocabulary)
        var mask = TokenMask(count: SyntheticVocabulary.vocabulary.count)
        matcher.fillMask(&mask)
        #expect(!mask.allowsEnd && !mask.contains(SyntheticVocabulary.end))
        let accepted = matcher.accept(bytes: Array(##"{"name":"x","age":1}"##.utf8))
        #expect(accepted)
        matcher.fillMask(&mask)
        #expect(mask.allowsEnd && mask.contains(SyntheticVocabulary.end))
    }
}

