import PocketGGUF
import PocketKernels
import PocketTransformer

/// An output type `pocket quantize --type` accepts: any quantized block format with an encoder
/// (the rows of ``BlockFormats`` that conform to ``QuantizableFormat``, F32 and F16 aside).
public struct QuantizationTarget: Sendable, Hashable, CustomStringConvertible {
    /// The block format of the target.
    public let type: GGMLType

    /// The target writing `type`, or `nil` when Pocket has no encoder for it or it is not a
    /// quantized (multi-weight block) format.
    public init?(_ type: GGMLType) {
        guard let encoder = BlockFormats.encoder(for: type), encoder.weightsPerBlock > 1 else { return nil }
        self.type = type
    }

    /// Parses a type name, case-insensitively (`"q2_K"`, `"Q4_0"`).
    ///
    /// - Throws: ``QuantizationError/unknownType(_:)`` listing the accepted names.
    public init(parsing name: String) throws(QuantizationError) {
        guard let target = Self.allCases.first(where: { $0.name == name.lowercased() }) else { throw .unknownType(name) }
        self = target
    }

    /// Every target, in GGUF type-number order.
    public static var allCases: [QuantizationTarget] { BlockFormats.encoders.compactMap { Self($0.type) } }

    /// The lowercase type name the command line accepts (`"q2_k"`).
    public var name: String { type.name.lowercased() }

    /// Same as ``name``.
    public var description: String { name }

    /// The target's encoder.
    var encoder: any QuantizableFormat.Type { BlockFormats.encoder(for: type)! }
}

/// Which type each tensor of a model is quantized to.
///
/// - 1-D tensors (norm scales, biases) stay F32: they are tiny and the forward pass reads them
///   as floats.
/// - Default recipe (the usual practice for low-bit files): the token embedding and the output
///   projection go to Q6_K (or the target when it is at least as precise, i.e. Q8_0); for
///   `q2_k` and `q3_k` the attention value and output projections go to Q4_K; every other
///   matrix goes to the target.
/// - `pure`: every matrix goes to the target.
/// - Fallback: a k-quant needs rows that are a multiple of 256 weights. A matrix whose rows are
///   not (SmolLM2's hidden size is 576) takes the nearest 32-weight format with at least as
///   many bits per weight (llama.cpp's table): Q2_K, Q3_K → Q4_0; Q4_K → Q5_0; Q5_K → Q5_1;
///   Q6_K → Q8_0. Rows that are not a multiple of 32 either stay F16.
///
/// The recipe chooses by ``TensorRole``, which the family's ``ArchitectureDefinition`` gives
/// each tensor name.
///
/// ```swift
/// let recipe = QuantizationRecipe(target: QuantizationTarget(.q2_K)!)
/// recipe.choice(forTensor: "blk.0.ffn_down.weight", dimensions: [1536, 576]).type   // .q2_K
/// recipe.choice(forTensor: "blk.0.ffn_up.weight", dimensions: [576, 1536]).type     // .q4_0
/// ```
public struct QuantizationRecipe: Sendable, Equatable {
    /// The requested type.
    public let target: QuantizationTarget
    /// Whether every matrix goes to the target (no higher-precision exceptions).
    public let pure: Bool

    /// Creates a recipe.
    public init(target: QuantizationTarget, pure: Bool = false) {
        self.target = target
        self.pure = pure
    }

    /// The type one tensor is written as.
    public struct Choice: Sendable, Equatable {
        /// What the recipe asked for before the row-length fallback.
        public let requested: GGMLType
        /// What is written.
        public let type: GGMLType
        /// Whether the row length forced a different type than requested.
        public var isFallback: Bool { requested != type }
    }

    /// The output type of the tensor `name` with `dimensions` (innermost first), in a model of
    /// the family `architecture` (which names the tensors the recipe singles out; llama.cpp's
    /// names, Llama's, are every family's so far).
    public func choice(forTensor name: String, dimensions: [Int], architecture: ArchitectureDefinition = .llama) -> Choice {
        choice(for: TensorRole(tensor: name, in: architecture), dimensions: dimensions)
    }

    /// The output type of a tensor of `role` with `dimensions` (innermost first).
    public func choice(for role: TensorRole, dimensions: [Int]) -> Choice {
        guard dimensions.count > 1 else { return Choice(requested: .f32, type: .f32) }
        let requested = requestedType(for: role)
        return Choice(requested: requested, type: Self.fallback(for: requested, rowLength: dimensions[0]))
    }

    /// The recipe's type for a matrix of `role`, before the row-length fallback.
    func requestedType(for role: TensorRole) -> GGMLType {
        if pure { return target.type }
        let lowBits = [.q2_K, .q3_K, .iq2_xxs, .iq2_xs, .iq2_s, .iq3_xxs, .iq3_s, .iq1_s, .iq1_m].contains(target.type)
        switch role {
        case .tokenEmbedding, .output: return target.type == .q8_0 ? .q8_0 : .q6_K
        case .value, .attentionOutput: return lowBits ? .q4_K : target.type
        default: return target.type
        }
    }

    /// `type` if a row of `rowLength` weights is a whole number of its blocks, otherwise the
    /// documented fallback (see the type's overview).
    public static func fallback(for type: GGMLType, rowLength: Int) -> GGMLType {
        if rowLength % type.blockSize == 0 { return type }
        let substitute: GGMLType = switch type {
        case .q2_K, .q3_K: .q4_0
        case .q4_K: .q5_0
        case .q5_K: .q5_1
        case .iq1_s, .iq1_m, .iq2_xxs, .iq2_xs, .iq2_s, .iq3_xxs, .iq3_s, .iq4_xs: .iq4_nl
        default: .q8_0
        }
        return rowLength % substitute.blockSize == 0 ? substitute : .f16
    }

    /// The `general.file_type` number llama.cpp uses for this mix (`llama_ftype`).
    public var fileType: UInt32 {
        let types = target.encoder.fileTypes
        return pure ? types.pure : types.mixed
    }
}
