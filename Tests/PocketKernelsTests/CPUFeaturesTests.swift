import Foundation
@testable import PocketCPU
import PocketKernels
import Testing

/// The CPU check: the `cpuid` table against Linux and Package.swift, the detection and the
/// refusal on fake CPUs, and this build on this machine.
@Suite struct CPUFeaturesTests {
    /// The table's rows are the set's bits, in order, each named once.
    @Test func tableRowsAreTheSetsBits() {
        for (index, entry) in CPUIDFeatureBit.table.enumerated() {
            #expect(entry.feature.rawValue == 1 << UInt64(index), "\(entry.name)")
            #expect(entry.mask == 1 << entry.bit, "\(entry.name)")
        }
        #expect(Set(CPUIDFeatureBit.table.map(\.name)).count == CPUIDFeatureBit.table.count)
        #expect(CPUFeatureSet.all.names == CPUIDFeatureBit.table.map(\.name))
    }

    /// The table checks exactly Package.swift's `checkedFeatures`, the names of its
    /// `POCKET_REQUIRES_*` conditions: a feature missing here would be required and never checked.
    @Test func tableNamesArePackageSwiftsCheckedFeatures() throws {
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { root.deleteLastPathComponent() }
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let start = try #require(manifest.range(of: "let checkedFeatures = ["))
        let end = try #require(manifest[start.upperBound...].firstIndex(of: "]"))
        let names = manifest[start.upperBound..<end].split(separator: "\"").enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(names == CPUIDFeatureBit.table.map(\.name))
    }

