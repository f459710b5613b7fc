import PocketGGUF

/// One tensor of a quantization: where it comes from and what it becomes.
public struct TensorPlan: Sendable, Equatable {
    /// The tensor's name.
    public let name: String
    /// Its dimensions, innermost first.
    public let dimensions: [Int]
    /// Its type in the input file.
    public let inputType: GGMLType
    /// The recipe's choice (requested type and the type actually written).
    public let choice: QuantizationRecipe.Choice

    /// The type written.
    public var outputType: GGMLType { choice.type }
    /// Number of weights.
    public var elementCount: Int { dimensions.reduce(1, *) }
    /// Bytes the tensor occupies in the output.
    public var outputByteCount: Int { GGUFTensorInfo.byteCount(dimensions: dimensions, type: outputType)! }
}

/// The result for one tensor.
public struct TensorQuantizationReport: Sendable {
    /// What was done.
    public let plan: TensorPlan
    /// Root-mean-square difference between the decoded output and the decoded input.
    public let rmsError: Double
    /// Root-mean-square of the decoded input (so `rmsError / inputRMS` is the relative error).
    public let inputRMS: Double
}

/// The result of a whole quantization.
public struct QuantizationSummary: Sendable {
    /// One report per tensor, in file order.
    public let tensors: [TensorQuantizationReport]
    /// Size of the written file in bytes.
    public let fileByteCount: Int
    /// Wall-clock time of the encoding and writing, in seconds.
    public let seconds: Double

    /// Bytes of tensor data (without header and padding).
    public var tensorByteCount: Int { tensors.reduce(0) { $0 + $1.plan.outputByteCount } }
    /// Number of weights over all tensors.
    public var elementCount: Int { tensors.reduce(0) { $0 + $1.plan.elementCount } }
    /// Bits of tensor data per weight, over all tensors.
    public var bitsPerWeight: Double { Double(tensorByteCount * 8) / Double(max(1, elementCount)) }
}
