// Kernel tiers as dynamic libraries, chosen at run time.
//
// A package that depends on Pocket by version may not pass `-target-cpu` (SwiftPM refuses
// unsafe flags there), so its build of PocketKernels has only the baseline x86-64 instructions:
// the SSE2 tier, several times slower than AVX2 or AVX-512 VNNI. Swift has no per-function
// target attribute, so one module cannot carry the faster tiers either. In that build the
// `KernelTierLibraries` build plugin compiles PocketGGUF, PocketCPU and PocketKernels again,
// once per faster tier, for the tier's target CPU (``InstructionSetTier/targetCPUName``), into
// `libPocketKernels-<tier>.so`: plugin outputs, which SwiftPM copies into PocketKernels' resource
// bundle next to the executable. The first product picks the fastest library whose target
// CPU's features this CPU has, so a binary never runs an instruction its CPU lacks and
// otherwise runs the native kernels (how llama.cpp's `GGML_CPU_ALL_VARIANTS` builds work).
//
// Only matrix products and attention cross into the library, once per thread's piece of work:
// everything else (activation quantization, norms, sampling) stays in the baseline build. The
// interface is a handful of C functions (`KernelTierEntryPoints.swift`); a product's or an
// attention's arguments travel by address as a ``ProductRows`` or an `Attention.Accumulation`,
// types both sides compile from the same source files, and the interface fingerprint checks
// the two agree on their layouts.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import PocketGGUF

/// A kernel tier compiled as a dynamic library and loaded into this process (an addition of
/// Pocket's; see the file comment).
///
/// Loaded only in builds made with the `KernelTierLibraries` plugin (a package depending on
/// Pocket by version, on Linux x86-64). `POCKET_KERNEL_TIER=avx512|avx2` restricts the choice
/// to one tier, `POCKET_KERNEL_TIER=none` keeps the build's own kernels, and
/// `POCKET_KERNEL_LIBRARY_PATH` names a folder searched before the resource bundles next to the
/// executable.
public final class KernelTierLibrary: Sendable {
    /// The tier whose kernels the library holds.
    public let tier: InstructionSetTier
    /// The file it was loaded from.
    public let path: String

    /// The library's entry points.
    let entryPoints: EntryPoints

    /// A library's entry points: C function pointers in a struct, so that the threads calling
    /// them retain nothing (the reference count of one shared object would bounce between
    /// their caches on every call).
    struct EntryPoints {
        let traits: @convention(c) (UInt32) -> Int
        let productRows: @convention(c) (UnsafeRawPointer) -> Void
        let accumulate: @convention(c) (UnsafeRawPointer) -> Void

        /// The library's kernel traits for `type`.
        func traits(of type: GGMLType) -> KernelTraits? {
            KernelTraits(encoded: traits(type.rawValue))
        }

        /// Computes `rows` with the library's kernels.
        @inline(__always)
        func compute(_ rows: ProductRows) {
            withUnsafePointer(to: rows) { productRows(UnsafeRawPointer($0)) }
        }

        /// Runs `accumulation` with the library's attention code.
        @inline(__always)
        func accumulate(_ accumulation: Attention.Accumulation) {
            withUnsafePointer(to: accumulation) { accumulate(UnsafeRawPointer($0)) }
        }
    }

    private init(tier: InstructionSetTier, path: String, entryPoints: EntryPoints) {
        self.tier = tier
        self.path = path
        self.entryPoints = entryPoints
    }

    /// The library that computes this process's matrix products and attention; nil when the
    /// build's own kernels do (a build without tier libraries, none usable on this CPU, or
    /// `POCKET_KERNEL_TIER=none`). Chosen once, at first use.
    public static var active: KernelTierLibrary? {
        #if POCKET_KERNEL_TIER_LIBRARIES
        return selection.library
        #else
        return nil
        #endif
    }

    /// The entry points of ``active``, for the kernels' calls.
    static var activeEntryPoints: EntryPoints? {
        #if POCKET_KERNEL_TIER_LIBRARIES
        return selectedEntryPoints
        #else
        return nil
        #endif
    }

    /// What the choice found, one line per tier tried (the tier, and the file loaded or why
    /// not), for `pocket info` and the benchmarks.
    public static var report: [String] {
        #if POCKET_KERNEL_TIER_LIBRARIES
        return selection.report
        #else
        return ["this build has no kernel tier libraries: its own \(CPUFeatures.compiledTier.rawValue) kernels compute products"]
        #endif
    }

    /// What both sides of the interface must agree on: its version, and the layouts of the
    /// values passed by address (a library built from other sources is refused).
    static let interfaceFingerprint: Int = {
        let version = 2
        return version << 56 | MemoryLayout<Attention.Accumulation>.size << 40 | MemoryLayout<ProductRows>.size << 28
            | MemoryLayout<Q8Vector>.stride << 16 | RowGroups.rowsPerGroup << 8 | Q8Activations.blockSize
    }()

    /// The library's kernel traits for `type`.
    func traits(of type: GGMLType) -> KernelTraits? { entryPoints.traits(of: type) }

    /// Computes `rows` with the library's kernels.
    func compute(_ rows: ProductRows) { entryPoints.compute(rows) }

    /// Runs `accumulation` with the library's attention code.
    func accumulate(_ accumulation: Attention.Accumulation) { entryPoints.accumulate(accumulation) }

