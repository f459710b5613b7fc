import PocketGGUF

/// The traits table: every block format Pocket can decode, in GGUF type-number order.
///
/// Adding a format is one file under `Formats/` and one entry here; the format tests walk this
/// table, so a new entry is checked against its fixture and its byte-size formula automatically.
///
/// ```swift
/// for format in BlockFormats.all {
///     print(format.type, format.weightsPerBlock, format.bytesPerBlock, format.bitsPerWeight)
/// }
/// ```
public enum BlockFormats {
    /// Every supported format, one per ``GGMLType``.
    public static let all: [any BlockFormat.Type] = [
        F32.self, F16.self,
        Q4_0.self, Q4_1.self, Q5_0.self, Q5_1.self, Q8_0.self,
        Q2_K.self, Q3_K.self, Q4_K.self, Q5_K.self, Q6_K.self,
        BF16.self,
    ]

    /// The format that decodes `type`, or `nil` when Pocket has no decoder for it.
    ///
    /// - Complexity: O(n) in the size of the table (13 entries); callers that decode many rows
    ///   look the format up once.
    public static func format(for type: GGMLType) -> (any BlockFormat.Type)? {
        all.first { $0.type == type }
    }
}
