import PocketCPU
import PocketKernels

/// This build of Pocket needs CPU instructions the running CPU lacks (a Pocket addition to
/// Apple's API).
///
/// A build of Pocket compiled for another CPU (a root build is compiled for its build
/// machine's) reports it instead of crashing on an illegal instruction: ``SystemLanguageModel``
/// is then `.unavailable(.deviceNotEligible)` with this as its
/// ``SystemLanguageModel/unavailableError``, and loading a model or responding throws it. Its
/// description names the missing features and how to get a build that runs.
public typealias UnsupportedCPUError = PocketCPU.UnsupportedCPUError

extension SystemLanguageModel {
    /// Why the model is unavailable, as an error whose description says what to do (a Pocket
    /// addition to Apple's API); `nil` when the model is available.
    ///
    /// For `.unavailable(.deviceNotEligible)`: an ``UnsupportedCPUError`` when this build of
    /// Pocket needs CPU instructions this machine lacks, or the model's unsupported
    /// architecture. For `.unavailable(.modelNotReady)`: why the file could not be loaded.
    public var unavailableError: (any Error)? {
        do {
            _ = try loadedModel()
            return nil
        } catch {
            return error
        }
    }

    /// Checks that this build of Pocket runs on this CPU (a Pocket addition to Apple's API).
    ///
    /// Command-line tools call it first thing, to exit with its message rather than let any
    /// later code crash on an instruction the CPU lacks; apps can rely on ``availability``.
    ///
    /// - Throws: ``UnsupportedCPUError`` naming the missing CPU features.
    public static func checkCPUSupport() throws {
        try CPUFeatures.checkSupported()
    }
}