    @Test func missingIsRequiredMinusAvailable() {
        #expect(CPUFeatures.missing(required: [.avx2, .fma, .avx512_vnni], available: [.avx2, .fma, .f16c]) == [.avx512_vnni])
        #expect(CPUFeatures.missing(required: [.avx2, .fma], available: .all).isEmpty)
        #expect(CPUFeatures.missing(required: [], available: []).isEmpty)
        #expect(CPUFeatures.missing(required: .all, available: []) == .all)
        #expect(CPUFeatures.missing(required: [.avx512f, .avx512_fp16, .avx_vnni], available: [.avx512f, .sse3])
            == [.avx512_fp16, .avx_vnni])
    }

    /// A Sapphire Rapids build on a Zen 4: the sentence names exactly the two missing features.
    @Test func errorNamesExactlyTheMissingFeatures() throws {
        let sapphireRapids = CPUFeatureSet(names: ["avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni",
                                                   "avx512_fp16", "avx_vnni"])
        let zen4 = CPUFeatureSet.all.subtracting([.avx512_fp16, .avx_vnni])
        let error = try #require(throws: UnsupportedCPUError.self) {
            try CPUFeatures.check(required: sapphireRapids, available: zen4, tier: .avx512)
        }
        #expect(error.missing == [.avx512_fp16, .avx_vnni])
        let description = error.description
        let lacked = try #require(description.range(of: "this CPU lacks ")?.upperBound)
        let sentenceEnd = try #require(description[lacked...].firstIndex(of: "."))
        #expect(description[lacked..<sentenceEnd] == "avx512_fp16, avx_vnni")
        #expect(description.hasPrefix("This build of Pocket (instruction-set tier avx512) was compiled for a CPU with "
            + "avx2, fma, f16c, avx512f, avx512bw, avx512vl, avx512_vnni, avx512_fp16, avx_vnni; "))
        #expect(description.contains("POCKET_TARGET_CPU=cascadelake POCKET_ISA=avx512"))
        #expect(throws: Never.self) { try CPUFeatures.check(required: sapphireRapids, available: .all, tier: .avx512) }
    }

    /// A Westmere (SSE4.2, no AVX) faked through `cpuid`, running an AVX2 build.
    @Test func olderCPUIsToldWhatItLacks() throws {
        let westmere = CPUFeatures.detect { leaf, _ in
            switch leaf {
            case 0: CPUIDRegisters(eax: 11)
            // SSE3, SSSE3, SSE4.1, SSE4.2, POPCNT; OSXSAVE.
            case 1: CPUIDRegisters(ecx: 1 << 0 | 1 << 9 | 1 << 19 | 1 << 20 | 1 << 23 | 1 << 27)
            default: CPUIDRegisters()
            }
        }
        #expect(westmere == [.sse3, .ssse3, .sse4_1, .sse4_2, .popcnt])
        #expect(InstructionSetTier.fastest(for: westmere) == .sse2)
        let error = try #require(throws: UnsupportedCPUError.self) {
            try CPUFeatures.check(required: [.avx, .avx2, .fma, .f16c, .sse4_2], available: westmere, tier: .avx2)
        }
        #expect(error.errorDescription?.hasSuffix("this CPU lacks avx, avx2, fma, f16c.") == true)
        #expect(error.recoverySuggestion?.contains("POCKET_TARGET_CPU=x86-64 POCKET_ISA=sse2") == true)
    }

    /// Each row reads its own bit: a CPU reporting only that bit (and OSXSAVE) has only that
    /// feature; sub-leaf 1 is read only when leaf 7 has it, leaf 7 only when the CPU has it.
    @Test func detectionReadsEachRowsBit() {
        for entry in CPUIDFeatureBit.table {
            let detected = CPUFeatures.detect { leaf, subleaf in
                var registers = CPUIDRegisters()
                if leaf == 0 { registers.eax = 7 }
                if leaf == 7, subleaf == 0 { registers.eax = 1 }
                if leaf == 1 { registers.ecx |= CPUIDFeatureBit.osxsave.mask }
                if leaf == entry.leaf, subleaf == entry.subleaf {
                    switch entry.register {
                    case .eax: registers.eax |= entry.mask
                    case .ebx: registers.ebx |= entry.mask
                    case .ecx: registers.ecx |= entry.mask
                    case .edx: registers.edx |= entry.mask
                    }
                }
                return registers
            }
            #expect(detected == entry.feature, "\(entry.name)")
        }
        let allOnes = CPUIDRegisters(eax: .max, ebx: .max, ecx: .max, edx: .max)
        #expect(CPUFeatures.detect { leaf, _ in leaf == 0 ? CPUIDRegisters(eax: 1) : allOnes }
            == [.sse3, .ssse3, .sse4_1, .sse4_2, .popcnt, .avx, .fma, .f16c, .movbe])
        #expect(CPUFeatures.detect { leaf, subleaf in
            leaf == 0 ? CPUIDRegisters(eax: 7) : leaf == 7 && subleaf == 0 ? CPUIDRegisters(ebx: .max, ecx: .max, edx: .max) : allOnes
        } == CPUFeatureSet.all.subtracting([.avx512_bf16, .avx_vnni]))
    }

    /// Without OSXSAVE the operating system does not save AVX state: those features are absent.
    @Test func avxFeaturesNeedTheOperatingSystem() {
        let allOnes = CPUIDRegisters(eax: .max, ebx: .max, ecx: .max, edx: .max)
        let withoutOSXSAVE = CPUFeatures.detect { leaf, subleaf in
            switch (leaf, subleaf) {
            case (0, _): CPUIDRegisters(eax: 7)
            case (1, _): CPUIDRegisters(ecx: ~CPUIDFeatureBit.osxsave.mask)
            default: allOnes
            }
        }
        #expect(withoutOSXSAVE == [.sse3, .ssse3, .sse4_1, .sse4_2, .popcnt, .bmi1, .bmi2, .movbe, .gfni])
    }

    @Test func fastestTierFollowsPackageSwift() {
        #expect(InstructionSetTier.fastest(for: .all) == .avx512)
        #expect(InstructionSetTier.fastest(for: CPUFeatureSet.all.subtracting(.avx512_vnni)) == .avx2)
        #expect(InstructionSetTier.fastest(for: [.avx2, .fma, .f16c]) == .avx2)
        #expect(InstructionSetTier.fastest(for: [.avx2, .fma]) == .sse2)
        #expect(InstructionSetTier.fastest(for: []) == .sse2)
        #expect(InstructionSetTier.avx512.requiredFeatures.names
            == ["avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni"])
        #expect(InstructionSetTier.allCases.map(\.rawValue) == InstructionSetTier.allCases.map { $0.staticName.description })
    }

    /// The tests run, so this build runs here: its requirements are all present.
    @Test func thisBuildsRequirementsArePresent() throws {
        #expect(CPUFeatures.missing(required: CPUFeatures.required, available: CPUFeatures.available).isEmpty)
        try CPUFeatures.checkSupported()
        #expect(CPUFeatures.required.isSuperset(of: CPUFeatures.compiledTier.requiredFeatures), "tier \(CPUFeatures.compiledTier)")
    }

    #if os(Linux) && arch(x86_64)
    /// `cpuid` and the kernel agree on every checked feature (Linux's `flags` line).
    @Test func detectedFeaturesAreProcCPUInfoFlags() throws {
        let cpuinfo = try String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8)
        let line = try #require(cpuinfo.split(separator: "\n").first { $0.hasPrefix("flags") })
        let flags = Set(line.split(separator: " ").map(String.init))
        for entry in CPUIDFeatureBit.table {
            #expect(CPUFeatures.available.contains(entry.feature) == flags.contains(entry.linuxName),
                    "\(entry.name): cpuid \(CPUFeatures.available.contains(entry.feature)), /proc/cpuinfo \(entry.linuxName)")
        }
    }
    #endif

    /// A root build tuned to its machine uses the fastest tier the machine has.
    @Test(.enabled(if: CPUFeatures.isNativeBuild, "not a native build (POCKET_NATIVE_BUILD)"))
    func nativeBuildUsesTheFastestTier() {
        #expect(CPUFeatures.compiledTier == .fastest(for: CPUFeatures.available))
    }

    /// A native build requires every checked feature of its machine (the compiler may use any),
    /// so on that machine required and available are the same set.
    @Test(.enabled(if: CPUFeatures.isNativeBuild, "not a native build (POCKET_NATIVE_BUILD)"))
    func nativeBuildRequiresEveryFeatureOfItsMachine() {
        #expect(CPUFeatures.required == CPUFeatures.available)
    }
}
