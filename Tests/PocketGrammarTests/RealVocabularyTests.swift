import Foundation
import Testing
@testable import PocketGrammar

/// The guarantees on the small test model's (SmolLM2's) 49,152-token vocabulary.
@Suite(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"), .serialized)
struct RealVocabularyTests {
    @Test(arguments: Array(Schemas.all.indices))
    func randomWalksAreValidAndNeverStuck(schema index: Int) throws {
        let text = Schemas.all[index]
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: text))
        for seed in 0..<6 {
            guard let out = randomWalk(grammar, TestModel.vocabulary, seed: UInt64(seed) + 1000) else {
                Issue.record("dead end: schema \(index) seed \(seed)")
                continue
            }
            #expect(Validator.validate(out, against: text) == nil, "schema \(index): \(out)")
        }
    }

    /// Inside pattern-constrained strings the mask comes from per-position tables ranked by
    /// the room each token needs; at every step of random walks it must equal the token-by-token
    /// check (`allows`, which advances the parse state over each token's bytes), including near
    /// the length limit and inside multi-byte characters.
    @Test func patternMasksEqualTokenByTokenChecks() throws {
        let schemas = [
            // The pattern schemas of `pocket-bench grammar`'s suite.
            ##"{"type":"object","properties":{"name":{"type":"string","pattern":"^[A-Z][a-z]+( [A-Z][a-z]+)?$","maxLength":40},"code":{"type":"string","pattern":"^[A-Z]{3}-\\d{4}$"}},"required":["name","code"],"additionalProperties":false}"##,
            ##"{"type":"object","properties":{"email":{"type":"string","pattern":"^[a-z0-9._]+@[a-z0-9]+\\.(com|org|net)$","maxLength":60},"verified":{"const":true}},"required":["email","verified"],"additionalProperties":false}"##,
            ##"{"type":"object","properties":{"w":{"type":"string","pattern":"[a-z]+","maxLength":7}},"required":["w"]}"##,
            ##"{"type":"object","properties":{"w":{"type":"string","pattern":"(ab|é[0-9])+c?","maxLength":12}},"required":["w"]}"##,
        ]
        let vocabulary = TestModel.vocabulary
        for (index, text) in schemas.enumerated() {
            let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: text))
            for seed in 0..<3 {
                var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
                var mask = TokenMask(count: vocabulary.count)
                var state = UInt64(seed * 7919 + index) | 1
                for step in 0..<24 {
                    matcher.fillMask(&mask)
                    let expected = (0..<vocabulary.count).filter { matcher.allows($0) }
                    let actual = mask.allowedTokens
                    let extra = Set(actual).subtracting(expected).sorted().prefix(5)
                    let missing = Set(expected).subtracting(actual).sorted().prefix(5)
                    #expect(extra.isEmpty && missing.isEmpty,
                            "schema \(index) seed \(seed) step \(step): extra \(Array(extra)), missing \(Array(missing))")
                    let choices = actual.filter { !vocabulary.endOfGeneration.contains($0) }
                    if choices.isEmpty || matcher.isComplete { break }
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    matcher.accept(choices[Int(state >> 33) % choices.count])
                }
            }
        }
    }

    /// Valid documents, tokenized as the model would write them, are accepted token by token;
    /// each invalid one is rejected exactly at the byte that breaks it (found by hand).
    @Test func documentsAreCheckedTokenByToken() throws {
        let cases: [(schema: Int, document: String, firstBadByte: Int?)] = [
            (0, ##"{"name":"Whiskers","age":3}"##, nil),
            (0, ##"{"name":"Whiskers","age":30}"##, 26),          // 30 > 20: the "0"
            (0, ##"{"age":3,"name":"Whiskers"}"##, 2),            // wrong order: "a" of age
            (1, ##"{"tags":["calm","fluffy"]}"##, nil),
            (1, ##"{"tags":[]}"##, 9),                             // minItems 1: the "]"
            (2, ##"{"mood":"curious","score":-2.5}"##, nil),
            (2, ##"{"mood":"angry","score":1}"##, 9),              // not an enum value: "a"
            (5, ##"{"v":1,"kids":[{"v":2,"kids":[]}]}"##, nil),
            (6, ##"{"kind":"dog"}"##, nil),
            (6, ##"{"kind":"cat"}"##, 13),                         // cats need lives: the "}"
            (7, ##"{"note":"hi","extra":{"a":[1,true,null]}}"##, nil),
            (8, ##"{"code":"AB-123","tags":["red-fox","cat"]}"##, nil),
            (8, ##"{"code":"AB-12x","tags":[]}"##, 14),            // \d expected: the "x"
        ]
        let tokenizer = TestModel.tokenizer
        for c in cases {
            let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: Schemas.all[c.schema]))
            let tokens = tokenizer.encode(c.document)
            let outcome = SchemaCheck.check(tokens: tokens, grammar: grammar, vocabulary: TestModel.vocabulary)
            guard let bad = c.firstBadByte else {
                #expect(outcome == .accept, "\(c.document)")
                continue
            }
            // The token that contains the first bad byte.
            var offset = 0, index = 0
            while offset + tokenizer.bytes(of: tokens[index]).count <= bad {
                offset += tokenizer.bytes(of: tokens[index]).count
                index += 1
            }
            #expect(outcome == .reject(tokenIndex: index, byteOffset: bad), "\(c.document): \(outcome)")
        }
    }

    /// Randomized: valid documents (random walks over a byte vocabulary), tokenized as the
    /// model would, are accepted token by token; a one-byte change makes the document either
    /// still valid (then accepted) or rejected no earlier than the changed byte.
    @Test(arguments: Array(Schemas.all.indices))
    func randomDocumentsAndMutationsAreCheckedConsistently(schema index: Int) throws {
        let text = Schemas.all[index]
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: text))
        var rng = SeededRandom(seed: UInt64(index) + 77)
        var checked = 0
        defer { #expect(checked >= 3, "only \(checked) documents could be checked for schema \(index)") }
        for seed in 0..<16 {
            guard let document = randomWalk(grammar, SyntheticVocabulary.vocabulary, seed: UInt64(seed) + 500),
                  Validator.validate(document, against: text) == nil else { continue }
            let tokens = TestModel.tokenizer.encode(document)
            // Skip text the vocabulary cannot spell (bytes such as DEL have no token here).
            guard !tokens.contains(where: TestModel.tokenizer.isSpecial) else { continue }
            checked += 1
            #expect(SchemaCheck.check(tokens: tokens, grammar: grammar, vocabulary: TestModel.vocabulary) == .accept, "\(document)")
            // Mutate one byte into a printable ASCII character.
            var bytes = Array(document.utf8)
            let position = Int(rng.next() % UInt64(bytes.count))
            bytes[position] = UInt8(0x20 + rng.next() % 95)
            guard let mutated = String(validating: bytes, as: UTF8.self) else { continue }
            let mutatedTokens = TestModel.tokenizer.encode(mutated)
            guard !mutatedTokens.contains(where: TestModel.tokenizer.isSpecial) else { continue }
            let outcome = SchemaCheck.check(tokens: mutatedTokens, grammar: grammar, vocabulary: TestModel.vocabulary)
            if Validator.validate(mutated, against: text) == nil {
                #expect(outcome == .accept || outcome == .incomplete, "\(mutated): \(outcome)")
            } else {
                switch outcome {
                case .reject(_, let offset): #expect(offset >= position, "\(mutated): rejected at \(offset) before the change at \(position)")
                case .incomplete: break
                case .accept: Issue.record("accepted an invalid document: \(mutated)")
                }
            }
        }
    }

    @Test func specialTokensAreNeverAllowedInValues() throws {
        let grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: ##"{"type":"string"}"##))
        var matcher = GrammarMatcher(grammar: grammar, vocabulary: TestModel.vocabulary)
        let accepted = matcher.accept(bytes: Array("\"abc".utf8))
        #expect(accepted)
        var mask = TokenMask(count: TestModel.vocabulary.count)
        matcher.fillMask(&mask)
        for id in 0..<TestModel.tokenizer.vocabularySize where TestModel.tokenizer.isSpecial(id) {
            #expect(!mask.contains(id) || TestModel.vocabulary.endOfGeneration.contains(id) && mask.allowsEnd)
        }
        #expect(!mask.allowsEnd)
    }
}
