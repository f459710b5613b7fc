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
    /// Query bias, `(heads · headDim)`, for families that have one (Qwen2).
    public let queryBias: UnsafePointer<Float>?
    /// Key bias, `(kvHeads · headDim)`, for families that have one.
    public let keyBias: UnsafePointer<Float>?
    /// Value bias, `(kvHeads · headDim)`, for families that have one.
    public let valueBias: UnsafePointer<Float>?
    /// RMSNorm scale of each query head before RoPE, `(headDim)`, for families that have one (Gemma 3).
    public let queryNorm: UnsafePointer<Float>?
    /// RMSNorm scale of each key head before RoPE, `(headDim)`, for families that have one.
    public let keyNorm: UnsafePointer<Float>?
    /// Attention output projection, `dim × (heads · headDim)`.
    public private(set) var output: WeightMatrix
    /// RMSNorm scale of the attention output, `(dim)`, for families that have one (Gemma 3).
    public let postAttentionNorm: UnsafePointer<Float>?
    /// RMSNorm scale before the feed-forward network, `(dim)`.
    public let feedForwardNorm: UnsafePointer<Float>
    /// SwiGLU gate projection, `ffn × dim`.
    public let gate: WeightMatrix
    /// SwiGLU up projection, `ffn × dim`.
    public let up: WeightMatrix
    /// Down projection, `dim × ffn`.
    public let down: WeightMatrix
    /// RMSNorm scale of the feed-forward output, `(dim)`, for families that have one (Gemma 3).
    public let postFeedForwardNorm: UnsafePointer<Float>?
}

/// Every weight of a model of one of the ``Architecture`` families, looked up by the tensor names its architecture
/// declares (``ArchitectureDefinition``).
///
/// Nothing is copied: matrices and norm vectors point into the mapped file, which the owner of
/// these weights (``Transformer``) keeps alive.
public struct TransformerWeights: @unchecked Sendable {
    /// Token embedding table, `vocab × dim` (`token_embd.weight`).
    public private(set) var tokenEmbedding: WeightMatrix
    /// Per-block weights (`blk.N.*`).
    public private(set) var layers: [LayerWeights]
    /// Final RMSNorm scale (`output_norm.weight`).
    public let outputNorm: UnsafePointer<Float>
    /// Output projection to logits, `vocab × dim` (`output.weight`, or the embedding table when
    /// the model ties them: ``ArchitectureDefinition/tiedOutput``).
    public private(set) var output: WeightMatrix
    /// Divisors of RoPE's per-pair frequencies, `(ropeDims / 2)` (`rope_freqs.weight`,
    /// ``ArchitectureDefinition/ropeFrequencyFactors``), when the file has them (Llama 3.1 and later).
    public let ropeFrequencyFactors: UnsafePointer<Float>?

