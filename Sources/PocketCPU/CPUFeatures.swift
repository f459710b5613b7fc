// The CPU this process runs on, against the CPU a build of Pocket was compiled for.
//
// A root build compiles the numeric targets for the build machine (`-target-cpu native`) or a
// named CPU, so the compiler may use that CPU's instructions anywhere in them: run elsewhere,
// the binary would die of an illegal instruction at some arbitrary point. Package.swift passes
// the features a build needs to PocketKernels as `POCKET_REQUIRES_<FEATURE>` conditions
// (`CPUFeatures.required` there); the entry points compare them with `cpuid` first and refuse
// with ``UnsupportedCPUError`` instead.
//
// This module is compiled for any x86-64 CPU (Package.swift never gives it the kernels' target
// CPU): the check, its message and the exit run on the CPUs they refuse. Compiled with the
// kernels, the table alone was copied with AVX instructions (`vmovaps ymm`) and the check died of
// SIGILL on an emulated Westmere. The functions that code compiled for another CPU calls are
// `@inline(never)`, so that cross-module optimization cannot move their bodies into it, and the
// refusal avoids generic code: the linker keeps one copy of each specialization and value-witness
// helper (weak symbols), possibly one compiled for another CPU (`__swift_memcpy48_8`, copying a
// 48-byte error struct with `vmovups ymm`, was one).

import Foundation
#if arch(x86_64)
import _Builtin_intrinsics.intel.cpuid
#endif

/// The CPU features the running CPU has, compared with those a build requires (a Pocket
/// addition).
///
/// PocketKernels adds what this build of Pocket requires (`required`, `compiledTier`,
/// `isNativeBuild`) and the checks the entry points make (`checkSupported()`,
/// `exitUnlessSupported(messagePrefix:)`).
public enum CPUFeatures {
    /// The features of the CPU this process runs on, read once with `cpuid`.
    public static let available: CPUFeatureSet = {
        #if arch(x86_64)
        return detect { leaf, subleaf in
            var registers = CPUIDRegisters()
            // Zero (registers untouched) when `leaf` is above the CPU's highest leaf.
            _ = __get_cpuid_count(leaf, subleaf, &registers.eax, &registers.ebx, &registers.ecx, &registers.edx)
            return registers
        }
        #else
        // Other architectures: no x86 feature is checked, none is required, all are present.
        return []
        #endif
    }()

    /// The features of a CPU whose `cpuid` instruction answers `cpuid(leaf, subleaf)`.
    ///
    /// The operating system must also save the AVX and AVX-512 registers for those instructions
    /// to work: XCR0, read with `xgetbv`, which the toolchain's intrinsics module does not
    /// import. OSXSAVE (leaf 1 ECX bit 27: the OS has enabled XSAVE and `xgetbv`) stands in for
    /// it: without it, the features using that state count as absent. Linux, macOS and Windows
    /// enable the AVX-512 state on every CPU that has it.
    public static func detect(cpuid: (_ leaf: UInt32, _ subleaf: UInt32) -> CPUIDRegisters) -> CPUFeatureSet {
        let highestLeaf = cpuid(0, 0).eax
        let leaf1 = highestLeaf >= 1 ? cpuid(1, 0) : CPUIDRegisters()
        let leaf7 = highestLeaf >= 7 ? cpuid(7, 0) : CPUIDRegisters()
        // Leaf 7's EAX is its highest sub-leaf.
        let leaf7Subleaf1 = highestLeaf >= 7 && leaf7.eax >= 1 ? cpuid(7, 1) : CPUIDRegisters()
        let osSavesAVXState = leaf1[CPUIDFeatureBit.osxsave.register] & CPUIDFeatureBit.osxsave.mask != 0
        var bits: UInt64 = 0
        for entry in CPUIDFeatureBit.table {
            let registers = entry.leaf == 1 ? leaf1 : entry.subleaf == 0 ? leaf7 : leaf7Subleaf1
            if registers[entry.register] & entry.mask != 0, osSavesAVXState || !entry.needsAVXState {
                bits |= entry.feature.rawValue
            }
        }
        return CPUFeatureSet(rawValue: bits)
    }

    /// The features in `required` that `available` lacks.
    public static func missing(required: CPUFeatureSet, available: CPUFeatureSet) -> CPUFeatureSet {
        CPUFeatureSet(rawValue: required.rawValue & ~available.rawValue)
    }

    /// Refuses a build compiled for `required` (with instruction-set `tier`) on a CPU with
    /// `available`.
    ///
    /// Untyped `throws`: the error is boxed here, so that callers compiled for another CPU only
    /// pass a pointer on.
    ///
    /// - Throws: ``UnsupportedCPUError`` naming the missing features.
    @inline(never)
    public static func check(required: CPUFeatureSet, available: CPUFeatureSet = available, tier: InstructionSetTier) throws {
        if let error = refusal(required: required, available: available, tier: tier) { throw error }
    }

    /// Returns if this CPU runs a build compiled for `required` (with `tier`); otherwise writes
    /// `messagePrefix` and ``UnsupportedCPUError``'s message to standard error and exits with
    /// status 1.
    ///
    /// The message goes out in static pieces through `write(2)`: no string is built, and no
    /// generic code runs whose shared copy the linker may have taken from a module compiled for
    /// another CPU (it keeps one copy of each specialization, whichever it sees first).
    @inline(never)
    public static func exitUnlessSupported(required: CPUFeatureSet, tier: InstructionSetTier, messagePrefix: StaticString) {
        guard let error = refusal(required: required, available: available, tier: tier) else { return }
        let emit = { (piece: StaticString) in _ = write(2, piece.utf8Start, piece.utf8CodeUnitCount) }
        emit(messagePrefix)
        error.writeMessage(emit)
        emit("\n")
        exit(1)
    }

    /// The error refusing a build for `required` on a CPU with `available`, if it lacks any.
    private static func refusal(required: CPUFeatureSet, available: CPUFeatureSet, tier: InstructionSetTier)
        -> UnsupportedCPUError? {
        let missing = missing(required: required, available: available)
        guard missing.rawValue != 0 else { return nil }
        return UnsupportedCPUError(tier: tier, required: required, missing: missing,
                                   fastestSupportedTier: .fastest(for: available))
    }
}
