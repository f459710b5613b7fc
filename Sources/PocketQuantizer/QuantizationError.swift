import PocketGGUF

/// Errors from ``ModelQuantizer``, ``QuantizationTarget``, ``ImportanceMatrix`` and ``BudgetPlanner``.
public enum QuantizationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The requested output type is not one Pocket can quantize to.
    case unknownType(String)
    /// The input file cannot be opened or parsed.
    case unreadableInput(path: String, reason: String)
    /// A tensor of the input has a type Pocket cannot decode.
    case unsupportedInputType(tensor: String, type: GGMLType)
    /// A weight of the input is NaN or infinite (there is no meaningful encoding for it).
    case nonFiniteWeight(tensor: String, row: Int)
    /// Encoding a row produced non-finite values: its magnitudes exceed what the output
    /// format's fp16 scales can represent.
    case outOfRange(tensor: String, row: Int, type: GGMLType)
    /// The output file cannot be written (nothing is left at its path).
    case cannotWrite(path: String, reason: String)
    /// The calibration file cannot be read or is not UTF-8 text.
    case unreadableCalibration(path: String, reason: String)
    /// The calibration text has fewer tokens than the statistics need.
    case calibrationTooShort(tokens: Int, minimum: Int)
    /// The model could not be run on the calibration text.
    case calibrationFailed(reason: String)
    /// Even the smallest type of every tensor exceeds the size budget.
    case budgetTooSmall(budget: Int, minimum: Int)

    /// A one-line message naming the tensor, path or type involved.
    public var description: String {
        switch self {
        case .unknownType(let name):
            "unknown quantization type '\(name)' (expected one of: \(QuantizationTarget.allCases.map(\.name).joined(separator: ", ")))"
        case .unreadableInput(let path, let reason): "cannot read '\(path)': \(reason)"
        case .unsupportedInputType(let tensor, let type):
            "tensor '\(tensor)' has type \(type), which Pocket cannot decode"
        case .nonFiniteWeight(let tensor, let row):
            "tensor '\(tensor)' row \(row) contains NaN or infinite weights"
        case .outOfRange(let tensor, let row, let type):
            "tensor '\(tensor)' row \(row): weights too large for \(type) (its fp16 scales overflow)"
        case .cannotWrite(let path, let reason): "cannot write '\(path)': \(reason)"
        case .unreadableCalibration(let path, let reason): "cannot read calibration text '\(path)': \(reason)"
        case .calibrationTooShort(let tokens, let minimum):
            "calibration text is too short: \(tokens) tokens, at least \(minimum) needed"
        case .calibrationFailed(let reason): "cannot run the model on the calibration text: \(reason)"
        case .budgetTooSmall(let budget, let minimum):
            "size budget of \(budget) bytes is below the smallest possible output (\(minimum) bytes)"
        }
    }
}
