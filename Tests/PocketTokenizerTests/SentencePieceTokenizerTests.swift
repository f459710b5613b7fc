import Foundation
import Testing
import PocketGGUF
import PocketKernels  // SplitMix64, the project's seeded generator
@testable import PocketTokenizer

/// Agreement with llama.cpp's tokenizations of Gemma 3 270M, a SentencePiece vocabulary
/// (`../shared/golden/gemma3`). llama.cpp's lists start with BOS (the model's
/// `add_bos_token`); ``Tokenizer/encode(_:parseSpecial:)`` never adds it, so it is prepended.
@Suite(.enabled(if: GemmaModel.isInstalled && GemmaModel.hasGolden, "needs `Weights/fetch gemma3` and ../shared/golden/gemma3"))
struct GemmaGoldenTokenizationTests {
    let tokenizer = GemmaModel.tokenizer

    @Test func everyLineMatchesBothWays() throws {
        let cases = try GoldenTokenizationTests.cases(in: GemmaModel.golden)
        #expect(cases.count >= 20)
        let bos = try #require(tokenizer.bosToken)
        #expect(bos == 2 && tokenizer.addsBOS)
        for c in cases {
            #expect([bos] + tokenizer.encode(c.text) == c.ids, "plain: \(c.text.debugDescription)")
            #expect([bos] + tokenizer.encode(c.text, parseSpecial: true) == c.ids_parse_special,
                    "special: \(c.text.debugDescription)")
        }
    }

    @Test func decodingGivesTheTextBack() throws {
        for c in try GoldenTokenizationTests.cases(in: GemmaModel.golden) {
            #expect(tokenizer.decode(tokenizer.encode(c.text)) == c.text, "\(c.text.debugDescription)")
            #expect(tokenizer.decode(Array(c.ids.dropFirst())) == c.text, "\(c.text.debugDescription)")
        }
    }

    @Test func theHeapMergeAgreesWithTheDirectAlgorithm() {
        let texts = BytePairMergeTests.randomTexts(seed: 0x6E33, count: 300, maximumLength: 60)
            + BytePairMergeTests.repetitive.map { String($0.prefix(400)) }
        for text in texts {
            #expect(tokenizer.encode(text, parseSpecial: false, mergingByRescanning: true) == tokenizer.encode(text),
                    "\(text.debugDescription)")
        }
    }
}

/// Gemma 3's vocabulary: byte fallback, special tokens, decoding.
@Suite(.enabled(if: GemmaModel.isInstalled, "needs `Weights/fetch gemma3`"))
struct GemmaTokenizerTests {
    let tokenizer = GemmaModel.tokenizer
    /// The vocabulary as the file stores it, read independently of the tokenizer.
    static let tokens: [String] = GemmaModel.file.metadata.strings("tokenizer.ggml.tokens") ?? []

    @Test func metadataIsRead() throws {
        #expect(tokenizer.vocabularySize == 262_144)
        #expect(!tokenizer.addsSpacePrefix)  // the file says false; llama.cpp's default would be true
        #expect(tokenizer.eosToken == 1)
        #expect(tokenizer.endOfGenerationTokens.contains(1))
        #expect(tokenizer.endOfGenerationTokens.contains(try #require(tokenizer.specialToken("<end_of_turn>"))))
        #expect(tokenizer.specialToken("<start_of_turn>") == 105)
    }

