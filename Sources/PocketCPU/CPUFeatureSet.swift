// The CPU features the runtime check knows, one bit each: Package.swift's `checkedFeatures`,
// named as Linux's /proc/cpuinfo names them (except `sse3`, which Linux calls `pni`).

/// A set of x86-64 CPU features, one bit per feature of ``CPUIDFeatureBit/table``.
///
/// An integer, so that detecting the CPU and comparing it with a build's requirements is a few
/// scalar instructions: that code runs before anything else in a binary possibly compiled for
/// another CPU (see ``CPUFeatures``).
public struct CPUFeatureSet: OptionSet, Hashable, Sendable, CustomStringConvertible {
    /// One bit per feature, at the feature's index in ``CPUIDFeatureBit/table``.
    public let rawValue: UInt64

    /// The set with these bits.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// The features with these names (``CPUIDFeatureBit/name``); unknown names are ignored.
    public init<Names: Sequence<String>>(names: Names) {
        var bits: UInt64 = 0
        for name in names {
            if let entry = CPUIDFeatureBit.table.first(where: { $0.name == name }) { bits |= entry.feature.rawValue }
        }
        self.init(rawValue: bits)
    }

    /// The features' names, in ``CPUIDFeatureBit/table`` order (SSE first, AVX-512 last).
    public var names: [String] {
        CPUIDFeatureBit.table.filter { rawValue & $0.feature.rawValue != 0 }.map(\.name)
    }

    /// The names, comma-separated.
    public var description: String { names.joined(separator: ", ") }

    /// SSE3 (Linux: `pni`).
    public static let sse3 = CPUFeatureSet(rawValue: 1 << 0)
    /// SSSE3.
    public static let ssse3 = CPUFeatureSet(rawValue: 1 << 1)
    /// SSE4.1.
    public static let sse4_1 = CPUFeatureSet(rawValue: 1 << 2)
    /// SSE4.2.
    public static let sse4_2 = CPUFeatureSet(rawValue: 1 << 3)
    /// POPCNT.
    public static let popcnt = CPUFeatureSet(rawValue: 1 << 4)
    /// AVX.
    public static let avx = CPUFeatureSet(rawValue: 1 << 5)
    /// AVX2.
    public static let avx2 = CPUFeatureSet(rawValue: 1 << 6)
    /// FMA3 (fused multiply-add).
    public static let fma = CPUFeatureSet(rawValue: 1 << 7)
    /// F16C (fp16 conversions).
    public static let f16c = CPUFeatureSet(rawValue: 1 << 8)
    /// BMI1.
    public static let bmi1 = CPUFeatureSet(rawValue: 1 << 9)
    /// BMI2.
    public static let bmi2 = CPUFeatureSet(rawValue: 1 << 10)
    /// MOVBE.
    public static let movbe = CPUFeatureSet(rawValue: 1 << 11)
    /// AVX-512 Foundation.
    public static let avx512f = CPUFeatureSet(rawValue: 1 << 12)
    /// AVX-512 doubleword and quadword instructions.
    public static let avx512dq = CPUFeatureSet(rawValue: 1 << 13)
    /// AVX-512 conflict detection.
    public static let avx512cd = CPUFeatureSet(rawValue: 1 << 14)
    /// AVX-512 byte and word instructions.
    public static let avx512bw = CPUFeatureSet(rawValue: 1 << 15)
    /// AVX-512 vector length extensions (128- and 256-bit forms).
    public static let avx512vl = CPUFeatureSet(rawValue: 1 << 16)
    /// AVX-512 vector neural network instructions (byte dot products).
    public static let avx512_vnni = CPUFeatureSet(rawValue: 1 << 17)
    /// AVX-512 integer fused multiply-add.
    public static let avx512ifma = CPUFeatureSet(rawValue: 1 << 18)
    /// AVX-512 vector byte manipulation.
    public static let avx512vbmi = CPUFeatureSet(rawValue: 1 << 19)
    /// AVX-512 vector byte manipulation 2.
    public static let avx512_vbmi2 = CPUFeatureSet(rawValue: 1 << 20)
    /// AVX-512 bit algorithms.
    public static let avx512_bitalg = CPUFeatureSet(rawValue: 1 << 21)
    /// AVX-512 vector population count of doublewords and quadwords.
    public static let avx512_vpopcntdq = CPUFeatureSet(rawValue: 1 << 22)
    /// AVX-512 bfloat16 instructions.
    public static let avx512_bf16 = CPUFeatureSet(rawValue: 1 << 23)
    /// AVX-512 fp16 arithmetic.
    public static let avx512_fp16 = CPUFeatureSet(rawValue: 1 << 24)
    /// AVX-VNNI (VEX-encoded byte dot products).
    public static let avx_vnni = CPUFeatureSet(rawValue: 1 << 25)
    /// Galois field instructions.
    public static let gfni = CPUFeatureSet(rawValue: 1 << 26)
    /// Vector AES.
    public static let vaes = CPUFeatureSet(rawValue: 1 << 27)
    /// Vector carry-less multiplication.
    public static let vpclmulqdq = CPUFeatureSet(rawValue: 1 << 28)

    /// Every feature the check knows.
    public static let all = CPUFeatureSet(rawValue: (1 << 29) - 1)
}
