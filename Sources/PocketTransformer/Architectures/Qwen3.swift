// Qwen3 (`general.architecture = "qwen3"`), as llama.cpp runs it (`src/models/qwen3.cpp`):
// - Qwen2's block without the Q, K and V biases;
// - each query and key head is RMS-normed (its own `(headDim)` weight, `attn_q_norm`,
//   `attn_k_norm`) before RoPE, as in Gemma 3;
// - RoPE on halves (llama.cpp's NEOX type) over the whole head;
// - the head dimension is `qwen3.attention.key_length` (128 in every released size), not
//   `dim / heads`: the query width `heads · headDim` can differ from `dim` (0.6B: 16 · 128 vs 1024);
// - the output projection is the embedding table when the file has no `output.weight`.
// Registered as `Architecture.qwen3`; see `Architecture.swift` for what adding a family takes.

extension ArchitectureDefinition {
    /// `general.architecture = "qwen3"`: per-head Q/K norms, no biases, RoPE on halves, the
    /// output projection tied to the embedding when the file has no `output.weight`.
    public static let qwen3 = ArchitectureDefinition(
        ropeStyle: .halves,
        tokenEmbedding: "token_embd.weight",
        outputNorm: "output_norm.weight",
        output: "output.weight",
        tiedOutput: true,
        block: BlockTensorNames(
            attentionNorm: "attn_norm.weight",
            query: "attn_q.weight",
            key: "attn_k.weight",
            value: "attn_v.weight",
            queryNorm: "attn_q_norm.weight",
            keyNorm: "attn_k_norm.weight",
            attentionOutput: "attn_output.weight",
            feedForwardNorm: "ffn_norm.weight",
            gate: "ffn_gate.weight",
            up: "ffn_up.weight",
            down: "ffn_down.weight"))
}
