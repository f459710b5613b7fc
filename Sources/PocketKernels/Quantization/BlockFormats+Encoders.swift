// The encoders among the block formats. Kept with the quantizers, so the kernel tier libraries
// (which compile the kernels only, not the encoders: Plugins/KernelTierLibraries) need none of it.

import PocketGGUF

extension BlockFormats {
    /// The encoder for `type`, or `nil` when Pocket cannot write it.
    public static func encoder(for type: GGMLType) -> (any QuantizableFormat.Type)? {
        format(for: type) as? any QuantizableFormat.Type
    }

    /// The importance-weighted encoder for `type`, or `nil` when it has none (F32, F16, Q8_0:
    /// precise enough that weighting changes little).
    public static func weightedEncoder(for type: GGMLType) -> (any ImportanceWeightedFormat.Type)? {
        format(for: type) as? any ImportanceWeightedFormat.Type
    }

    /// Every format with an encoder, in GGUF type-number order.
    public static var encoders: [any QuantizableFormat.Type] {
        all.compactMap { $0 as? any QuantizableFormat.Type }
    }
}
