// The prefetch instruction. LLVM's builtin is reachable only from a module compiled with
// `-parse-stdlib` (Package.swift does so for root builds, `POCKET_PREFETCH_BUILTIN`); the
// toolchain's C intrinsics `_m_prefetch` and `_m_prefetchw` import, but the optimizer deletes
// their calls as having no effect. A dependency build may not use that flag (SwiftPM refuses
// unsafe flags in versioned dependencies), so there `prefetch` does nothing: a hint, not a
// result, and the kernels compute the same either way.
#if POCKET_PREFETCH_BUILTIN
import Swift
#endif

/// Asks the CPU to bring the cache line holding `address` into its caches for reading
/// (`prefetcht0` on x86-64, `prfm pldl1keep` on arm64). Never faults, whatever the address.
/// A no-op in builds without it (``isPrefetchAvailable``).
@inlinable @inline(__always)
public func prefetch(_ address: UnsafeRawPointer) {
    #if POCKET_PREFETCH_BUILTIN
    // llvm.prefetch(address, read, locality 3 = keep in every level, data cache)
    Builtin.int_prefetch_RawPointer(address._rawValue, (0 as Int32)._value, (3 as Int32)._value, (1 as Int32)._value)
    #endif
}

/// Whether ``prefetch(_:)`` emits the instruction in this build (root builds) or does nothing
/// (dependency builds).
public var isPrefetchAvailable: Bool {
    #if POCKET_PREFETCH_BUILTIN
    true
    #else
    false
    #endif
}
