import PocketGGUF
import PocketTransformer

/// What a tensor does in its model, as the quantizer's recipes and statistics see it: read from
/// the family's ``ArchitectureDefinition`` (the names it declares for the embedding, the output
/// projection and each block's tensors), never from name suffixes, so a family with other
/// names gets the same treatment as soon as its definition is registered.
///
/// ```swift
/// let role = TensorRole(tensor: "blk.3.attn_v.weight", in: .qwen2)   // .value
/// TensorRole.layer(ofTensor: "blk.3.attn_v.weight")                   // 3
/// ```
public enum TensorRole: Sendable, Equatable, CaseIterable {
    /// The token embedding table (also the output projection when the output is tied).
    case tokenEmbedding
    /// The output projection to logits.
    case output
    /// A block's query projection.
    case query
    /// A block's key projection.
    case key
    /// A block's value projection.
    case value
    /// A block's attention output projection.
    case attentionOutput
    /// A block's feed-forward gate projection.
    case gate
    /// A block's feed-forward up projection.
    case up
    /// A block's feed-forward down projection.
    case down
    /// An RMSNorm scale (the final one, or one in a block).
    case norm
    /// Anything else the family names or does not (biases, tensors of other families).
    case other

    /// The role of the tensor `name` in a model of the family `definition`.
    public init(tensor name: String, in definition: ArchitectureDefinition) {
        switch name {
        case definition.tokenEmbedding: self = .tokenEmbedding
        case definition.output: self = .output
        case definition.outputNorm: self = .norm
        default:
            guard let layer = Self.layer(ofTensor: name) else { self = .other; return }
            let block = definition.block
            let local = String(name.dropFirst(ArchitectureDefinition.blockPrefix(layer).count))
            let norms = [block.attentionNorm, block.feedForwardNorm, block.queryNorm, block.keyNorm,
                         block.postAttentionNorm, block.postFeedForwardNorm].compactMap { $0 }
            switch local {
            case block.query: self = .query
            case block.key: self = .key
            case block.value: self = .value
            case block.attentionOutput: self = .attentionOutput
            case block.gate: self = .gate
            case block.up: self = .up
            case block.down: self = .down
            case _ where norms.contains(local): self = .norm
            default: self = .other
            }
        }
    }

    /// The block a tensor belongs to (`blk.<layer>.…`, ``ArchitectureDefinition/blockPrefix(_:)``),
    /// or `nil` for a tensor outside the blocks.
    public static func layer(ofTensor name: String) -> Int? {
        let parts = name.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, let layer = Int(parts[1]), layer >= 0,
              name.hasPrefix(ArchitectureDefinition.blockPrefix(layer)) else { return nil }
        return layer
    }

    /// The family of `file` (`general.architecture`), or Llama's when Pocket does not know it:
    /// llama.cpp gives every family the same names for the tensors the recipes single out.
    static func definition(of file: GGUFFile) -> ArchitectureDefinition {
        file.metadata.string("general.architecture").flatMap(Architecture.init(rawValue:))?.definition ?? .llama
    }
}
