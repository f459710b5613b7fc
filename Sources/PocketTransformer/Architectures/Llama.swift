// Llama 1/2/3 and the files llama.cpp converts as `llama` (SmolLM, Mistral-style): the shape the
// forward pass implements, with llama.cpp's tensor names. Registered as `Architecture.llama`;
// see `Architecture.swift` for what adding a family takes.

extension ArchitectureDefinition {
    /// `general.architecture = "llama"`: no biases, RoPE on adjacent pairs, the output
    /// projection tied to the embedding when the file has no `output.weight`.
    public static let llama = ArchitectureDefinition(
        ropeStyle: .adjacentPairs,
        tokenEmbedding: "token_embd.weight",
        outputNorm: "output_norm.weight",
        output: "output.weight",
        tiedOutput: true,
        block: BlockTensorNames(
            attentionNorm: "attn_norm.weight",
            query: "attn_q.weight",
            key: "attn_k.weight",
            value: "attn_v.weight",
            queryBias: nil,
            keyBias: nil,
            valueBias: nil,
            attentionOutput: "attn_output.weight",
            feedForwardNorm: "ffn_norm.weight",
            gate: "ffn_gate.weight",
            up: "ffn_up.weight",
            down: "ffn_down.weight"))
}