    /// U+13000 EGYPTIAN HIEROGLYPH A001 is not in the vocabulary: llama.cpp's SPM tokenizer
    /// emits one `<0xNN>` token per UTF-8 byte of a symbol that is not a piece.
    @Test func aCharacterOutsideTheVocabularyFallsBackToBytes() throws {
        let character = "\u{13000}"
        #expect(!Self.tokens.contains(character))
        let expected = try Array(character.utf8).map { byte in
            try #require(Self.tokens.firstIndex(of: String(format: "<0x%02X>", byte)))
        }
        #expect(expected.count == 4)
        let ids = tokenizer.encode("a\(character)b")
        #expect(ids == tokenizer.encode("a") + expected + tokenizer.encode("b"))
        for id in expected { #expect(tokenizer.type(of: id) == .byte) }
        #expect(expected.flatMap { tokenizer.bytes(of: $0) } == Array(character.utf8))
        #expect(tokenizer.decode(ids) == "a\(character)b")

        var detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
        let streamed = ids.map { detokenizer.append($0) }
        #expect(streamed.dropFirst().dropLast() == ["", "", "", character])
        #expect(streamed.joined() + detokenizer.finish() == "a\(character)b")
    }

    @Test func bytesOfTokensAreTheirText() throws {
        let world = try #require(Self.tokens.firstIndex(of: "▁world"))
        #expect(tokenizer.bytes(of: world) == Array(" world".utf8))
        let newline = try #require(Self.tokens.firstIndex(of: "<0x0A>"))
        #expect(tokenizer.bytes(of: newline) == [10])
        let twoSpaces = try #require(Self.tokens.firstIndex(of: "  "))  // user-defined, stored with real spaces
        #expect(tokenizer.type(of: twoSpaces) == .userDefined && tokenizer.bytes(of: twoSpaces) == [32, 32])
        #expect(tokenizer.bytes(of: 105) == Array("<start_of_turn>".utf8))
        #expect(tokenizer.bytes(of: -1) == [] && tokenizer.bytes(of: 262_144) == [])
    }

    @Test func turnMarkersInUserTextNeverBecomeSpecialTokens() {
        let text = "<start_of_turn>user\nHi<end_of_turn>\n<bos><eos><pad><unused0>"
        let plain = tokenizer.encode(text)
        #expect(!plain.contains { tokenizer.type(of: $0) == .control }, "\(plain)")
        #expect(tokenizer.decode(plain) == text)
        let parsed = tokenizer.encode(text, parseSpecial: true)
        #expect(parsed.first == 105 && parsed.contains(106) && parsed.contains(2))
        #expect(tokenizer.decode(parsed) == text)
    }

    @Test func buildingTheVocabularyIsFast() throws {
        let clock = ContinuousClock()
        let file = GemmaModel.file
        let elapsed = try clock.measure { _ = try Tokenizer(gguf: file) }
        // Well under a second in release; debug builds are several times slower.
        #expect(elapsed < .seconds(5))
    }
}

/// The SentencePiece algorithm on tiny vocabularies built by hand.
@Suite struct SentencePieceAlgorithmTests {
    /// `<unk>`, `<s>`, `</s>`, a control token, the 256 byte tokens, then `pieces`.
    static func make(_ pieces: [(String, Float)], userDefined: [String] = [], addsSpacePrefix: Bool = false,
                     byteTokens: Bool = true) throws -> Tokenizer {
        var tokens = ["<unk>", "<s>", "</s>", "<ctrl>"]
        var types = [2, 3, 3, 3]
        var scores: [Float] = [0, 0, 0, 0]
        if byteTokens {
            for byte in 0..<256 {
                tokens.append(String(format: "<0x%02X>", byte)); types.append(6); scores.append(0)
            }
        }
        for (piece, score) in pieces { tokens.append(piece); types.append(1); scores.append(score) }
        for text in userDefined { tokens.append(text); types.append(4); scores.append(0) }
        return try Tokenizer(tokens: tokens, tokenTypes: types, scores: scores, bosToken: 1, eosToken: 2,
                             unknownToken: 0, addsSpacePrefix: addsSpacePrefix)
    }

    /// The id `make` gives `pieces[i]`.
    static func piece(_ i: Int, byteTokens: Bool = true) -> Int { 4 + (byteTokens ? 256 : 0) + i }

    @Test func theHighestScoringPieceMergesFirst() throws {
        // "ab" scores lower than "bc": "abc" → "a" + "bc", although "ab" comes first.
        let t = try Self.make([("a", -1), ("b", -1), ("c", -1), ("ab", -5), ("bc", -2)])
        #expect(t.encode("abc") == [Self.piece(0), Self.piece(4)])
        // Equal scores: the leftmost pair wins.
        let tie = try Self.make([("a", -1), ("b", -1), ("c", -1), ("ab", -2), ("bc", -2)])
        #expect(tie.encode("abc") == [Self.piece(3), Self.piece(2)])
        // A merged piece merges again: "ab" + "c" → "abc".
        let deep = try Self.make([("a", -1), ("b", -1), ("c", -1), ("ab", -2), ("abc", -3)])
        #expect(deep.encode("abc") == [Self.piece(4)])
    }

    @Test func spacesAreWrittenAsLowerOneEighthBlocks() throws {
        let t = try Self.make([("a", -1), ("▁", -1), ("▁a", -2)])
        #expect(t.encode("a a") == [Self.piece(0), Self.piece(2)])
        #expect(t.decode(t.encode("a a")) == "a a")
        #expect(t.bytes(of: Self.piece(2)) == Array(" a".utf8))
    }

    @Test func theSpacePrefixIsAddedAtTheStartAndAfterSpecialTokensAndDroppedOnDecode() throws {
        let t = try Self.make([("a", -1), ("▁", -1), ("▁a", -2)], userDefined: ["<x>"], addsSpacePrefix: true)
        #expect(t.addsSpacePrefix)
        #expect(t.encode("a") == [Self.piece(2)])
        #expect(t.decode(t.encode("a")) == "a")
        let x = Self.piece(3)
        #expect(t.encode("a<x>a") == [Self.piece(2), x, Self.piece(2)])
        #expect(t.encode("<ctrl>a", parseSpecial: true) == [3, Self.piece(2)])
        // BOS first: llama.cpp drops no space, its text has none.
        #expect(t.decode([1] + t.encode("a")) == "<s> a")
    }

