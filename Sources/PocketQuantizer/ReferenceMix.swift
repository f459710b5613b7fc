import PocketGGUF
import PocketTransformer

/// llama.cpp's `llama-quantize` mixes: the size budget of a budgeted k-quant recipe (`Q2_K`,
/// `Q3_K` = `Q3_K_M`: what that mix occupies for the same model), and the default mix Pocket
/// writes for the i-quant targets.
///
/// The k-quant mixes, as `llama-quantize` writes them for Llama-family models (checked tensor
/// by tensor against its output for SmolLM2-135M and Qwen2.5-Coder-0.5B):
///
/// | tensor | Q2_K | Q3_K |
/// |---|---|---|
/// | output (or the token embedding when tied) | Q6_K | Q6_K |
/// | attn_v | Q4_K if ≥ 4 query heads share a key head, else Q3_K | Q5_K in layers 0–1, else Q4_K |
/// | attn_output | Q2_K | Q4_K |
/// | ffn_down | Q3_K | Q5_K in the first 1/16 of the layers, else Q4_K |
/// | everything else | Q2_K | Q3_K |
///
/// The i-quant mixes (llama.cpp's `IQ2_XXS`, `IQ2_XS`, `IQ2_M`, `IQ3_XXS`, `IQ3_S`, `IQ4_XS`,
/// `IQ4_NL`; checked tensor by tensor against its output for Qwen2.5-Coder-0.5B, whose 896-weight
/// rows show the fallbacks). Pocket's `iq2_s` target writes llama.cpp's `IQ2_M` mix, the one
/// whose base type is IQ2_S (llama.cpp's `IQ2_S` mix is IQ2_XS-based):
///
/// | tensor | iq2_xxs, iq2_xs | iq2_s (IQ2_M) | iq3_xxs | iq3_s | iq4_xs, iq4_nl |
/// |---|---|---|---|---|---|
/// | output (or the tied embedding) | Q6_K | Q6_K | Q6_K | Q6_K | Q6_K |
/// | token_embd (untied) | Q2_K | IQ3_S | IQ3_S | target | target |
/// | attn_v, ≥ 4 query heads per key head | Q4_K | Q4_K | Q4_K | Q4_K | Q6_K¹ |
/// | attn_v, fewer | Q2_K | IQ3_S | IQ3_S | target | target |
/// | attn_output | target | IQ3_S | target | target | target |
/// | ffn_down, first 1/8 of the layers | Q2_K | IQ3_S | target | target | target |
/// | everything else | target | target | target | target | target |
///
/// ¹ llama.cpp writes Q5_K, for which Pocket has no encoder; Q6_K (Q8_0 on fallback) costs a
/// few hundred KiB more on a 0.5B model.
///
/// Tensors are told apart by their ``TensorRole`` in the family's definition. Rows that are not
/// a multiple of 256 fall back as llama.cpp does
/// (``QuantizationRecipe/fallback(for:rowLength:)``: the i-quants to IQ4_NL).
public enum ReferenceMix {
    /// The llama.cpp type of one tensor under `target`'s mix, or `nil` when `target` has no
    /// mix (``hasMix(_:)``).
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
    /// `target`'s mix, or `nil` when `target` has no mix.
    public static func type(
        for role: TensorRole, layer: Int, dimensions: [Int], target: QuantizationTarget, layerCount: Int,
        queryHeadsPerKeyHead: Int, tiedEmbedding: Bool
    ) -> GGMLType? {
        guard hasMix(target) else { return nil }
        guard dimensions.count > 1 else { return .f32 }
        let requested: GGMLType
        if target.type == .q2_K || target.type == .q3_K {
            requested = kQuantType(for: role, layer: layer, q2: target.type == .q2_K, layerCount: layerCount,
                                   queryHeadsPerKeyHead: queryHeadsPerKeyHead, tiedEmbedding: tiedEmbedding)
        } else {
            requested = iQuantType(for: role, layer: layer, target: target.type, layerCount: layerCount,
                                   queryHeadsPerKeyHead: queryHeadsPerKeyHead, tiedEmbedding: tiedEmbedding)
        }
        return QuantizationRecipe.fallback(for: requested, rowLength: dimensions[0])
    }

