import Foundation
import PocketGGUF
import PocketKernels
import PocketTransformer

/// `pocket-bench synth`: writes a deterministic synthetic model with the shape of Apple's 2024
/// on-device model (≈3B parameters) and every matrix in Q2_K, for throughput measurements.
///
/// The weights are random (a fixed seed): the model produces meaningless text. Its metadata and
/// tensor names are the standard llama.cpp ones, and the tokenizer is copied from the default
/// model, so other GGUF engines load it too.
enum SyntheticModelCommand {
    /// Shape of the synthetic model.
    static let layers = 26, dim = 3072, ffn = 8192, heads = 24, kvHeads = 8, headDim = 128, vocabulary = 49152

    static func run(_ argv: [String]) throws {
        let root = ThroughputCommand.packageRoot().appendingPathComponent("Weights")
        var output = root.appendingPathComponent("synthetic-afm-3b-q2_k.gguf")
        var rest = argv[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--output":
                guard let path = rest.popFirst() else { throw BenchError.usage("--output needs a path") }
                output = URL(fileURLWithPath: path)
            default: throw BenchError.usage("unknown argument '\(argument)'")
            }
        }
        let source = root.appendingPathComponent("SmolLM2-135M-Instruct.Q4_1.gguf")
        guard FileManager.default.fileExists(atPath: source.path) else {
            throw BenchError(message: "the tokenizer is copied from the default model: run Weights/fetch first")
        }
        let tokenizerSource = try GGUFFile(contentsOf: source)
        let writer = try makeWriter(copyingTokenizerFrom: tokenizerSource)
        progress("writing \(output.path) (random weights, for throughput only)...")
        var written = 0
        try writer.write(to: output) { index, tensor, sink in
            try fill(tensor, seed: UInt64(index), sink: sink)
            written += tensor.byteCount
        }
        progress(String(format: "wrote %.2f GB", Double(written) / 1e9))
    }

    static func makeWriter(copyingTokenizerFrom source: GGUFFile) throws -> GGUFWriter {
        var writer = GGUFWriter(alignment: 32)
        let a = "llama."
        writer.setMetadata("general.architecture", .string("llama"))
        writer.setMetadata("general.name", .string("Pocket synthetic AFM-3B-shaped Q2_K (random weights, throughput only)"))
        writer.setMetadata("general.file_type", .uint32(10))  // LLAMA_FTYPE_MOSTLY_Q2_K
        writer.setMetadata("general.quantization_version", .uint32(2))
        writer.setMetadata(a + "block_count", .uint32(UInt32(layers)))
        writer.setMetadata(a + "context_length", .uint32(4096))
        writer.setMetadata(a + "embedding_length", .uint32(UInt32(dim)))
        writer.setMetadata(a + "feed_forward_length", .uint32(UInt32(ffn)))
        writer.setMetadata(a + "attention.head_count", .uint32(UInt32(heads)))
        writer.setMetadata(a + "attention.head_count_kv", .uint32(UInt32(kvHeads)))
        writer.setMetadata(a + "rope.freq_base", .float32(500_000))
        writer.setMetadata(a + "rope.dimension_count", .uint32(UInt32(headDim)))
        writer.setMetadata(a + "attention.layer_norm_rms_epsilon", .float32(1e-5))
        writer.setMetadata(a + "vocab_size", .uint32(UInt32(vocabulary)))
        for key in source.metadata.keys where key.hasPrefix("tokenizer.") {
            writer.setMetadata(key, source.metadata[key]!)
        }
        func matrix(_ name: String, _ columns: Int, _ rows: Int) {
            writer.addTensor(name: name, dimensions: [columns, rows], type: .q2_K,
                             byteCount: rows * columns / 256 * GGMLType.q2_K.typeSize)
        }
        func norm(_ name: String) {
            writer.addTensor(name: name, dimensions: [dim], type: .f32, byteCount: dim * 4)
        }
        matrix("token_embd.weight", dim, vocabulary)
        for i in 0..<layers {
            let p = "blk.\(i)."
            norm(p + "attn_norm.weight")
            matrix(p + "attn_q.weight", dim, heads * headDim)
            matrix(p + "attn_k.weight", dim, kvHeads * headDim)
            matrix(p + "attn_v.weight", dim, kvHeads * headDim)
            matrix(p + "attn_output.weight", heads * headDim, dim)
            norm(p + "ffn_norm.weight")
            matrix(p + "ffn_gate.weight", dim, ffn)
            matrix(p + "ffn_up.weight", dim, ffn)
            matrix(p + "ffn_down.weight", ffn, dim)
        }
        norm("output_norm.weight")
        return writer
    }

    /// Streams a tensor's bytes: norms are all ones; Q2_K blocks have random 2-bit quants and
    /// 4-bit scales/mins, with fixed small super-block scales so activations stay finite.
    static func fill(_ tensor: GGUFTensorInfo, seed: UInt64, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        if tensor.type == .f32 {
            let ones = [Float](repeating: 1, count: tensor.elementCount)
            try ones.withUnsafeBytes { try sink($0) }
            return
        }
        var random = SplitMix64(seed: 0x5EED_0000 &+ seed)
        let blockBytes = GGMLType.q2_K.typeSize
        let blocksPerChunk = 16_384
        var chunk = [UInt8](repeating: 0, count: blocksPerChunk * blockBytes)
        var remaining = tensor.byteCount / blockBytes
        let d = Float16(0.002), dmin = Float16(0.001)
        while remaining > 0 {
            let blocks = min(remaining, blocksPerChunk)
            chunk.withUnsafeMutableBytes { raw in
                for b in 0..<blocks {
                    let block = raw.baseAddress! + b * blockBytes
                    // 16 scale/min bytes then 64 quant bytes: 80 random bytes.
                    for word in 0..<10 { block.storeBytes(of: random.next(), toByteOffset: 8 * word, as: UInt64.self) }
                    block.storeBytes(of: d, toByteOffset: 80, as: Float16.self)
                    block.storeBytes(of: dmin, toByteOffset: 82, as: Float16.self)
                }
            }
            try chunk.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<(blocks * blockBytes)])) }
            remaining -= blocks
        }
    }
}
