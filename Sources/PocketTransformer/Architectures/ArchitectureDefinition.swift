import PocketKernels

/// What one model family declares for the shared Llama-shaped forward pass: the GGUF names of
/// its tensors and the choices the forward pass leaves open.
///
/// One static per family, in the family's own file (`Architectures/Llama.swift`), registered
/// by a case of ``Architecture``. ``TransformerWeights`` looks every tensor up by these names;
/// the forward pass never asks which family it runs.
public struct ArchitectureDefinition: Sendable {
    /// How RoPE pairs the dimensions of a head.
    public var ropeStyle: RoPEStyle
    /// Token embedding table, `vocab × dim`.
    public var tokenEmbedding: String
    /// Final RMSNorm scale, `(dim)`.
    public var outputNorm: String
    /// Output projection to logits, `vocab × dim`.
    public var output: String
    /// Whether a file without ``output`` uses ``tokenEmbedding`` as the output projection (tied
    /// embeddings); otherwise the missing tensor is an error.
    public var tiedOutput: Bool
    /// The names of each block's tensors, after the block prefix (``blockPrefix(_:)``).
    public var block: BlockTensorNames

    /// The prefix of block `layer`'s tensor names: `blk.<layer>.`, as llama.cpp names them for
    /// every family.
    public static func blockPrefix(_ layer: Int) -> String { "blk.\(layer)." }
}

/// The tensor names inside one transformer block, without the `blk.<layer>.` prefix.
public struct BlockTensorNames: Sendable {
    /// RMSNorm scale before attention, `(dim)`.
    public var attentionNorm: String
    /// Query projection, `(heads · headDim) × dim`.
    public var query: String
    /// Key projection, `(kvHeads · headDim) × dim`.
    public var key: String
    /// Value projection, `(kvHeads · headDim) × dim`.
    public var value: String
    /// Query bias, `(heads · headDim)`: read when the file has it; `nil` for a family without.
    public var queryBias: String?
    /// Key bias, `(kvHeads · headDim)`: read when the file has it; `nil` for a family without.
    public var keyBias: String?
    /// Value bias, `(kvHeads · headDim)`: read when the file has it; `nil` for a family without.
    public var valueBias: String?
    /// Attention output projection, `dim × (heads · headDim)`.
    public var attentionOutput: String
    /// RMSNorm scale before the feed-forward network, `(dim)`.
    public var feedForwardNorm: String
    /// SwiGLU gate projection, `ffn × dim`.
    public var gate: String
    /// SwiGLU up projection, `ffn × dim`.
    public var up: String
    /// Down projection, `dim × ffn`.
    public var down: String
}