    /// Whether `target` has a llama.cpp mix here: `q2_k`, `q3_k` (budgets) and the i-quants
    /// (Pocket's default i-quant recipes).
    public static func hasMix(_ target: QuantizationTarget) -> Bool {
        [.q2_K, .q3_K].contains(target.type) || iQuantTargets.contains(target.type)
    }

    /// The i-quant targets whose mix is llama.cpp's (see the type's overview).
    public static let iQuantTargets: [GGMLType] = [.iq2_xxs, .iq2_xs, .iq2_s, .iq3_xxs, .iq3_s, .iq4_xs, .iq4_nl]

    /// The k-quant mixes' type before the fallback (see the type's overview).
    static func kQuantType(
        for role: TensorRole, layer: Int, q2: Bool, layerCount: Int, queryHeadsPerKeyHead: Int, tiedEmbedding: Bool
    ) -> GGMLType {
        switch role {
        case .output:
            .q6_K
        case .tokenEmbedding where tiedEmbedding:
            // The tied embedding is the output projection.
            .q6_K
        case .value:
            q2 ? (queryHeadsPerKeyHead >= 4 ? .q4_K : .q3_K) : (layer < 2 ? .q5_K : .q4_K)
        case .attentionOutput:
            q2 ? .q2_K : .q4_K
        case .down:
            q2 ? .q3_K : (layer < layerCount / 16 ? .q5_K : .q4_K)
        default:
            q2 ? .q2_K : .q3_K
        }
    }

    /// The i-quant mixes' type before the fallback (see the type's overview).
    static func iQuantType(
        for role: TensorRole, layer: Int, target: GGMLType, layerCount: Int, queryHeadsPerKeyHead: Int, tiedEmbedding: Bool
    ) -> GGMLType {
        let twoBit = target == .iq2_xxs || target == .iq2_xs
        switch role {
        case .output:
            return .q6_K
        case .tokenEmbedding:
            if tiedEmbedding { return .q6_K }
            return twoBit ? .q2_K : (target == .iq2_s || target == .iq3_xxs) ? .iq3_s : target
        case .value:
            if target == .iq4_xs || target == .iq4_nl { return queryHeadsPerKeyHead >= 4 ? .q6_K : target }
            if queryHeadsPerKeyHead >= 4 { return .q4_K }
            return twoBit ? .q2_K : (target == .iq2_s || target == .iq3_xxs) ? .iq3_s : target
        case .attentionOutput:
            return target == .iq2_s ? .iq3_s : target
        case .down where layer < layerCount / 8:
            return twoBit ? .q2_K : target == .iq2_s ? .iq3_s : target
        default:
            return target
        }
    }

    /// Every tensor's type under `target`'s mix, by name, or `nil` when `target` has none or
    /// the file names no `general.architecture`.
    public static func types(of file: GGUFFile, target: QuantizationTarget) -> [String: GGMLType]? {
        guard let architecture = file.metadata.string("general.architecture") else { return nil }
        func integer(_ key: String) -> Int? { file.metadata.integer(architecture + "." + key) }
        let heads = integer("attention.head_count") ?? 1
        let kvHeads = integer("attention.head_count_kv") ?? heads
        let layers = integer("block_count") ?? 1
        let definition = TensorRole.definition(of: file)
        let tied = !file.tensors.contains { $0.name == definition.output }
        var types: [String: GGMLType] = [:]
        for tensor in file.tensors {
            guard let type = type(forTensor: tensor.name, dimensions: tensor.dimensions, target: target, layerCount: layers,
                                  queryHeadsPerKeyHead: heads / Swift.max(1, kvHeads), tiedEmbedding: tied,
                                  architecture: definition) else { return nil }
            types[tensor.name] = type
        }
        return types
    }

    /// Bytes of tensor data of `file` under `target`'s mix, or `nil` when `target` has none or
    /// the file names no `general.architecture` (its shape keys cannot be found).
    public static func byteCount(of file: GGUFFile, target: QuantizationTarget) -> Int? {
        guard let types = types(of: file, target: target) else { return nil }
        var total = 0
        for tensor in file.tensors {
            guard let bytes = GGUFTensorInfo.byteCount(dimensions: tensor.dimensions, type: types[tensor.name]!) else { return nil }
            total += bytes
        }
        return total
    }
}
