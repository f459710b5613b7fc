import Foundation
import Testing
import PocketGGUF
@testable import PocketTokenizer

/// Agreement with llama.cpp's tokenizations of the small test model, SmolLM2 (`../shared/golden`).
@Suite(.enabled(if: TestModel.isInstalled && TestModel.hasGolden, "needs Weights/fetch and ../shared/golden"))
struct GoldenTokenizationTests {
    struct Case: Decodable {
        var text: String
        var ids: [Int]
        var ids_parse_special: [Int]
    }

    static func cases(in directory: URL = TestModel.golden) throws -> [Case] {
        let text = try String(contentsOf: directory.appendingPathComponent("tokenize_shared.jsonl"), encoding: .utf8)
        return try text.split(separator: "\n").map { try JSONDecoder().decode(Case.self, from: Data($0.utf8)) }
    }

    @Test func everyLineMatchesBothWays() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 20)
        for c in cases {
            #expect(TestModel.tokenizer.encode(c.text) == c.ids, "plain: \(c.text.debugDescription)")
            #expect(TestModel.tokenizer.encode(c.text, parseSpecial: true) == c.ids_parse_special,
                    "special: \(c.text.debugDescription)")
        }
    }

    @Test func decodingGivesTheTextBack() throws {
        for c in try Self.cases() {
            #expect(TestModel.tokenizer.decode(c.ids) == c.text)
            #expect(TestModel.tokenizer.decode(c.ids_parse_special) == c.text)
        }
    }
}

/// Agreement with llama.cpp's tokenizations of Qwen2.5-Coder (`../shared/golden/qwen`).
@Suite(.enabled(if: QwenModel.isInstalled && QwenModel.hasGolden, "needs the Qwen model from Weights/fetch and ../shared/golden/qwen"))
struct QwenGoldenTokenizationTests {
    @Test func everyLineMatchesBothWays() throws {
        let cases = try GoldenTokenizationTests.cases(in: QwenModel.golden)
        #expect(cases.count >= 20)
        for c in cases {
            #expect(QwenModel.tokenizer.encode(c.text) == c.ids, "plain: \(c.text.debugDescription)")
            #expect(QwenModel.tokenizer.encode(c.text, parseSpecial: true) == c.ids_parse_special,
                    "special: \(c.text.debugDescription)")
            #expect(QwenModel.tokenizer.decode(c.ids) == c.text)
        }
    }
}

@Suite(.enabled(if: TestModel.isInstalled, "needs Weights/fetch"))
struct SmolLM2TokenizerTests {
    let tokenizer = TestModel.tokenizer

    @Test func specialTokenStringsInUserTextNeverBecomeSpecialTokens() {
        let specials = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<repo_name>", "<file_sep>", "<empty_output>"]
        for special in specials {
            let text = "user says \(special)assistant\n\(special)"
            let ids = tokenizer.encode(text)
            #expect(!ids.contains(where: tokenizer.isSpecial), "\(special) produced a special id: \(ids)")
            #expect(tokenizer.decode(ids) == text)
            // With parsing on, the same text does contain the special token.
            #expect(tokenizer.encode(text, parseSpecial: true).contains(tokenizer.specialToken(special)!))
        }
    }

    @Test func endOfGenerationTokensFollowTheMetadata() {
        // EOS is 2 (<|im_end|>) in the model's metadata; <|endoftext|> (0) also ends a turn.
        #expect(tokenizer.eosToken == 2)
        #expect(tokenizer.endOfGenerationTokens == [0, 2])
        #expect(!tokenizer.addsBOS)
        #expect(tokenizer.vocabularySize == 49152)
    }

    @Test func bytesWithoutATokenDoNotCrash() {
        // The vocabulary has no token for some control bytes; they become the unknown token.
        let text = "a\u{04}\u{7F}b\u{1B}"
        let ids = tokenizer.encode(text)
        #expect(ids.first == tokenizer.encode("a").first)
        #expect(!ids.isEmpty)
    }

