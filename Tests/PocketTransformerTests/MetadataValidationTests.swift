import Foundation
import Testing
import PocketGGUF
import PocketKernels
import PocketTransformer

/// Metadata that contradicts itself or the tensors is a load error naming the key, what the
/// file has and what was expected; a present key of the wrong type never falls back to the
/// default. (Found by fuzzing: a 30-layer file with `block_count` 7 ran as 7 layers.)
@Suite struct MetadataValidationTests {
    typealias Shape = SyntheticModelTests.Shape

    /// The synthetic model of ``SyntheticModelTests`` with metadata `changes` applied (`nil`
    /// removes a key by leaving it out).
    static func file(_ changes: [String: GGUFValue?] = [:], shape: Shape = Shape()) throws -> GGUFFile {
        let tensors = SyntheticModelTests.weights(shape, architecture: "llama", tied: true, seed: 5)
        let base = try SyntheticModelTests.file(shape, architecture: "llama", tied: true, tensors: tensors)
        var writer = GGUFWriter()
        for key in base.metadata.keys {
            switch changes[key] {
            case .none: writer.setMetadata(key, base.metadata[key]!)
            case .some(.none): continue
            case .some(.some(let value)): writer.setMetadata(key, value)
            }
        }
        for (key, value) in changes where base.metadata[key] == nil {
            if let value { writer.setMetadata(key, value) }
        }
        for tensor in base.tensors {
            writer.addTensor(name: tensor.name, dimensions: tensor.dimensions, type: tensor.type, byteCount: tensor.byteCount)
        }
        let data = try writer.encoded { _, tensor, sink in try sink(base.bytes(of: base.tensor(named: tensor.name)!)) }
        return try GGUFFile(data: data)
    }

    /// Expects loading to fail with `invalidMetadata` for `key`, whose `found` contains `found`.
    static func expectRejected(_ file: GGUFFile, key: String, found: String, expected: String? = nil,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try Transformer(file: file, contextLength: 8, pool: ThreadPool(threads: 1))
            Issue.record("\(key) was accepted", sourceLocation: sourceLocation)
        } catch let error as TransformerError {
            guard case .invalidMetadata(let named, let got, let wanted) = error else {
                Issue.record("\(key): unexpected error \(error)", sourceLocation: sourceLocation); return
            }
            #expect(named == key, sourceLocation: sourceLocation)
            #expect(got.contains(found), "\(error)", sourceLocation: sourceLocation)
            if let expected { #expect(wanted.contains(expected), "\(error)", sourceLocation: sourceLocation) }
            #expect(error.description.contains(key), sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(key): unexpected error \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func theUnchangedFileLoads() throws {
        let model = try Transformer(file: Self.file(), contextLength: 8, pool: ThreadPool(threads: 1))
        #expect(model.configuration.layerCount == 2)
    }

    @Test(arguments: [1, 2, 7, 29, 31])
    func blockCountMustMatchTheLayersWithTensors(blockCount: Int) throws {
        var shape = Shape()
        shape.layers = 30
        let file = try Self.file(["llama.block_count": .uint32(UInt32(blockCount))], shape: shape)
        Self.expectRejected(file, key: "llama.block_count", found: "\(blockCount)",
                            expected: blockCount < 30 ? "blk.29" : "none for blk.30")
    }

    @Test func aMissingLayerInTheMiddleIsAnError() throws {
        let shape = Shape()
        var tensors = SyntheticModelTests.weights(shape, architecture: "llama", tied: true, seed: 5)
        tensors.removeAll { $0.0.hasPrefix("blk.0.") }
        let file = try SyntheticModelTests.file(shape, architecture: "llama", tied: true, tensors: tensors)
        Self.expectRejected(file, key: "llama.block_count", found: "2", expected: "none for blk.0")
    }

    @Test func anUnknownArchitectureIsATypedErrorNamingTheKnownOnes() throws {
        let file = try Self.file(["general.architecture": .string("mamba")])
        #expect(throws: TransformerError.unsupportedArchitecture("mamba")) {
            try Transformer(file: file, contextLength: 8, pool: ThreadPool(threads: 1))
        }
        let description = TransformerError.unsupportedArchitecture("mamba").description
        #expect(description.contains("'general.architecture' is \"mamba\""), "\(description)")
        #expect(description.contains("\"llama\", \"qwen2\""), "\(description)")
        Self.expectRejected(try Self.file(["general.architecture": .uint32(1)]), key: "general.architecture", found: "uint32")
        Self.expectRejected(try Self.file(["general.architecture": nil]), key: "general.architecture", found: "absent")
    }

