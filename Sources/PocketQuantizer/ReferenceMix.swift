import PocketGGUF
import PocketTransformer

/// The size budget of a budgeted recipe: what llama.cpp's `llama-quantize` mix of the same name
/// (`Q2_K`, `Q3_K` = `Q3_K_M`) occupies for the same model.
///
/// The mix, as `llama-quantize` writes it for Llama-family models (checked tensor by tensor
/// against its output for SmolLM2-135M and Qwen2.5-Coder-0.5B):
///
/// | tensor | Q2_K | Q3_K |
/// |---|---|---|
/// | output (or the token embedding when tied) | Q6_K | Q6_K |
/// | attn_v | Q4_K if ≥ 4 query heads share a key head, else Q3_K | Q5_K in layers 0–1, else Q4_K |
/// | attn_output | Q2_K | Q4_K |
/// | ffn_down | Q3_K | Q5_K in the first 1/16 of the layers, else Q4_K |
/// | everything else | Q2_K | Q3_K |
///
/// Tensors are told apart by their ``TensorRole`` in the family's definition. Rows that are not
/// a multiple of 256 fall back as llama.cpp does
/// (``QuantizationRecipe/fallback(for:rowLength:)``).
public enum ReferenceMix {
    /// The llama.cpp type of one tensor under `target`'s mix, or `nil` when `target` has no
    /// budgeted mix (only `q2_k` and `q3_k` have).
    ///
    /// - Parameter architecture: The family, which names the tensors the mix singles out.
    public static func type(
        forTensor name: String, dimensions: [Int], target: QuantizationTarget, layerCount: Int,
        queryHeadsPerKeyHead: Int, tiedEmbedding: Bool, architecture: ArchitectureDefinition = .llama
    ) -> GGMLType? {
        type(for: TensorRole(tensor: name, in: architecture), layer: TensorRole.layer(ofTensor: name) ?? 0, dimensions: dimensions,
             target: target, layerCount: layerCount, queryHeadsPerKeyHead: queryHeadsPerKeyHead, tiedEmbedding: tiedEmbedding)
    }

    /// The llama.cpp type of a tensor of `role` in block `layer` (0 outside the blocks) under
    /// `target`'s mix, or `nil` when `target` has no budgeted mix.
    public static func type(
        for role: TensorRole, layer: Int, dimensions: [Int], target: QuantizationTarget, layerCount: Int,
        queryHeadsPerKeyHead: Int, tiedEmbedding: Bool
    ) -> GGMLType? {
        guard target.type == .q2_K || target.type == .q3_K else { return nil }
        guard dimensions.count > 1 else { return .f32 }
        let q2 = target.type == .q2_K
        let requested: GGMLType
        switch role {
        case .output:
            requested = .q6_K
        case .tokenEmbedding where tiedEmbedding:
            // The tied embedding is the output projection.
            requested = .q6_K
        case .value:
            requested = q2 ? (queryHeadsPerKeyHead >= 4 ? .q4_K : .q3_K) : (layer < 2 ? .q5_K : .q4_K)
        case .attentionOutput:
            requested = q2 ? .q2_K : .q4_K
        case .down:
            requested = q2 ? .q3_K : (layer < layerCount / 16 ? .q5_K : .q4_K)
        default:
            requested = target.type
        }
        return QuantizationRecipe.fallback(for: requested, rowLength: dimensions[0])
    }

    /// Bytes of tensor data of `file` under `target`'s mix, or `nil` when `target` has none or
    /// the file names no `general.architecture` (its shape keys cannot be found).
    public static func byteCount(of file: GGUFFile, target: QuantizationTarget) -> Int? {
        guard let architecture = file.metadata.string("general.architecture") else { return nil }
        func integer(_ key: String) -> Int? { file.metadata.integer(architecture + "." + key) }
        let heads = integer("attention.head_count") ?? 1
        let kvHeads = integer("attention.head_count_kv") ?? heads
        let layers = integer("block_count") ?? 1
        let definition = TensorRole.definition(of: file)
        let tied = !file.tensors.contains { $0.name == definition.output }
        var total = 0
        for tensor in file.tensors {
            guard let type = type(forTensor: tensor.name, dimensions: tensor.dimensions, target: target, layerCount: layers,
                                  queryHeadsPerKeyHead: heads / Swift.max(1, kvHeads), tiedEmbedding: tied,
                                  architecture: definition),
                  let bytes = GGUFTensorInfo.byteCount(dimensions: tensor.dimensions, type: type) else { return nil }
            total += bytes
        }
        return total
    }
}
