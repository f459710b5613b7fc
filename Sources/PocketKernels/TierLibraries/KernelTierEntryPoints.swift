// The C interface of a kernel tier library (``KernelTierLibrary``): compiled only into the
// libraries the `KernelTierLibraries` plugin builds (`POCKET_KERNEL_TIER_LIBRARY`), never into
// a build that loads them.

#if POCKET_KERNEL_TIER_LIBRARY
import PocketGGUF

/// The interface this library was built with (``KernelTierLibrary/interfaceFingerprint``).
@_cdecl("pocket_kernel_tier_interface")
public func kernelTierInterface() -> Int {
    KernelTierLibrary.interfaceFingerprint
}

/// The CPU features this library was compiled for (``CPUFeatures/required``).
@_cdecl("pocket_kernel_tier_required_features")
public func kernelTierRequiredFeatures() -> UInt64 {
    CPUFeatures.required.rawValue
}

/// The library's kernel traits for the GGML type `type` (``KernelTraits/encoded``); -1 when it
/// has no integer kernel for it.
@_cdecl("pocket_kernel_tier_traits")
public func kernelTierTraits(_ type: UInt32) -> Int {
    guard let type = GGMLType(rawValue: type), let traits = KernelTable.ownTraits(of: type) else { return -1 }
    return traits.encoded
}

/// Computes the ``ProductRows`` at `rows` with the library's kernels.
@_cdecl("pocket_kernel_tier_product_rows")
public func kernelTierProductRows(_ rows: UnsafeRawPointer) {
    let rows = rows.load(as: ProductRows.self)
    KernelTable.visit(rows.type, rows)
}
/// Runs the `Attention.Accumulation` at `accumulation` with the library's attention code.
@_cdecl("pocket_kernel_tier_attention_accumulate")
public func kernelTierAttentionAccumulate(_ accumulation: UnsafeRawPointer) {
    accumulation.load(as: Attention.Accumulation.self).run()
}
#endif
