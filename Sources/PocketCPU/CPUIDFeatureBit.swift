// Where `cpuid` reports each checked CPU feature. The positions are those of Intel's Software
// Developer's Manual (vol. 2A, CPUID: leaf 1 ECX, leaf 7 sub-leaf 0 EBX/ECX/EDX, leaf 7
// sub-leaf 1 EAX) and AMD's Programmer's Manual (vol. 3, appendix E), which agree on all of
// them; a test compares the detected set with Linux's /proc/cpuinfo flags.

/// The output registers of `cpuid`.
public enum CPUIDRegister: Sendable {
    /// EAX (leaf 7 sub-leaf 1's features).
    case eax
    /// EBX.
    case ebx
    /// ECX.
    case ecx
    /// EDX.
    case edx
}

/// The four registers one `cpuid` query returns.
public struct CPUIDRegisters: Sendable, Equatable {
    /// The registers, as the instruction leaves them.
    public var eax: UInt32, ebx: UInt32, ecx: UInt32, edx: UInt32

    /// The registers with these values.
    public init(eax: UInt32 = 0, ebx: UInt32 = 0, ecx: UInt32 = 0, edx: UInt32 = 0) {
        (self.eax, self.ebx, self.ecx, self.edx) = (eax, ebx, ecx, edx)
    }

    /// The value of `register`.
    public subscript(register: CPUIDRegister) -> UInt32 {
        switch register {
        case .eax: eax
        case .ebx: ebx
        case .ecx: ecx
        case .edx: edx
        }
    }
}

/// One CPU feature and the `cpuid` bit that reports it.
public struct CPUIDFeatureBit: Sendable {
    /// The feature, as a one-element set.
    public let feature: CPUFeatureSet
    /// Its name: Linux's /proc/cpuinfo flag, except `sse3` (Linux: `pni`); Package.swift's
    /// `POCKET_REQUIRES_<NAME>` conditions use it uppercased.
    public var name: String { staticName.description }
    /// The name as a static string (the refusal is written without building strings).
    let staticName: StaticString
    /// The `cpuid` leaf (EAX input).
    public let leaf: UInt32
    /// The sub-leaf (ECX input).
    public let subleaf: UInt32
    /// The output register holding the bit.
    public let register: CPUIDRegister
    /// The bit's position in the register.
    public let bit: UInt32
    /// Whether the instructions use the AVX (VEX/EVEX, YMM/ZMM) register state, which the
    /// operating system must save and restore: unusable when it has not enabled that state.
    public let needsAVXState: Bool

    /// The bit as a mask of its register (a constant in the table, so the check needs no
    /// variable shift: see ``CPUFeatures``).
    public let mask: UInt32

    /// The name the Linux kernel gives the feature in /proc/cpuinfo's `flags` line.
    public var linuxName: String { name == "sse3" ? "pni" : name }

    /// The row of `feature`, named `name`, reported by `bit` of `register` for `leaf` and
    /// `subleaf`; `avxState`: see ``needsAVXState``.
    init(_ feature: CPUFeatureSet, _ name: StaticString, leaf: UInt32, subleaf: UInt32 = 0, _ register: CPUIDRegister,
         bit: UInt32, avxState: Bool = false) {
        self.feature = feature
        staticName = name
        self.leaf = leaf
        self.subleaf = subleaf
        self.register = register
        self.bit = bit
        self.needsAVXState = avxState
        mask = 1 << bit
    }

    /// Leaf 1 ECX bit 27, OSXSAVE: the operating system has enabled `xgetbv` and saves the
    /// extended register state (see ``CPUFeatures/detect(cpuid:)``).
    public static let osxsave = CPUIDFeatureBit(.init(), "osxsave", leaf: 1, .ecx, bit: 27)

    /// Every checked feature, in ``CPUFeatureSet`` bit order.
    public static let table: [CPUIDFeatureBit] = [
        CPUIDFeatureBit(.sse3, "sse3", leaf: 1, .ecx, bit: 0),
        CPUIDFeatureBit(.ssse3, "ssse3", leaf: 1, .ecx, bit: 9),
        CPUIDFeatureBit(.sse4_1, "sse4_1", leaf: 1, .ecx, bit: 19),
        CPUIDFeatureBit(.sse4_2, "sse4_2", leaf: 1, .ecx, bit: 20),
        CPUIDFeatureBit(.popcnt, "popcnt", leaf: 1, .ecx, bit: 23),
        CPUIDFeatureBit(.avx, "avx", leaf: 1, .ecx, bit: 28, avxState: true),
        CPUIDFeatureBit(.avx2, "avx2", leaf: 7, .ebx, bit: 5, avxState: true),
        CPUIDFeatureBit(.fma, "fma", leaf: 1, .ecx, bit: 12, avxState: true),
        CPUIDFeatureBit(.f16c, "f16c", leaf: 1, .ecx, bit: 29, avxState: true),
        CPUIDFeatureBit(.bmi1, "bmi1", leaf: 7, .ebx, bit: 3),
        CPUIDFeatureBit(.bmi2, "bmi2", leaf: 7, .ebx, bit: 8),
        CPUIDFeatureBit(.movbe, "movbe", leaf: 1, .ecx, bit: 22),
        CPUIDFeatureBit(.avx512f, "avx512f", leaf: 7, .ebx, bit: 16, avxState: true),
        CPUIDFeatureBit(.avx512dq, "avx512dq", leaf: 7, .ebx, bit: 17, avxState: true),
        CPUIDFeatureBit(.avx512cd, "avx512cd", leaf: 7, .ebx, bit: 28, avxState: true),
        CPUIDFeatureBit(.avx512bw, "avx512bw", leaf: 7, .ebx, bit: 30, avxState: true),
        CPUIDFeatureBit(.avx512vl, "avx512vl", leaf: 7, .ebx, bit: 31, avxState: true),
        CPUIDFeatureBit(.avx512_vnni, "avx512_vnni", leaf: 7, .ecx, bit: 11, avxState: true),
        CPUIDFeatureBit(.avx512ifma, "avx512ifma", leaf: 7, .ebx, bit: 21, avxState: true),
        CPUIDFeatureBit(.avx512vbmi, "avx512vbmi", leaf: 7, .ecx, bit: 1, avxState: true),
        CPUIDFeatureBit(.avx512_vbmi2, "avx512_vbmi2", leaf: 7, .ecx, bit: 6, avxState: true),
        CPUIDFeatureBit(.avx512_bitalg, "avx512_bitalg", leaf: 7, .ecx, bit: 12, avxState: true),
        CPUIDFeatureBit(.avx512_vpopcntdq, "avx512_vpopcntdq", leaf: 7, .ecx, bit: 14, avxState: true),
        CPUIDFeatureBit(.avx512_bf16, "avx512_bf16", leaf: 7, subleaf: 1, .eax, bit: 5, avxState: true),
        CPUIDFeatureBit(.avx512_fp16, "avx512_fp16", leaf: 7, .edx, bit: 23, avxState: true),
        CPUIDFeatureBit(.avx_vnni, "avx_vnni", leaf: 7, subleaf: 1, .eax, bit: 4, avxState: true),
        // GFNI has legacy SSE encodings too, so it is usable without the AVX state.
        CPUIDFeatureBit(.gfni, "gfni", leaf: 7, .ecx, bit: 8),
        CPUIDFeatureBit(.vaes, "vaes", leaf: 7, .ecx, bit: 9, avxState: true),
        CPUIDFeatureBit(.vpclmulqdq, "vpclmulqdq", leaf: 7, .ecx, bit: 10, avxState: true),
    ]
}
