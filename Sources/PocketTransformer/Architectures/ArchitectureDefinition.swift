import PocketKernels

/// What one model family declares for the shared forward pass: the GGUF names of its tensors
/// and, as plain values, each choice in which its block differs from Llama's.
///
/// One static per family, in the family's own file (`Architectures/Llama.swift`), registered
/// by a case of ``Architecture``. ``TransformerWeights`` looks every tensor up by these names;
/// ``ModelConfiguration`` reads the family's extra hyper-parameters (a sliding window) and
/// computes its attention scale; ``Transformer`` turns the rest into per-layer values once, at
/// load, so the forward pass branches per layer at most, never per element, and never asks
/// which family it runs.
///
/// ```swift
/// let gemma = ArchitectureDefinition.gemma3
/// gemma.feedForwardActivation      // .geluTanh
/// gemma.slidingWindow?.period      // 6: five local layers, then a global one
/// ```
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
    /// What multiplies the embedding rows before the first block.
    public var embeddingScale: EmbeddingScale = .none
    /// The nonlinearity of the gated feed-forward network, `down · (act(gate·h) ⊙ up·h)`.
    public var feedForwardActivation: GatedActivation = .silu
    /// The multiplier of the attention scores `q·k`, from the configuration (computed once, at load).
    public var attentionScale: @Sendable (ModelConfiguration) -> Float = { 1 / Float($0.headDimension).squareRoot() }
    /// Whether llama.cpp multiplies the queries by ``attentionScale`` before attention
    /// (`ggml_scale`, Gemma 3) instead of the scores inside it: where the queries are rounded
    /// to half precision, the two differ (``ArithmeticOrder/llamaCpp`` follows it).
    public var scalesQueries = false
    /// Interleaved local (sliding-window) and global attention layers; `nil` when every layer
    /// attends to the whole context.
    public var slidingWindow: SlidingWindowPattern? = nil
    /// Per-pair divisors of RoPE's frequencies, `(ropeDims / 2)` F32, read when the file has the
    /// tensor (llama.cpp's converter writes Llama 3.1's long-context scaling as
    /// `rope_freqs.weight`): pair `i` turns by `p · base^(-2i/d) / factor_i`, in every layer.
    public var ropeFrequencyFactors: String = "rope_freqs.weight"

    /// The prefix of block `layer`'s tensor names: `blk.<layer>.`, as llama.cpp names them for
    /// every family.
    public static func blockPrefix(_ layer: Int) -> String { "blk.\(layer)." }
}

/// What multiplies each embedding row before the first block.
public enum EmbeddingScale: Sendable, Equatable {
    /// The rows as stored (Llama, Qwen2).
    case none
    /// `√dim`, in single precision (Gemma: the embedding table is shared with the output
    /// projection, so its rows are stored at the output's scale).
    case squareRootOfWidth
}

/// The activation of a gated feed-forward network: `act(gate) ⊙ up`.
public enum GatedActivation: Sendable, Equatable {
    /// SwiGLU: `silu(g) = g / (1 + e^(-g))` (Llama, Qwen2).
    case silu
    /// GeGLU with the tanh approximation of GELU, as ggml evaluates it: the input rounded to
    /// half precision and looked up in a table of half-precision results (``GELU``).
    case geluTanh

    /// The trace name of the activation's result (llama.cpp's, `ffn_swiglu` or `ffn_geglu`),
    /// the input of the down projection: ``Transformer/trace`` reports it as `<name>-<layer>`.
    public var traceName: StaticString {
        switch self {
        case .silu: "ffn_swiglu"
        case .geluTanh: "ffn_geglu"
        }
    }
}

/// Which layers attend through a sliding window, and their RoPE base.
///
/// llama.cpp's `set_swa_pattern(period)`: in each run of `period` layers the first
/// `period − 1` are local and the last is global (`layer % period < period − 1`). The window's
/// length is a hyper-parameter (`<arch>.attention.sliding_window`, in ``ModelConfiguration``).
public struct SlidingWindowPattern: Sendable, Equatable {
    /// Layers per run of local layers and one global layer.
    public var period: Int
    /// RoPE base of the local layers (the global ones use `<arch>.rope.freq_base`).
    public var localRopeFrequencyBase: Float

    /// Whether layer `layer` is a local (sliding-window) layer.
    public func isLocal(_ layer: Int) -> Bool { period <= 0 || layer % period < period - 1 }
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
    public var queryBias: String? = nil
    /// Key bias, `(kvHeads · headDim)`: read when the file has it; `nil` for a family without.
    public var keyBias: String? = nil
    /// Value bias, `(kvHeads · headDim)`: read when the file has it; `nil` for a family without.
    public var valueBias: String? = nil
    /// RMSNorm scale applied to each query head before RoPE, `(headDim)`; required when named.
    public var queryNorm: String? = nil
    /// RMSNorm scale applied to each key head before RoPE, `(headDim)`; required when named.
    public var keyNorm: String? = nil
    /// Attention output projection, `dim × (heads · headDim)`.
    public var attentionOutput: String
    /// RMSNorm scale of the attention output before the residual add, `(dim)`; required when named.
    public var postAttentionNorm: String? = nil
    /// RMSNorm scale before the feed-forward network, `(dim)`.
    public var feedForwardNorm: String
    /// Gate projection, `ffn × dim`.
    public var gate: String
    /// Up projection, `ffn × dim`.
    public var up: String
    /// Down projection, `dim × ffn`.
    public var down: String
    /// RMSNorm scale of the feed-forward output before the residual add, `(dim)`; required when named.
    public var postFeedForwardNorm: String? = nil
}
