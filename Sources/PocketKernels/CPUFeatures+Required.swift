// What this build of Pocket requires of the CPU, from Package.swift's conditions, and the
// checks the entry points make first (PocketCPU's `CPUFeatures` has the detection).
//
// This file is compiled for the build's CPU: its functions only pass constants to PocketCPU,
// which is compiled for any x86-64 and does the rest.

@_exported import PocketCPU

extension CPUFeatures {
    /// The features this build was compiled to use (Package.swift's `POCKET_REQUIRES_*`): every
    /// checked feature of the build machine for a native build, of the named CPU for
    /// `POCKET_TARGET_CPU`, the tier's own otherwise; none for the portable and dependency
    /// builds and on other architectures.
    public static let required: CPUFeatureSet = {
        // Raw bits: integer code only, since this runs on CPUs the build may not support.
        var set: UInt64 = 0
        #if POCKET_REQUIRES_SSE3
        set |= CPUFeatureSet.sse3.rawValue
        #endif
        #if POCKET_REQUIRES_SSSE3
        set |= CPUFeatureSet.ssse3.rawValue
        #endif
        #if POCKET_REQUIRES_SSE4_1
        set |= CPUFeatureSet.sse4_1.rawValue
        #endif
        #if POCKET_REQUIRES_SSE4_2
        set |= CPUFeatureSet.sse4_2.rawValue
        #endif
        #if POCKET_REQUIRES_POPCNT
        set |= CPUFeatureSet.popcnt.rawValue
        #endif
        #if POCKET_REQUIRES_AVX
        set |= CPUFeatureSet.avx.rawValue
        #endif
        #if POCKET_REQUIRES_AVX2
        set |= CPUFeatureSet.avx2.rawValue
        #endif
        #if POCKET_REQUIRES_FMA
        set |= CPUFeatureSet.fma.rawValue
        #endif
        #if POCKET_REQUIRES_F16C
        set |= CPUFeatureSet.f16c.rawValue
        #endif
        #if POCKET_REQUIRES_BMI1
        set |= CPUFeatureSet.bmi1.rawValue
        #endif
        #if POCKET_REQUIRES_BMI2
        set |= CPUFeatureSet.bmi2.rawValue
        #endif
        #if POCKET_REQUIRES_MOVBE
        set |= CPUFeatureSet.movbe.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512F
        set |= CPUFeatureSet.avx512f.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512DQ
        set |= CPUFeatureSet.avx512dq.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512CD
        set |= CPUFeatureSet.avx512cd.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512BW
        set |= CPUFeatureSet.avx512bw.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512VL
        set |= CPUFeatureSet.avx512vl.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512_VNNI
        set |= CPUFeatureSet.avx512_vnni.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512IFMA
        set |= CPUFeatureSet.avx512ifma.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512VBMI
        set |= CPUFeatureSet.avx512vbmi.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512_VBMI2
        set |= CPUFeatureSet.avx512_vbmi2.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512_BITALG
        set |= CPUFeatureSet.avx512_bitalg.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512_VPOPCNTDQ
        set |= CPUFeatureSet.avx512_vpopcntdq.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512_BF16
        set |= CPUFeatureSet.avx512_bf16.rawValue
        #endif
        #if POCKET_REQUIRES_AVX512_FP16
        set |= CPUFeatureSet.avx512_fp16.rawValue
        #endif
        #if POCKET_REQUIRES_AVX_VNNI
        set |= CPUFeatureSet.avx_vnni.rawValue
        #endif
        #if POCKET_REQUIRES_GFNI
        set |= CPUFeatureSet.gfni.rawValue
        #endif
        #if POCKET_REQUIRES_VAES
        set |= CPUFeatureSet.vaes.rawValue
        #endif
        #if POCKET_REQUIRES_VPCLMULQDQ
        set |= CPUFeatureSet.vpclmulqdq.rawValue
        #endif
        return CPUFeatureSet(rawValue: set)
    }()

    /// The instruction-set tier this build was compiled with (Package.swift's conditions).
    public static let compiledTier: InstructionSetTier = {
        #if POCKET_ISA_AVX512_VNNI
        return .avx512
        #elseif POCKET_ISA_AVX2
        return .avx2
        #elseif POCKET_ISA_SSE2
        return .sse2
        #else
        return .portable
        #endif
    }()

    /// Whether this build was tuned to its build machine: that machine's CPU and the tier
    /// detected from it (`POCKET_NATIVE_BUILD`).
    public static let isNativeBuild: Bool = {
        #if POCKET_NATIVE_BUILD
        return true
        #else
        return false
        #endif
    }()

    /// Refuses to run this build on this CPU if it lacks a feature the build requires.
    ///
    /// - Throws: ``UnsupportedCPUError`` naming the missing features.
    public static func checkSupported() throws {
        try check(required: required, tier: compiledTier)
    }

    /// Returns if this CPU runs this build; otherwise writes `messagePrefix` and
    /// ``UnsupportedCPUError``'s message to standard error and exits with status 1. Command-line
    /// tools call it first thing, before any code that may use the build's instructions.
    public static func exitUnlessSupported(messagePrefix: StaticString) {
        exitUnlessSupported(required: required, tier: compiledTier, messagePrefix: messagePrefix)
    }
}