    @Test func bytesOfTokensAreTheirUTF8() {
        #expect(tokenizer.bytes(of: 19556) == Array("Hello".utf8))
        #expect(tokenizer.bytes(of: 905) == Array(" world".utf8))
        #expect(tokenizer.bytes(of: 1) == Array("<|im_start|>".utf8))
        #expect(tokenizer.bytes(of: -1) == [] && tokenizer.bytes(of: 49152) == [])
    }

    @Test func unsupportedMetadataIsAnError() throws {
        var writer = GGUFWriter()
        writer.setMetadata("tokenizer.ggml.model", .string("bert"))
        let file = try GGUFFile(data: writer.encoded { _, _, _ in })
        #expect(throws: TokenizerError.unsupportedModel("bert")) { try Tokenizer(gguf: file) }

        var missing = GGUFWriter()
        missing.setMetadata("tokenizer.ggml.model", .string("gpt2"))
        let empty = try GGUFFile(data: missing.encoded { _, _, _ in })
        #expect(throws: TokenizerError.missingMetadata("tokenizer.ggml.tokens")) { try Tokenizer(gguf: empty) }
    }
}

@Suite struct BytePairEncodingTests {
    @Test func mergesApplyByRankNotByPosition() throws {
        // "a b" has rank 0 and "b c" rank 1: "abc" → "ab" + "c", never "a" + "bc".
        let tokenizer = try TinyVocabulary.make(merges: ["a b", "b c"])
        let ab = tokenizer.vocabularySize - 2
        #expect(tokenizer.encode("abc") == [ab, TinyVocabulary.byte(UInt8(ascii: "c"))])
        let reversed = try TinyVocabulary.make(merges: ["b c", "a b"])
        let bc = reversed.vocabularySize - 2
        #expect(reversed.encode("abc") == [TinyVocabulary.byte(UInt8(ascii: "a")), bc])
    }

    @Test func mergesBuildLongerTokensStepByStep() throws {
        let tokenizer = try TinyVocabulary.make(merges: ["h e", "l l", "he ll", "hell o"])
        let hello = tokenizer.vocabularySize - 1
        #expect(tokenizer.encode("hello") == [hello])
        #expect(tokenizer.decode([hello]) == "hello")
    }

    @Test func piecesAreEncodedSeparately() throws {
        // The pre-tokenizer splits " b" from "a": no merge may cross the boundary.
        let tokenizer = try TinyVocabulary.make(merges: ["a Ġ"])
        #expect(tokenizer.encode("a b") == [97, 32, 98])
        // "a " is two pieces as well ("a", then the trailing space).
        #expect(tokenizer.encode("a ") == [97, 32])
    }

    @Test func specialTokensNeedTheOptIn() throws {
        let tokenizer = try TinyVocabulary.make(merges: [], specials: ["<s>"])
        let special = tokenizer.vocabularySize - 1
        #expect(tokenizer.encode("x<s>", parseSpecial: true) == [120, special])
        #expect(tokenizer.encode("x<s>") == [120, 60, 115, 62])
    }

    @Test func inconsistentVocabulariesAreErrors() {
        #expect(throws: TokenizerError.self) {
            try Tokenizer(tokens: ["a"], tokenTypes: [1, 1], merges: [], preTokenizer: "gpt-2", bosToken: nil, eosToken: nil)
        }
        #expect(throws: TokenizerError.unsupportedPreTokenizer("mystery")) {
            try Tokenizer(tokens: ["a"], tokenTypes: [1], merges: [], preTokenizer: "mystery", bosToken: nil, eosToken: nil)
        }
        #expect(throws: TokenizerError.self) {
            try Tokenizer(tokens: ["a"], tokenTypes: [1], merges: [], preTokenizer: "gpt-2", bosToken: 5, eosToken: nil)
        }
    }
}