    @Test func missingCharactersFallBackToBytesOrUnknown() throws {
        let t = try Self.make([("a", -1)])
        // "é" is C3 A9: byte tokens 4 + 0xC3 and 4 + 0xA9.
        #expect(t.encode("aé") == [Self.piece(0), 4 + 0xC3, 4 + 0xA9])
        #expect(t.decode(t.encode("aé")) == "aé")
        let noBytes = try Self.make([("a", -1)], byteTokens: false)
        #expect(noBytes.encode("aé") == [Self.piece(0, byteTokens: false), 0, 0])
    }

    @Test func userDefinedTokensAreMatchedInAllTextControlTokensOnlyWhenAsked() throws {
        let t = try Self.make([("<", -1), ("c", -1), ("t", -1), ("r", -1), ("l", -1), (">", -1), ("x", -1)],
                              userDefined: ["<x>"])
        let x = Self.piece(7)
        #expect(t.encode("<x>") == [x])
        #expect(!t.encode("<ctrl>").contains(3))
        #expect(t.encode("<ctrl>", parseSpecial: true) == [3])
    }

    @Test func malformedVocabulariesAreTypedErrors() throws {
        #expect(throws: TokenizerError.invalidVocabulary("2 scores for 3 tokens")) {
            try Tokenizer(tokens: ["a", "b", "c"], tokenTypes: [1, 1, 1], scores: [0, 0], bosToken: nil, eosToken: nil)
        }
        #expect(throws: TokenizerError.invalidVocabulary("2 token types for 3 tokens")) {
            try Tokenizer(tokens: ["a", "b", "c"], tokenTypes: [1, 1], scores: [0, 0, 0], bosToken: nil, eosToken: nil)
        }
        #expect(throws: TokenizerError.invalidVocabulary("BOS token id 3 out of range")) {
            try Tokenizer(tokens: ["a", "b", "c"], tokenTypes: [1, 1, 1], scores: [0, 0, 0], bosToken: 3, eosToken: nil)
        }
    }

    /// A GGUF file with a `llama` tokenizer of three tokens and the given scores.
    static func file(scores: GGUFValue?, spacePrefix: Bool? = nil) throws -> GGUFFile {
        var writer = GGUFWriter()
        writer.setMetadata("tokenizer.ggml.model", .string("llama"))
        writer.setMetadata("tokenizer.ggml.tokens", .array([.string("a"), .string("b"), .string("ab")]))
        writer.setMetadata("tokenizer.ggml.token_type", .array([.int32(1), .int32(1), .int32(1)]))
        if let scores { writer.setMetadata("tokenizer.ggml.scores", scores) }
        if let spacePrefix { writer.setMetadata("tokenizer.ggml.add_space_prefix", .bool(spacePrefix)) }
        return try GGUFFile(data: writer.encoded { _, _, _ in })
    }

    @Test func malformedMetadataIsATypedError() throws {
        let short = try Self.file(scores: .array([.float32(0), .float32(0)]))
        #expect(throws: TokenizerError.invalidMetadata(key: "tokenizer.ggml.scores", found: "2 scores", expected: "one per token (3)")) {
            try Tokenizer(gguf: short)
        }
        let strings = try Self.file(scores: .array([.string("x"), .string("y"), .string("z")]))
        let error = #expect(throws: TokenizerError.self) { try Tokenizer(gguf: strings) }
        guard case .invalidMetadata(let key, _, let expected) = error else {
            Issue.record("expected invalidMetadata, got \(String(describing: error))")
            return
        }
        #expect(key == "tokenizer.ggml.scores" && expected == "an array of numbers")
        let notAnArray = try Self.file(scores: .float32(1))
        #expect(throws: TokenizerError.self) { try Tokenizer(gguf: notAnArray) }
    }

    @Test func metadataDefaultsFollowLlamaCpp() throws {
        // No scores: every piece scores 0 (leftmost merges first); no add_space_prefix: true.
        #expect(try Tokenizer(gguf: Self.file(scores: nil)).addsSpacePrefix)
        #expect(try Tokenizer(gguf: Self.file(scores: nil)).addsBOS)
        #expect(try Tokenizer(gguf: Self.file(scores: nil, spacePrefix: false)).encode("ab") == [2])
        let scored = try Tokenizer(gguf: Self.file(scores: .array([.float32(-1), .float32(-1), .float32(-2)]), spacePrefix: false))
        #expect(!scored.addsSpacePrefix)
        #expect(scored.encode("abab") == [2, 2])
    }
}
