/// The element type of a tensor stored in a GGUF file.
///
/// Raw values are the numbers written on disk by GGUF (`ggml_type`); they are frozen and must
/// never be renumbered. Numbers that GGUF has retired or that Pocket does not know are rejected
/// by the reader with ``GGUFError``.
public enum GGMLType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    case f32 = 0
    case f16 = 1
    case q4_0 = 2
    case q4_1 = 3
    case q5_0 = 6
    case q5_1 = 7
    case q8_0 = 8
    case q8_1 = 9
    case q2_K = 10
    case q3_K = 11
    case q4_K = 12
    case q5_K = 13
    case q6_K = 14
    case q8_K = 15
    case iq2_xxs = 16
    case iq2_xs = 17
    case iq3_xxs = 18
    case iq1_s = 19
    case iq4_nl = 20
    case iq3_s = 21
    case iq2_s = 22
    case iq4_xs = 23
    case i8 = 24
    case i16 = 25
    case i32 = 26
    case i64 = 27
    case f64 = 28
    case iq1_m = 29
    case bf16 = 30
    case tq1_0 = 34
    case tq2_0 = 35

    /// Number of elements encoded by one block of this type (1 for plain scalar types).
    public var blockSize: Int {
        switch self {
        case .f32, .f16, .bf16, .f64, .i8, .i16, .i32, .i64: 1
        case .q4_0, .q4_1, .q5_0, .q5_1, .q8_0, .q8_1, .iq4_nl: 32
        default: 256
        }
    }

    /// Number of bytes one block of this type occupies in the file.
    public var typeSize: Int {
        switch self {
        case .f32, .i32: 4
        case .f16, .bf16, .i16: 2
        case .f64, .i64: 8
        case .i8: 1
        case .q4_0: 18
        case .q4_1: 20
        case .q5_0: 22
        case .q5_1: 24
        case .q8_0: 34
        case .q8_1: 36
        case .q2_K: 84
        case .q3_K: 110
        case .q4_K: 144
        case .q5_K: 176
        case .q6_K: 210
        case .q8_K: 292
        case .iq2_xxs: 66
        case .iq2_xs: 74
        case .iq3_xxs: 98
        case .iq1_s: 50
        case .iq4_nl: 18
        case .iq3_s: 110
        case .iq2_s: 82
        case .iq4_xs: 136
        case .iq1_m: 56
        case .tq1_0: 54
        case .tq2_0: 66
        }
    }

    /// The name llama.cpp and the `gguf` Python package print (`"q4_1"`, `"q2_K"`).
    public var name: String {
        switch self {
        case .f32: "f32"
        case .f16: "f16"
        case .q4_0: "q4_0"
        case .q4_1: "q4_1"
        case .q5_0: "q5_0"
        case .q5_1: "q5_1"
        case .q8_0: "q8_0"
        case .q8_1: "q8_1"
        case .q2_K: "q2_K"
        case .q3_K: "q3_K"
        case .q4_K: "q4_K"
        case .q5_K: "q5_K"
        case .q6_K: "q6_K"
        case .q8_K: "q8_K"
        case .iq2_xxs: "iq2_xxs"
        case .iq2_xs: "iq2_xs"
        case .iq3_xxs: "iq3_xxs"
        case .iq1_s: "iq1_s"
        case .iq4_nl: "iq4_nl"
        case .iq3_s: "iq3_s"
        case .iq2_s: "iq2_s"
        case .iq4_xs: "iq4_xs"
        case .i8: "i8"
        case .i16: "i16"
        case .i32: "i32"
        case .i64: "i64"
        case .f64: "f64"
        case .iq1_m: "iq1_m"
        case .bf16: "bf16"
        case .tq1_0: "tq1_0"
        case .tq2_0: "tq2_0"
        }
    }

    /// Same as ``name``.
    public var description: String { name }

    /// Bytes needed for a row of `count` elements, or `nil` when `count` is not a whole number
    /// of blocks.
    public func byteCount(elements count: Int) -> Int? {
        guard count >= 0, count % blockSize == 0 else { return nil }
        let (bytes, overflow) = (count / blockSize).multipliedReportingOverflow(by: typeSize)
        return overflow ? nil : bytes
    }
}
