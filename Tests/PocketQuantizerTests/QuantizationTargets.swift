import PocketGGUF
import PocketQuantizer

/// Shorthands for the targets the tests name (the library derives its targets from the format
/// table, so it has no per-type constants).
extension QuantizationTarget {
    static let q2_k = QuantizationTarget(.q2_K)!
    static let q3_k = QuantizationTarget(.q3_K)!
    static let q4_k = QuantizationTarget(.q4_K)!
    static let q6_k = QuantizationTarget(.q6_K)!
    static let q4_0 = QuantizationTarget(.q4_0)!
    static let q4_1 = QuantizationTarget(.q4_1)!
    static let q5_0 = QuantizationTarget(.q5_0)!
    static let q8_0 = QuantizationTarget(.q8_0)!
    static let iq3_xxs = QuantizationTarget(.iq3_xxs)!
    static let iq3_s = QuantizationTarget(.iq3_s)!
    static let iq4_xs = QuantizationTarget(.iq4_xs)!
    static let iq4_nl = QuantizationTarget(.iq4_nl)!
}
