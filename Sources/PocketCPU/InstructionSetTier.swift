/// An x86-64 instruction-set tier Pocket's kernels are compiled for (a Pocket addition):
/// Package.swift's `InstructionSetTier`, as the build reports it.
public enum InstructionSetTier: String, Sendable, CaseIterable {
    /// AVX-512 with VNNI byte dot products.
    case avx512
    /// AVX2, FMA and F16C.
    case avx2
    /// The x86-64 baseline: SSE2.
    case sse2
    /// No per-instruction-set kernels: portable Swift SIMD only.
    case portable

    /// The CPU features the tier's kernels use (Package.swift's `requiredFeatures`).
    public var requiredFeatures: CPUFeatureSet {
        switch self {
        case .avx512:
            CPUFeatureSet(rawValue: CPUFeatureSet.avx2.rawValue | CPUFeatureSet.fma.rawValue | CPUFeatureSet.f16c.rawValue
                | CPUFeatureSet.avx512f.rawValue | CPUFeatureSet.avx512bw.rawValue | CPUFeatureSet.avx512vl.rawValue
                | CPUFeatureSet.avx512_vnni.rawValue)
        case .avx2: CPUFeatureSet(rawValue: CPUFeatureSet.avx2.rawValue | CPUFeatureSet.fma.rawValue | CPUFeatureSet.f16c.rawValue)
        case .sse2, .portable: CPUFeatureSet(rawValue: 0)
        }
    }

    /// The fastest x86-64 tier a CPU with `features` runs: the one a native build on it uses.
    public static func fastest(for features: CPUFeatureSet) -> InstructionSetTier {
        for tier in [InstructionSetTier.avx512, .avx2] where features.rawValue & tier.requiredFeatures.rawValue == tier.requiredFeatures.rawValue {
            return tier
        }
        return .sse2
    }

    /// The name, as a static string (the refusal is written without building strings).
    var staticName: StaticString {
        switch self {
        case .avx512: "avx512"
        case .avx2: "avx2"
        case .sse2: "sse2"
        case .portable: "portable"
        }
    }

    /// An LLVM CPU name with what the tier needs and little more, for building on another
    /// machine for a CPU of this tier (`cascadelake`: the oldest with AVX-512 VNNI; `haswell`: the first with AVX2, since swiftc refuses `x86-64-v3`).
    /// Kernel tier libraries are compiled for it (``targetCPUFeatures``).
    public var targetCPUName: String { targetCPU.description }

    /// The checked features of ``targetCPUName``: what code compiled for it may use anywhere, so
    /// what a CPU needs to run a kernel tier library of this tier (a superset of
    /// ``requiredFeatures``, which are what the tier's kernels are written against).
    public var targetCPUFeatures: CPUFeatureSet {
        let haswell: CPUFeatureSet = [.sse3, .ssse3, .sse4_1, .sse4_2, .popcnt, .avx, .avx2, .fma, .f16c, .bmi1, .bmi2, .movbe]
        switch self {
        case .avx512: return haswell.union([.avx512f, .avx512dq, .avx512cd, .avx512bw, .avx512vl, .avx512_vnni])
        case .avx2: return haswell
        case .sse2, .portable: return []
        }
    }

    var targetCPU: StaticString {
        switch self {
        case .avx512: "cascadelake"
        case .avx2: "haswell"
        case .sse2, .portable: "x86-64"
        }
    }
}
