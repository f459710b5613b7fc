// Qwen2 and Qwen2.5 (`general.architecture = "qwen2"`): the Llama shape with biases on the Q, K
// and V projections and RoPE on the two halves of each head (GPT-NeoX style). Registered as
// `Architecture.qwen2`; see `Architecture.swift` for what adding a family takes.

extension ArchitectureDefinition {
    /// `general.architecture = "qwen2"`: Q/K/V biases, RoPE on halves, the output projection
    /// tied to the embedding when the file has no `output.weight` (the 0.5B models tie).
    public static let qwen2 = ArchitectureDefinition(
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
            queryBias: "attn_q.bias",
            keyBias: "attn_k.bias",
            valueBias: "attn_v.bias",
            attentionOutput: "attn_output.weight",
            feedForwardNorm: "ffn_norm.weight",
            gate: "ffn_gate.weight",
            up: "ffn_up.weight",
            down: "ffn_down.weight"))
}
