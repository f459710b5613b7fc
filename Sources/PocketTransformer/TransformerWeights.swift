import PocketGGUF
import PocketKernels

/// The weights of one transformer block, pointing into the memory-mapped model file.
public struct LayerWeights: @unchecked Sendable {
    /// RMSNorm scale before attention, `(dim)`.
    public let attentionNorm: UnsafePointer<Float>
    /// Query projection, `(heads · headDim) × dim`.
    public let query: WeightMatrix
    /// Key projection, `(kvHeads · headDim) × dim`.
    public let key: WeightMatrix
    /// Value projection, `(kvHeads · headDim) × dim`.
    public let value: WeightMatrix
    /// Optional Q/K/V biases (Qwen2).
    public let queryBias, keyBias, valueBias: UnsafePointer<Float>?
    /// Attention output projection, `dim × (heads · headDim)`.
    public let output: WeightMatrix
    /// RMSNorm scale before the feed-forward network, `(dim)`.
    public let feedForwardNorm: UnsafePointer<Float>
    /// SwiGLU gate projection, `ffn × dim`.
    public let gate: WeightMatrix
    /// SwiGLU up projection, `ffn × dim`.
    public let up: WeightMatrix
    /// Down projection, `dim × ffn`.
    public let down: WeightMatrix
}

/// Every weight of a Llama-family model, looked up by its GGUF tensor name.
///
/// Nothing is copied: matrices and norm vectors point into the mapped file, which the owner of
/// these weights (``Transformer``) keeps alive.
public struct TransformerWeights: @unchecked Sendable {
    /// Token embedding table, `vocab × dim` (`token_embd.weight`).
    public let tokenEmbedding: WeightMatrix
    /// Per-block weights (`blk.N.*`).
    public let layers: [LayerWeights]
    /// Final RMSNorm scale (`output_norm.weight`).
    public let outputNorm: UnsafePointer<Float>
    /// Output projection to logits, `vocab × dim` (`output.weight`, or the embedding table when
    /// the model ties them).
    public let output: WeightMatrix

    /// Looks up and validates every tensor the configuration needs.
    ///
    /// - Throws: ``TransformerError/invalidMetadata(key:found:expected:)`` when `block_count`
    ///   disagrees with the `blk.N.` layers the file has tensors for;
    ///   ``TransformerError/missingTensor(_:)`` or ``TransformerError/invalidTensor(name:reason:)``.
    public init(file: GGUFFile, configuration c: ModelConfiguration) throws(TransformerError) {
        try Self.checkLayerCount(file, c)
        let architecture = Architecture(rawValue: c.architecture) ?? .llama
        func matrix(_ name: String, rows: Int, columns: Int) throws(TransformerError) -> WeightMatrix {
            guard let info = file.tensor(named: name) else { throw .missingTensor(name) }
            guard info.dimensions == [columns, rows] else {
                throw .invalidTensor(name: name, reason: "shape \(info.dimensions), expected [\(columns), \(rows)]")
            }
            let bytes = file.bytes(of: info)
            guard let base = bytes.baseAddress else { throw .invalidTensor(name: name, reason: "no data") }
            do {
                return try WeightMatrix(type: info.type, rows: rows, columns: columns, data: base, byteCount: bytes.count)
            } catch {
                throw .invalidTensor(name: name, reason: error.description)
            }
        }
        func vector(_ name: String, count: Int) throws(TransformerError) -> UnsafePointer<Float> {
            guard let info = file.tensor(named: name) else { throw .missingTensor(name) }
            guard info.dimensions == [count] else {
                throw .invalidTensor(name: name, reason: "shape \(info.dimensions), expected [\(count)]")
            }
            guard info.type == .f32 else {
                throw .invalidTensor(name: name, reason: "type \(info.type), expected f32")
            }
            let bytes = file.bytes(of: info)
            guard let base = bytes.baseAddress, Int(bitPattern: base) % MemoryLayout<Float>.alignment == 0 else {
                throw .invalidTensor(name: name, reason: "data is not aligned for f32")
            }
            return base.assumingMemoryBound(to: Float.self)
        }
        func optionalVector(_ name: String, count: Int) throws(TransformerError) -> UnsafePointer<Float>? {
            file.tensor(named: name) == nil ? nil : try vector(name, count: count)
        }

        let dim = c.embeddingLength
        tokenEmbedding = try matrix("token_embd.weight", rows: c.vocabularySize, columns: dim)
        var layers: [LayerWeights] = []
        layers.reserveCapacity(c.layerCount)
        for i in 0..<c.layerCount {
            let p = "blk.\(i)."
            let bias = architecture.hasAttentionBias
            layers.append(LayerWeights(
                attentionNorm: try vector(p + "attn_norm.weight", count: dim),
                query: try matrix(p + "attn_q.weight", rows: c.queryLength, columns: dim),
                key: try matrix(p + "attn_k.weight", rows: c.keyValueLength, columns: dim),
                value: try matrix(p + "attn_v.weight", rows: c.keyValueLength, columns: dim),
                queryBias: bias ? try optionalVector(p + "attn_q.bias", count: c.queryLength) : nil,
                keyBias: bias ? try optionalVector(p + "attn_k.bias", count: c.keyValueLength) : nil,
                valueBias: bias ? try optionalVector(p + "attn_v.bias", count: c.keyValueLength) : nil,
                output: try matrix(p + "attn_output.weight", rows: dim, columns: c.queryLength),
                feedForwardNorm: try vector(p + "ffn_norm.weight", count: dim),
                gate: try matrix(p + "ffn_gate.weight", rows: c.feedForwardLength, columns: dim),
                up: try matrix(p + "ffn_up.weight", rows: c.feedForwardLength, columns: dim),
                down: try matrix(p + "ffn_down.weight", rows: dim, columns: c.feedForwardLength)))
        }
        self.layers = layers
        outputNorm = try vector("output_norm.weight", count: dim)
        output = file.tensor(named: "output.weight") == nil
            ? tokenEmbedding
            : try matrix("output.weight", rows: c.vocabularySize, columns: dim)
    }

    /// Checks that the layers with `blk.N.` tensors are exactly `0..<block_count`: running a
    /// 30-layer file as 7 layers (or asking for layers it lacks) must not happen silently.
    private static func checkLayerCount(_ file: GGUFFile, _ c: ModelConfiguration) throws(TransformerError) {
        var layers = Set<Int>()
        for tensor in file.tensors where tensor.name.hasPrefix("blk.") {
            let rest = tensor.name.dropFirst(4)
            guard let dot = rest.firstIndex(of: "."), let layer = Int(rest[..<dot]), layer >= 0 else {
                throw .invalidTensor(name: tensor.name, reason: "a block tensor's name must be blk.<layer>.<weight>")
            }
            layers.insert(layer)
        }
        let key = c.architecture + ".block_count"
        if let last = layers.max(), last >= c.layerCount {
            throw .invalidMetadata(key: key, found: "\(c.layerCount)",
                                   expected: "\(last + 1): the file has tensors for layers up to blk.\(last)")
        }
        if let missing = (0..<c.layerCount).first(where: { !layers.contains($0) }) {
            throw .invalidMetadata(key: key, found: "\(c.layerCount)",
                                   expected: "the \(layers.count) layers the file has tensors for (none for blk.\(missing))")
        }
    }
}
