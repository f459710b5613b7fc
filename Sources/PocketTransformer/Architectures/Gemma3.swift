// Gemma 3 (`general.architecture = "gemma3"`), as llama.cpp runs it (`src/models/gemma3.cpp`):
// - the embedding rows are multiplied by √dim;
// - every RMSNorm weight is used as stored: Google's checkpoints hold `w` for a norm that
//   multiplies by `1 + w`, and llama.cpp's converter adds the 1 when it writes the GGUF file;
// - each query and key head is RMS-normed (its own `(headDim)` weight) before RoPE;
// - the attention output and the feed-forward output are each RMS-normed again before their
//   residual add (`post_attention_norm`, `post_ffw_norm`);
// - the feed-forward network is GeGLU (GELU, tanh approximation, as ggml evaluates it);
// - RoPE on halves (llama.cpp's NEOX type); five sliding-window layers then one global layer,
//   the local ones with RoPE base 10,000, the global ones with `gemma3.rope.freq_base`;
// - the output projection is the embedding table; no logit soft-capping in files with a
//   sliding window (llama.cpp applies `final_logit_softcapping` only to files without one).
// Registered as `Architecture.gemma3`; see `Architecture.swift` for what adding a family takes.

extension ArchitectureDefinition {
    /// `general.architecture = "gemma3"`: Gemma 3's text model (270M, 1B, 4B, 12B, 27B).
    public static let gemma3 = ArchitectureDefinition(
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
            postAttentionNorm: "post_attention_norm.weight",
            feedForwardNorm: "ffn_norm.weight",
            gate: "ffn_gate.weight",
            up: "ffn_up.weight",
            down: "ffn_down.weight",
            postFeedForwardNorm: "post_ffw_norm.weight"),
        embeddingScale: .squareRootOfWidth,
        feedForwardActivation: .geluTanh,
        // Google's `query_pre_attn_scalar`, which GGUF files do not carry: llama.cpp derives it
        // from the size, `dim / heads` for the 27B model (62 layers), the head dimension for
        // the others (for the 270M model 1/√256 = 1/16, a power of two).
        attentionScale: { c in
            1 / Float(c.layerCount == 62 ? c.embeddingLength / c.headCount : c.headDimension).squareRoot()
        },
        scalesQueries: true,
        slidingWindow: SlidingWindowPattern(period: 6, localRopeFrequencyBase: 10_000))
}
