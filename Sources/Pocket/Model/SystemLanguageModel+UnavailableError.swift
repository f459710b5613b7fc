import PocketKernels

// This build of Pocket needs CPU instructions the running CPU lacks: `UnsupportedCPUError` (a
// Pocket addition to Apple's API), re-exported with the types of its properties. A build of
// Pocket compiled for another CPU (a root build is compiled for its build machine's) reports it
// instead of crashing on an illegal instruction: `SystemLanguageModel` is then
// `.unavailable(.deviceNotEligible)` with it as its `unavailableError`, and loading a model or
// responding throws it. Its description names the missing features and how to get a build
// that runs. (Re-exported declarations, not type aliases: code importing PocketKernels too
// would find two `UnsupportedCPUError`s.)
@_exported import class PocketCPU.UnsupportedCPUError
@_exported import struct PocketCPU.CPUFeatureSet
@_exported import enum PocketCPU.InstructionSetTier

extension SystemLanguageModel {
    /// Why the model is unavailable, as an error whose description says what to do (a Pocket
    /// addition to Apple's API); `nil` when the model is available.
    ///
    /// For `.unavailable(.deviceNotEligible)`: an ``UnsupportedCPUError`` when this build of
    /// Pocket needs CPU instructions this machine lacks, or the model's unsupported
    /// architecture. For `.unavailable(.modelNotReady)`: why the file could not be loaded.
    public var unavailableError: (any Swift.Error)? {
        do {
            _ = try loadedModel()
            return nil
        } catch {
            return error
        }
    }

    /// Checks that this build of Pocket runs on this CPU (a Pocket addition to Apple's API).
    ///
    /// Apps can also rely on ``availability``. Handling the error runs the caller's code: on a
    /// CPU without AVX, code compiled with a root build's target CPU may not run at all, so
    /// command-line tools use ``exitUnlessCPUSupported(messagePrefix:)`` instead.
    ///
    /// - Throws: ``UnsupportedCPUError`` naming the missing CPU features.
    public static func checkCPUSupport() throws {
        try CPUFeatures.checkSupported()
    }

    /// Returns if this build of Pocket runs on this CPU; otherwise writes `messagePrefix` and
    /// ``UnsupportedCPUError``'s message to standard error and exits with status 1 (a Pocket
    /// addition to Apple's API, for command-line tools: call it first thing).
    ///
    /// Everything from the check to the exit is code compiled for any x86-64 CPU, so it works
    /// on the CPUs it refuses, whatever the tool itself was compiled for.
    public static func exitUnlessCPUSupported(messagePrefix: StaticString) {
        CPUFeatures.exitUnlessSupported(messagePrefix: messagePrefix)
    }
}