    /// The file name of `tier`'s library.
    public static func fileName(of tier: InstructionSetTier) -> String { "libPocketKernels-\(tier.rawValue).so" }

    #if POCKET_KERNEL_TIER_LIBRARIES
    private static let selectedEntryPoints = selection.library?.entryPoints
    private static let selection = select(
        request: ProcessInfo.processInfo.environment["POCKET_KERNEL_TIER"],
        folders: searchFolders(), available: CPUFeatures.available)
    #endif

    /// Picks the library for `available`: the fastest tier (or the one `request` names) whose
    /// target CPU's features are all available and whose library loads from one of `folders`
    /// and matches this build's interface.
    static func select(request: String?, folders: [String], available: CPUFeatureSet)
        -> (library: KernelTierLibrary?, report: [String]) {
        var report: [String] = []
        var tiers: [InstructionSetTier] = [.avx512, .avx2]
        if let request, !request.isEmpty {
            if request == "none" {
                return (nil, ["POCKET_KERNEL_TIER=none: this build's own \(CPUFeatures.compiledTier.rawValue) kernels"])
            }
            guard let named = InstructionSetTier(rawValue: request), tiers.contains(named) else {
                return (nil, ["POCKET_KERNEL_TIER=\(request) names no kernel tier library (avx512, avx2 or none); "
                    + "this build's own \(CPUFeatures.compiledTier.rawValue) kernels"])
            }
            tiers = [named]
        }
        for tier in tiers {
            let missing = CPUFeatures.missing(required: tier.targetCPUFeatures, available: available)
            guard missing.isEmpty else {
                report.append("\(tier.rawValue): not loaded, this CPU lacks \(missing)")
                continue
            }
            let name = fileName(of: tier)
            guard let path = folders.lazy.map({ $0 + "/" + name }).first(where: { access($0, R_OK) == 0 }) else {
                report.append("\(tier.rawValue): \(name) not found in \(folders.isEmpty ? "(no folder)" : folders.joined(separator: ", "))")
                continue
            }
            switch load(tier, from: path) {
            case .success(let library):
                report.append("\(tier.rawValue): \(path)")
                return (library, report)
            case .failure(let reason):
                report.append("\(tier.rawValue): \(path) not loaded: \(reason.message)")
            }
        }
        report.append("this build's own \(CPUFeatures.compiledTier.rawValue) kernels compute products")
        return (nil, report)
    }

    /// Why a library file was not used.
    struct LoadFailure: Error {
        let message: String
    }

    /// Opens `path` and checks it is `tier`'s library for this build's interface.
    static func load(_ tier: InstructionSetTier, from path: String) -> Result<KernelTierLibrary, LoadFailure> {
        #if canImport(Glibc) || canImport(Musl)
        // Local symbols and -Bsymbolic (the plugin's link): the library's copies of Pocket's
        // modules never bind to this build's, nor this build's to the library's.
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            return .failure(LoadFailure(message: dlerror().map { String(cString: $0) } ?? "dlopen failed"))
        }
        func symbol<T>(_ name: String, as type: T.Type) -> T? {
            dlsym(handle, name).map { unsafeBitCast($0, to: T.self) }
        }
        guard let interface = symbol("pocket_kernel_tier_interface", as: (@convention(c) () -> Int).self),
              let required = symbol("pocket_kernel_tier_required_features", as: (@convention(c) () -> UInt64).self),
              let traits = symbol("pocket_kernel_tier_traits", as: (@convention(c) (UInt32) -> Int).self),
              let productRows = symbol("pocket_kernel_tier_product_rows", as: (@convention(c) (UnsafeRawPointer) -> Void).self),
              let accumulate = symbol("pocket_kernel_tier_attention_accumulate", as: (@convention(c) (UnsafeRawPointer) -> Void).self)
        else {
            dlclose(handle)
            return .failure(LoadFailure(message: "not a kernel tier library (missing entry points)"))
        }
        // Safe to call: this CPU has every feature of the tier's target CPU.
        guard interface() == interfaceFingerprint else {
            dlclose(handle)
            return .failure(LoadFailure(message: "built from other sources (interface \(interface()), this build's \(interfaceFingerprint))"))
        }
        let requires = CPUFeatureSet(rawValue: required())
        guard requires == tier.targetCPUFeatures else {
            dlclose(handle)
            return .failure(LoadFailure(message: "it requires \(requires), not the \(tier.rawValue) tier's \(tier.targetCPUFeatures)"))
        }
        // The handle stays open for the life of the process.
        return .success(KernelTierLibrary(
            tier: tier, path: path, entryPoints: EntryPoints(traits: traits, productRows: productRows, accumulate: accumulate)))
        #else
        return .failure(LoadFailure(message: "no dynamic loader on this platform"))
        #endif
    }

    /// Where the libraries are looked for: `POCKET_KERNEL_LIBRARY_PATH`, then every
    /// PocketKernels resource bundle (`<package>_PocketKernels.resources`) in the executable's
    /// folder, where SwiftPM puts them.
    static func searchFolders() -> [String] {
        var folders: [String] = []
        if let folder = ProcessInfo.processInfo.environment["POCKET_KERNEL_LIBRARY_PATH"], !folder.isEmpty {
            folders.append(folder)
        }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: executable.path)) ?? []
        for entry in entries.sorted() where entry.hasSuffix("_PocketKernels.resources") {
            folders.append(executable.appendingPathComponent(entry).path)
        }
        return folders
    }
}
