import Foundation
import Testing
import PocketGGUF
@testable import PocketTokenizer

/// A `tokenizer.ggml.*` key that is present must have the right type and, for token ids, lie
/// inside the vocabulary; the error names the key. (Found by fuzzing: such keys used to fall
/// back to defaults, or were not read at all.)
@Suite struct TokenizerMetadataTests {
    /// A 256-token byte-level vocabulary, with `changes` applied to its metadata.
    static func file(_ changes: [(String, GGUFValue)] = []) throws -> GGUFFile {
        var writer = GGUFWriter()
        writer.setMetadata("tokenizer.ggml.model", .string("gpt2"))
        writer.setMetadata("tokenizer.ggml.pre", .string("gpt-2"))
        writer.setMetadata("tokenizer.ggml.tokens", .array(TinyVocabulary.byteCharacters().map { .string($0) }))
        writer.setMetadata("tokenizer.ggml.merges", .array([.string("a b")]))
        writer.setMetadata("tokenizer.ggml.bos_token_id", .uint32(1))
        for (key, value) in changes { writer.setMetadata(key, value) }
        return try GGUFFile(data: writer.encoded { _, _, _ in })
    }

    /// Expects `Tokenizer(gguf:)` to throw `invalidMetadata` for `key`, with `found` in it.
    static func expectRejected(_ key: String, _ value: GGUFValue, found: String) throws {
        let file = try file([(key, value)])
        do {
            _ = try Tokenizer(gguf: file)
            Issue.record("\(key) = \(value.summary) was accepted")
        } catch {
            guard case .invalidMetadata(let named, let got, _) = error else {
                Issue.record("\(key): unexpected error \(error)"); return
            }
            #expect(named == key)
            #expect(got.contains(found), "\(error)")
            #expect(error.description.contains(key))
        }
    }

    @Test func aValidFileLoads() throws {
        let tokenizer = try Tokenizer(gguf: Self.file([("tokenizer.ggml.padding_token_id", .uint32(255))]))
        #expect(tokenizer.vocabularySize == 256 && tokenizer.bosToken == 1)
    }

    @Test func tokenIdsOutsideTheVocabulary() throws {
        try Self.expectRejected("tokenizer.ggml.bos_token_id", .uint32(256), found: "256")
        try Self.expectRejected("tokenizer.ggml.eos_token_id", .int32(-1), found: "-1")
        try Self.expectRejected("tokenizer.ggml.padding_token_id", .uint32(100_000), found: "100000")
        try Self.expectRejected("tokenizer.ggml.eot_token_id", .uint32(999), found: "999")
    }

    @Test func tokenIdsOfTheWrongType() throws {
        try Self.expectRejected("tokenizer.ggml.eos_token_id", .uint64(1 << 63), found: "uint64 9223372036854775808")
        try Self.expectRejected("tokenizer.ggml.bos_token_id", .string("1"), found: "string")
        try Self.expectRejected("tokenizer.ggml.padding_token_id", .float32(2), found: "float32")
    }

    @Test func otherKeysOfTheWrongType() throws {
        try Self.expectRejected("tokenizer.ggml.add_bos_token", .uint8(1), found: "uint8 1")
        try Self.expectRejected("tokenizer.ggml.pre", .uint32(2), found: "uint32 2")
        try Self.expectRejected("tokenizer.ggml.model", .bool(true), found: "bool")
        try Self.expectRejected("tokenizer.ggml.token_type", .array([.string("1")]), found: "array of 1 string")
        try Self.expectRejected("tokenizer.ggml.merges", .array([.uint32(1)]), found: "array of 1 uint32")
    }
}
