// The prefetch instruction, with no compiler flag.
//
// Swift has no prefetch function, and the toolchain's C intrinsics do not give one either:
// `_mm_prefetch` is a C macro, and the optimizer deletes calls to the imported `_m_prefetch` and
// `_m_prefetchw` as having no effect. LLVM's own intrinsic is reachable by declaring a function
// whose symbol is the intrinsic's name: LLVM then treats the call as the intrinsic (checked in
// the disassembly: one `prefetcht0` per call, at -O and -Onone). This needs no unsafe flag, so
// dependency builds prefetch as root builds do (an earlier version used `Builtin` through
// `-parse-stdlib`, which SwiftPM refuses in versioned dependencies).

/// `llvm.prefetch(address, rw, locality, cache type)` (opaque-pointer spelling, LLVM 15 and later).
@_silgen_name("llvm.prefetch.p0")
@usableFromInline
func llvmPrefetch(_ address: UnsafeRawPointer, _ write: Int32, _ locality: Int32, _ dataCache: Int32)

/// Asks the CPU to bring the cache line holding `address` into its caches for reading
/// (`prefetcht0` on x86-64, `prfm pldl1keep` on arm64). Never faults, whatever the address.
@inlinable @inline(__always)
package func prefetch(_ address: UnsafeRawPointer) {
    llvmPrefetch(address, 0, 3, 1)  // read, keep in every level, data cache
}