    /// Looks up and validates every tensor the configuration needs.
    ///
    /// - Throws: ``TransformerError/invalidMetadata(key:found:expected:)`` when `block_count`
    ///   disagrees with the `blk.N.` layers the file has tensors for;
    ///   ``TransformerError/missingTensor(_:)`` or ``TransformerError/invalidTensor(name:reason:)``.
    public init(file: GGUFFile, configuration c: ModelConfiguration) throws(TransformerError) {
        try Self.checkLayerCount(file, c)
        let names = c.architecture.definition, block = names.block
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
        // A tensor the family may have: read when both the family names it and the file has it.
        func optionalVector(_ name: String?, count: Int) throws(TransformerError) -> UnsafePointer<Float>? {
            guard let name, file.tensor(named: name) != nil else { return nil }
            return try vector(name, count: count)
        }
        // A tensor of the family's shape: required when the family names it.
        func namedVector(_ name: String?, count: Int) throws(TransformerError) -> UnsafePointer<Float>? {
            guard let name else { return nil }
            return try vector(name, count: count)
        }

        let dim = c.embeddingLength, q = c.queryLength, kv = c.keyValueLength, ffn = c.feedForwardLength, hd = c.headDimension
        tokenEmbedding = try matrix(names.tokenEmbedding, rows: c.vocabularySize, columns: dim)
        var layers: [LayerWeights] = []
        layers.reserveCapacity(c.layerCount)
        for i in 0..<c.layerCount {
            let p = ArchitectureDefinition.blockPrefix(i)
            layers.append(LayerWeights(
                attentionNorm: try vector(p + block.attentionNorm, count: dim),
                query: try matrix(p + block.query, rows: q, columns: dim),
                key: try matrix(p + block.key, rows: kv, columns: dim),
                value: try matrix(p + block.value, rows: kv, columns: dim),
                queryBias: try optionalVector(block.queryBias.map { p + $0 }, count: q),
                keyBias: try optionalVector(block.keyBias.map { p + $0 }, count: kv),
                valueBias: try optionalVector(block.valueBias.map { p + $0 }, count: kv),
                queryNorm: try namedVector(block.queryNorm.map { p + $0 }, count: hd),
                keyNorm: try namedVector(block.keyNorm.map { p + $0 }, count: hd),
                output: try matrix(p + block.attentionOutput, rows: dim, columns: q),
                postAttentionNorm: try namedVector(block.postAttentionNorm.map { p + $0 }, count: dim),
                feedForwardNorm: try vector(p + block.feedForwardNorm, count: dim),
                gate: try matrix(p + block.gate, rows: ffn, columns: dim),
                up: try matrix(p + block.up, rows: ffn, columns: dim),
                down: try matrix(p + block.down, rows: dim, columns: ffn),
                postFeedForwardNorm: try namedVector(block.postFeedForwardNorm.map { p + $0 }, count: dim)))
        }
        self.layers = layers
        outputNorm = try vector(names.outputNorm, count: dim)
        let factors = try optionalVector(names.ropeFrequencyFactors, count: c.ropeDimensionCount / 2)
        // Each divides an angle: zero, negative or not finite would make the table meaningless.
        if let factors, let bad = (0..<(c.ropeDimensionCount / 2)).first(where: { !(factors[$0].isFinite && factors[$0] > 0) }) {
            throw .invalidTensor(name: names.ropeFrequencyFactors, reason: "factor \(bad) is \(factors[bad]), expected a positive number")
        }
        ropeFrequencyFactors = factors
        output = names.tiedOutput && file.tensor(named: names.output) == nil
            ? tokenEmbedding
            : try matrix(names.output, rows: c.vocabularySize, columns: dim)
    }

    /// The weights with every matrix that the products read repacked into row groups where
    /// this build has a row-group kernel for it (``WeightMatrix/withRowGroups(pool:)``), the
    /// output projection first (the largest), each original's pages released from `file`'s
    /// mapping once it is copied: memory stays about the file's size, at its peak too. A token
    /// embedding that is not also the output is only looked up row by row and stays as it is;
    /// a tied one is looked up in the output's groups, so it is in memory once.
    func withRowGroups(releasingPagesOf file: GGUFFile, pool: ThreadPool) -> TransformerWeights {
        func grouped(_ matrix: WeightMatrix) -> WeightMatrix {
            let result = matrix.withRowGroups(pool: pool)
            if result.rowGroups != nil {
                file.releasePages(of: UnsafeRawBufferPointer(start: matrix.data, count: matrix.rows * matrix.rowBytes))
            }
            return result
        }
        var copy = self
        copy.output = grouped(output)
        if output.data == tokenEmbedding.data { copy.tokenEmbedding = copy.output }
        copy.layers = layers.map { l in
            LayerWeights(
                attentionNorm: l.attentionNorm, query: grouped(l.query), key: grouped(l.key), value: grouped(l.value),
                queryBias: l.queryBias, keyBias: l.keyBias, valueBias: l.valueBias, queryNorm: l.queryNorm, keyNorm: l.keyNorm,
                output: grouped(l.output), postAttentionNorm: l.postAttentionNorm, feedForwardNorm: l.feedForwardNorm,
                gate: grouped(l.gate), up: grouped(l.up), down: grouped(l.down), postFeedForwardNorm: l.postFeedForwardNorm)
        }
        return copy
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
        let key = c.architecture.rawValue + ".block_count"
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