    @Test func presentKeysOfTheWrongTypeAreErrors() throws {
        Self.expectRejected(try Self.file(["llama.context_length": .string("4096")]),
                            key: "llama.context_length", found: "string \"4096\"")
        Self.expectRejected(try Self.file(["llama.context_length": .uint64(1 << 63)]),
                            key: "llama.context_length", found: "uint64 9223372036854775808")
        Self.expectRejected(try Self.file(["llama.attention.head_count_kv": .float32(2)]),
                            key: "llama.attention.head_count_kv", found: "float32")
        Self.expectRejected(try Self.file(["llama.rope.freq_base": .string("10000")]),
                            key: "llama.rope.freq_base", found: "string")
        Self.expectRejected(try Self.file(["llama.attention.layer_norm_rms_epsilon": .bool(true)]),
                            key: "llama.attention.layer_norm_rms_epsilon", found: "bool")
        Self.expectRejected(try Self.file(["llama.block_count": .int64(-2)]),
                            key: "llama.block_count", found: "-2")
        Self.expectRejected(try Self.file(["llama.vocab_size": .array([.uint32(50)])]),
                            key: "llama.vocab_size", found: "array")
    }

    @Test func dimensionsMustBePositiveAndConsistent() throws {
        // Shape: embedding 64, 4 heads of 16, 2 key/value heads.
        Self.expectRejected(try Self.file(["llama.rope.dimension_count": .uint32(0)]),
                            key: "llama.rope.dimension_count", found: "0")
        Self.expectRejected(try Self.file(["llama.rope.dimension_count": .uint32(15)]),
                            key: "llama.rope.dimension_count", found: "15")
        Self.expectRejected(try Self.file(["llama.rope.dimension_count": .uint32(18)]),
                            key: "llama.rope.dimension_count", found: "18", expected: "2...16")
        Self.expectRejected(try Self.file(["llama.attention.head_count": .uint32(5)]),
                            key: "llama.attention.head_count", found: "5", expected: "embedding_length 64")
        Self.expectRejected(try Self.file(["llama.attention.head_count_kv": .uint32(3)]),
                            key: "llama.attention.head_count_kv", found: "3")
        Self.expectRejected(try Self.file(["llama.attention.head_count_kv": .uint32(0)]),
                            key: "llama.attention.head_count_kv", found: "0")
        Self.expectRejected(try Self.file(["llama.embedding_length": .uint32(0)]),
                            key: "llama.embedding_length", found: "0")
        Self.expectRejected(try Self.file(["llama.context_length": .uint32(0)]),
                            key: "llama.context_length", found: "0")
        Self.expectRejected(try Self.file(["llama.attention.key_length": .uint32(16), "llama.attention.value_length": .uint32(8)]),
                            key: "llama.attention.value_length", found: "8")
        Self.expectRejected(try Self.file(["llama.feed_forward_length": nil]),
                            key: "llama.feed_forward_length", found: "absent")
        Self.expectRejected(try Self.file(["llama.vocab_size": .uint32(51), "tokenizer.ggml.tokens": .array((0..<50).map { .string("t\($0)") })]),
                            key: "llama.vocab_size", found: "51", expected: "50")
    }
}
