import PocketGGUF
import PocketTransformer
import Testing
@testable import PocketQuantizer

/// Roles come from each family's definition: llama.cpp's names for Llama, Qwen2 (with Q/K/V
/// biases) and Gemma 3 (with per-head and post-sublayer norms).
@Suite struct TensorRoleTests {
    /// Names every one of the three families has, with their roles.
    let shared: [(String, TensorRole)] = [
        ("token_embd.weight", .tokenEmbedding),
        ("output.weight", .output),
        ("output_norm.weight", .norm),
        ("blk.0.attn_q.weight", .query),
        ("blk.0.attn_k.weight", .key),
        ("blk.7.attn_v.weight", .value),
        ("blk.11.attn_output.weight", .attentionOutput),
        ("blk.2.ffn_gate.weight", .gate),
        ("blk.2.ffn_up.weight", .up),
        ("blk.23.ffn_down.weight", .down),
        ("blk.0.attn_norm.weight", .norm),
        ("blk.0.ffn_norm.weight", .norm),
        ("rope_freqs.weight", .other),
    ]

    @Test(arguments: [("llama", ArchitectureDefinition.llama), ("qwen2", .qwen2), ("gemma3", .gemma3)])
    func theFamilysTensorsHaveTheirRoles(family: String, definition: ArchitectureDefinition) {
        for (name, role) in shared {
            #expect(TensorRole(tensor: name, in: definition) == role, "\(family): \(name)")
        }
    }

    @Test func familySpecificTensors() {
        #expect(TensorRole(tensor: "blk.3.attn_q.bias", in: .qwen2) == .other)
        #expect(TensorRole(tensor: "blk.3.attn_v.bias", in: .qwen2) == .other)
        for name in ["blk.3.attn_q_norm.weight", "blk.3.attn_k_norm.weight", "blk.3.post_attention_norm.weight",
                     "blk.3.post_ffw_norm.weight"] {
            #expect(TensorRole(tensor: name, in: .gemma3) == .norm, "\(name)")
            // Llama has no such norms.
            #expect(TensorRole(tensor: name, in: .llama) == .other, "\(name)")
        }
    }

    @Test func rolesFollowTheDefinitionNotTheSuffix() {
        var renamed = ArchitectureDefinition.llama
        renamed.block.value = "self_attn.v_proj.weight"
        renamed.output = "lm_head.weight"
        #expect(TensorRole(tensor: "blk.1.self_attn.v_proj.weight", in: renamed) == .value)
        #expect(TensorRole(tensor: "blk.1.attn_v.weight", in: renamed) == .other)
        #expect(TensorRole(tensor: "lm_head.weight", in: renamed) == .output)
        // The recipe follows: value projections of a q2_k file go to Q4_K.
        let recipe = QuantizationRecipe(target: .q2_k)
        #expect(recipe.choice(forTensor: "blk.1.self_attn.v_proj.weight", dimensions: [512, 64], architecture: renamed).type == .q4_K)
        #expect(recipe.choice(forTensor: "blk.1.attn_v.weight", dimensions: [512, 64], architecture: renamed).type == .q2_K)
    }

    @Test func layersComeFromTheBlockPrefix() {
        #expect(TensorRole.layer(ofTensor: "blk.0.attn_q.weight") == 0)
        #expect(TensorRole.layer(ofTensor: "blk.27.ffn_down.weight") == 27)
        #expect(TensorRole.layer(ofTensor: "output.weight") == nil)
        #expect(TensorRole.layer(ofTensor: "blk.x.attn_q.weight") == nil)
        #expect(TensorRole.layer(ofTensor: "blk.03.attn_q.weight") == nil)
    }

    @Test func eachBlockMatrixHasTheTraceItMultiplies() {
        #expect(ImportanceMatrix.inputTrace(of: .key, layer: 4, activation: "ffn_geglu") == "attn_norm-4")
        #expect(ImportanceMatrix.inputTrace(of: .attentionOutput, layer: 4, activation: "ffn_geglu") == "kqv_out-4")
        #expect(ImportanceMatrix.inputTrace(of: .up, layer: 4, activation: "ffn_geglu") == "ffn_norm-4")
        #expect(ImportanceMatrix.inputTrace(of: .down, layer: 4, activation: "ffn_geglu") == "ffn_geglu-4")
        #expect(ImportanceMatrix.inputTrace(of: .norm, layer: 4, activation: "ffn_geglu") == nil)
    }
}
