import PocketKernels

/// The model families this forward pass runs, keyed by `general.architecture`.
///
/// All are Llama-shaped (RMSNorm, RoPE, grouped-query attention, SwiGLU); they differ in how
/// RoPE pairs dimensions and whether the Q/K/V projections carry a bias. Adding a family that
/// fits this shape is one case here; the tensor names it uses are in ``TransformerWeights``.
public enum Architecture: String, CaseIterable, Sendable {
    /// Llama 1/2/3, SmolLM, Mistral-style files converted by llama.cpp.
    case llama
    /// Qwen2: Llama shape with biases on the Q, K and V projections and NeoX-style RoPE.
    case qwen2

    /// How RoPE pairs the dimensions of a head.
    public var ropeStyle: RoPEStyle {
        switch self {
        case .llama: .adjacentPairs
        case .qwen2: .halves
        }
    }

    /// Whether the Q, K and V projections have bias vectors (`attn_q.bias`, …).
    public var hasAttentionBias: Bool { self == .qwen2 }
}
