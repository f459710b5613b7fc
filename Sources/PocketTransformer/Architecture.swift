import PocketKernels

// The registry of model families. A family is a value, not a subclass: its file declares one
// `ArchitectureDefinition` (tensor names, RoPE pairing, embedding scale, feed-forward
// activation, attention scale, sliding-window pattern), and the one forward pass in
// `Transformer.swift` turns it into per-layer values at load. Adding a family takes:
//   1. `Architectures/<Family>.swift`: its `ArchitectureDefinition` static (copy `Llama.swift`,
//      `Qwen3.swift` for a family whose only departures are values the definition already
//      has, or `Gemma3.swift` for a family with norms around its sublayers);
//   2. here: a case named by the family's `general.architecture` string and its row in
//      `definition`;
//   3. its tests: a row in `SyntheticModelTests` where the float reference covers the block,
//      and a golden suite against llama.cpp: on the real model (`GemmaGoldenTests`), or on a
//      small random-weight file in the family's layout (`SyntheticFamilyGoldenTests`).
// The metadata keys (`<family>.block_count`, …) follow from the case's name. A block whose
// choices the definition cannot express (a parallel block, a mixture of experts) adds the
// choice to `ArchitectureDefinition` as a value and one step to the forward pass, chosen per
// layer or per model, never per element. What any family's file may carry is read for all of
// them: RoPE frequency factors (`rope_freqs.weight`, Llama 3.1's long-context scaling) are folded
// into the RoPE tables at load.

/// The model families this forward pass runs, keyed by `general.architecture`.
///
/// Each case is one row of the registry: its ``definition`` is declared in the family's own
/// file (`Architectures/Llama.swift`, `Architectures/Qwen2.swift`, `Architectures/Qwen3.swift`,
/// `Architectures/Gemma3.swift`) with the tensor names and the block's choices (RoPE pairing,
/// Q/K/V biases, norms around the sublayers, activation, sliding window, tied embeddings).
///
/// ```swift
/// let architecture = Architecture(rawValue: "qwen2")   // .qwen2; nil for an unknown family
/// architecture?.definition.ropeStyle                    // .halves
/// ```
public enum Architecture: String, CaseIterable, Sendable {
    /// Llama 1/2/3 (3.1's long-context RoPE through `rope_freqs.weight`), SmolLM, Mistral-style
    /// files converted by llama.cpp.
    case llama
    /// Qwen2: the Llama shape with biases on the Q, K and V projections and NeoX-style RoPE.
    case qwen2
    /// Qwen3: Qwen2's block without the biases, with per-head Q/K norms before RoPE and a head
    /// dimension of its own (`qwen3.attention.key_length`).
    case qwen3
    /// Gemma 3: per-head Q/K norms, post-attention and post-feed-forward norms, GeGLU, a
    /// scaled embedding, interleaved sliding-window and global attention layers.
    case gemma3

    /// The family's tensor names and shape choices.
    public var definition: ArchitectureDefinition {
        switch self {
        case .llama: .llama
        case .qwen2: .qwen2
        case .qwen3: .qwen3
        case .gemma3: .gemma3
        }
    }
}
