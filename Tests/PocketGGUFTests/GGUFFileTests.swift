import Foundation
import Testing
@testable import PocketGGUF

/// Parses SmolLM2, the small test model, and compares everything against facts the `gguf` Python package
/// extracted independently (Fixtures/smollm2.json, made by Fixtures/make_fixtures.py).
@Suite("GGUFFile: SmolLM2", .enabled(if: TestPaths.hasSmolLM2, "SmolLM2, the small test model, is absent: run Weights/fetch"))
struct GGUFFileTests {
    let file: GGUFFile
    let facts: JSON

    init() throws {
        file = try GGUFFile(contentsOf: TestPaths.smolLM2)
        facts = try JSON.load("smollm2.json")
    }

    @Test func header() {
        #expect(file.version == UInt32(facts["version"]!.int!))
        #expect(file.version == 3)
        #expect(file.alignment == facts["alignment"]!.int!)
        #expect(file.dataOffset == facts["data_offset"]!.int!)
        #expect(file.byteCount == facts["file_size"]!.int!)
        #expect(file.tensors.count == facts["tensor_count"]!.int!)
        #expect(file.metadata.count == facts["kv_count"]!.int!)
        #expect(file.architecture == "llama")
    }

    @Test func metadataMatchesPython() throws {
        let entries = try #require(facts["metadata"]?.array)
        #expect(file.metadata.keys == entries.map { $0["key"]!.string! })
        for entry in entries {
            let key = entry["key"]!.string!
            let value = try #require(file.metadata[key], "\(key)")
            #expect(value.valueType.description == entry["type"]!.string!, "\(key)")
            if let elements = value.arrayValue {
                #expect(elements.count == entry["count"]!.int!, "\(key)")
                if let first = entry["first"]?.array {
                    #expect(elements.prefix(first.count).map(jsonScalar) == first.map { $0 }, "\(key)")
                    #expect(elements.last.flatMap(jsonScalar) == entry["last"], "\(key)")
                    #expect(elements.first?.valueType.description == entry["element_type"]!.string!, "\(key)")
                }
            } else {
                #expect(jsonScalar(value) == entry["value"], "\(key)")
            }
        }
    }

    @Test func typedAccessors() throws {
        #expect(try file.metadata.requiredInteger("llama.block_count") == 30)
        #expect(file.metadata.string("tokenizer.ggml.pre") == facts.metadataValue("tokenizer.ggml.pre")?.string)
        #expect(file.metadata.strings("tokenizer.ggml.tokens")?.count == facts.metadataEntry("tokenizer.ggml.tokens")?["count"]?.int)
        #expect(file.metadata.integers("tokenizer.ggml.token_type")?.count == facts.metadataEntry("tokenizer.ggml.token_type")?["count"]?.int)
        #expect(try file.metadata.requiredFloat("llama.rope.freq_base") == facts.metadataValue("llama.rope.freq_base")?.double)
        #expect(file.metadata.bool("tokenizer.ggml.add_bos_token") == false)
        #expect(throws: GGUFError.self) { try file.metadata.requiredString("llama.block_count") }
        #expect(throws: GGUFError.self) { try file.metadata.requiredInteger("no.such.key") }
    }

    @Test func tensorsMatchPython() throws {
        let expected = try #require(facts["tensors"]?.array)
        #expect(file.tensors.count == expected.count)
        for (tensor, entry) in zip(file.tensors, expected) {
            #expect(tensor.name == entry["name"]!.string!)
            #expect(tensor.dimensions == entry["dimensions"]!.array!.map { $0.int! }, "\(tensor.name)")
            #expect(Int(tensor.type.rawValue) == entry["type"]!.int!, "\(tensor.name)")
            #expect(tensor.offset == entry["offset"]!.int!, "\(tensor.name)")
            #expect(tensor.byteCount == entry["byte_count"]!.int!, "\(tensor.name)")
            let bytes = file.bytes(of: tensor)
            #expect(bytes.count == tensor.byteCount)
            #expect(Array(bytes.prefix(8)) == entry["first_bytes"]!.array!.map { UInt8($0.int!) }, "\(tensor.name)")
            #expect(file.tensor(named: tensor.name) == tensor)
        }
        let embeddings = try #require(file.tensor(named: "token_embd.weight"))
        #expect(embeddings.type == .q8_0)
        #expect(embeddings.dimensions == [576, 49152])
        #expect(file.tensor(named: "no.such.tensor") == nil)
    }

    @Test func dataIsMappedNotCopied() throws {
        let first = try #require(file.tensors.first)
        let bytes = file.bytes(of: first)
        #expect(bytes.baseAddress == file.rawBytes.baseAddress! + file.dataOffset + first.offset)
        #expect(Int(bitPattern: file.rawBytes.baseAddress!) % 4096 == 0)
    }
}

extension JSON {
    func metadataEntry(_ key: String) -> JSON? {
        self["metadata"]?.array?.first { $0["key"]?.string == key }
    }
    func metadataValue(_ key: String) -> JSON? { metadataEntry(key)?["value"] }
}
