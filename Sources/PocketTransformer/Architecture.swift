import PocketKernels

// The registry of model families. Adding a Llama-shaped family (RMSNorm, RoPE, grouped-query
// attention, SwiGLU; tensor names and optional tensors may differ) takes:
//   1. `Architectures/<Family>.swift`: one `ArchitectureDefinition` static, its tensor names
//      and shape choices (copy `Llama.swift`);
//   2. here: a case named by the family's `general.architecture` string and its row in
//      `definition`;
//   3. a row in `SyntheticModelTests`' architectures, with the reference's difference if any.
// The metadata keys (`<family>.block_count`, …) follow from the case's name. A family whose block
// computes something else (another norm, a parallel block, a mixture of experts) needs its own
// forward pass as well; nothing in `Transformer.swift` asks which family it runs.

/// The model families this forward pass runs, keyed by `general.architecture`.
///
/// Each case is one row of the registry: its ``definition`` is declared in the family's own
/// file (`Architectures/Llama.swift`, `Architectures/Qwen2.swift`) with the tensor names and
/// the shape choices (RoPE pairing, Q/K/V biases, tied embeddings).
///
/// ```swift
/// let architecture = Architecture(rawValue: "qwen2")   // .qwen2; nil for an unknown family
/// architecture?.definition.ropeStyle                    // .halves
/// ```
public enum Architecture: String, CaseIterable, Sendable {
    /// Llama 1/2/3, SmolLM, Mistral-style files converted by llama.cpp.
    case llama
    /// Qwen2: the Llama shape with biases on the Q, K and V projections and NeoX-style RoPE.
    case qwen2

    /// The family's tensor names and shape choices.
    public var definition: ArchitectureDefinition {
        switch self {
        case .llama: .llama
        case .qwen2: .qwen2
        }
    }
}
