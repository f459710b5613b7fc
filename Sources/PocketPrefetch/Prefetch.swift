// Compiled with `-parse-stdlib` (Package.swift), the one way found to emit a prefetch
// instruction from Swift: the toolchain's C intrinsics `_m_prefetch` and `_m_prefetchw` import,
// but the optimizer deletes their calls as having no effect.
import Swift

/// Asks the CPU to bring the cache line holding `address` into its caches for reading
/// (`prefetcht0` on x86-64, `prfm pldl1keep` on arm64). Never faults, whatever the address.
@inlinable @inline(__always)
public func prefetch(_ address: UnsafeRawPointer) {
    // llvm.prefetch(address, read, locality 3 = keep in every level, data cache)
    Builtin.int_prefetch_RawPointer(address._rawValue, (0 as Int32)._value, (3 as Int32)._value, (1 as Int32)._value)
}
