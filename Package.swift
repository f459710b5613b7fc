// swift-tools-version: 6.1
// Pocket: a pure-Swift, on-device LLM inference engine with Apple's FoundationModels API.
// No package dependencies by design: only the toolchain (stdlib, Foundation, Dispatch,
// Synchronization, Swift Testing).
import CompilerPluginSupport
import PackageDescription
import Foundation

// How Pocket is compiled: the build mode, the instruction-set tier, and the CPU features the
// resulting binary needs. Everything here is decided once and reaches the code as `.define`s
// (docs/architecture.md, "Adding an instruction set").
//
// Build modes:
// - **root** (Pocket's own checkout, or a local path dependency): the numeric targets are
//   compiled for the build machine's CPU (`-target-cpu native`) with the fastest tier it has.
// - **dependency** (a checkout SwiftPM or Xcode made for a package that depends on Pocket, i.e.
//   a folder inside `…/checkouts/`): SwiftPM refuses unsafe flags there, so none are declared.
//   The kernels use the target's baseline instructions (SSE2 on x86-64). `POCKET_NATIVE=1` at
//   build time opts into the build machine's tier, as `.define`s only: the consumer then passes
//   `-Xswiftc -target-cpu -Xswiftc native` itself (README, "Use Pocket in your package").
//   `POCKET_AS_DEPENDENCY=1` builds Pocket's own checkout this way (for tests and benchmarks).
//
// `POCKET_ISA=avx512|avx2|sse2|portable` names the tier instead of detecting it;
// `POCKET_TARGET_CPU=NAME` (an LLVM CPU name, root mode) compiles for that CPU instead of the
// build machine's; `POCKET_PORTABLE=1` is the reference build: no target CPU, portable Swift SIMD
// kernels only. Without `Foundation` (macOS manifests) the root mode still works; CPU detection
// then finds nothing and the portable kernels are used unless `POCKET_ISA` names a tier.
let environment = Context.environment

/// True when this copy of Pocket was made by SwiftPM or Xcode for a package that depends on it:
/// a source-control checkout (`<scratch>/checkouts/Pocket`, Xcode's `SourcePackages/checkouts/…`)
/// or a registry download (`<scratch>/registry/downloads/<scope>/<name>/<version>`).
/// `POCKET_AS_DEPENDENCY=1` or `0` overrides the guess.
let isDependencyCheckout: Bool = {
    if let forced = environment["POCKET_AS_DEPENDENCY"] { return forced == "1" }
    let folders = URL(fileURLWithPath: Context.packageDirectory).standardizedFileURL.pathComponents
    if folders.dropLast().last == "checkouts" { return true }
    return folders.count > 5 && folders[folders.count - 5] == "registry" && folders[folders.count - 4] == "downloads"
}()

/// One row per x86-64 instruction-set tier: the compilation conditions its code is written
/// against, and the CPU features (as `/proc/cpuinfo` names them) a binary built with it needs.
/// Capability conditions, not tier names, are what shared kernel files test:
/// - `POCKET_X86_KERNELS`: the byte dot-product kernels (`ByteDot`, `Formats/<F>+X86.swift`,
///   row groups) are compiled, on the tier's `ByteDot` (`Sources/PocketKernels/ISA/<tier>/`);
/// - `POCKET_512BIT_VECTORS`: 512-bit registers, so row-group kernels take a whole group at once
///   (without it they go in 256-bit halves);
/// - `POCKET_256BIT_VECTORS`: AVX/AVX2 instructions for float and double lanes (attention's
///   dot products and exponential);
/// - `POCKET_FMA`, `POCKET_F16C`: fused multiply-add and fp16 conversion are instructions (without
///   them the code multiplies then adds, and converts fp16 with integer operations).
struct InstructionSetTier {
    let name: String
    let conditions: [String]
    let requiredFeatures: [String]

    static let avx512 = InstructionSetTier(
        name: "avx512",
        conditions: ["POCKET_ISA_AVX512_VNNI", "POCKET_X86_KERNELS", "POCKET_512BIT_VECTORS", "POCKET_256BIT_VECTORS",
                     "POCKET_FMA", "POCKET_F16C"],
        requiredFeatures: ["avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512vl", "avx512_vnni"])
    static let avx2 = InstructionSetTier(
        name: "avx2",
        conditions: ["POCKET_ISA_AVX2", "POCKET_X86_KERNELS", "POCKET_256BIT_VECTORS", "POCKET_FMA", "POCKET_F16C"],
        requiredFeatures: ["avx2", "fma", "f16c"])
    static let sse2 = InstructionSetTier(
        name: "sse2", conditions: ["POCKET_ISA_SSE2", "POCKET_X86_KERNELS", "POCKET_WIDENED_COLUMNS"], requiredFeatures: [])
    static let portable = InstructionSetTier(name: "portable", conditions: [], requiredFeatures: [])

    static func named(_ name: String) -> InstructionSetTier? {
        [avx512, avx2, sse2, portable].first { $0.name == name }
    }

    /// The fastest tier whose features are all in `flags`.
    static func fastest(for flags: Set<String>) -> InstructionSetTier {
        [avx512, avx2].first { $0.requiredFeatures.allSatisfy(flags.contains) } ?? sse2
    }
}

/// The CPU features the runtime check knows (`CPUFeatures` in PocketCPU, through `cpuid`):
/// a native build requires every one of them the build machine has, since the compiler may
/// use any of them anywhere.
let checkedFeatures = [
    "sse3", "ssse3", "sse4_1", "sse4_2", "popcnt", "avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "movbe",
    "avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl", "avx512_vnni", "avx512ifma", "avx512vbmi",
    "avx512_vbmi2", "avx512_bitalg", "avx512_vpopcntdq", "avx512_bf16", "avx512_fp16", "avx_vnni", "gfni",
    "vaes", "vpclmulqdq",
]

/// What a few LLVM CPU names have (for `POCKET_TARGET_CPU`, whose binaries run elsewhere).
let namedCPUFeatures: [String: [String]] = {
    let haswell = ["sse3", "ssse3", "sse4_1", "sse4_2", "popcnt", "avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "movbe"]
    let skylakeAVX512 = haswell + ["avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl"]
    let icelake = skylakeAVX512 + ["avx512_vnni", "avx512ifma", "avx512vbmi", "avx512_vbmi2", "avx512_bitalg",
                                   "avx512_vpopcntdq", "gfni", "vaes", "vpclmulqdq"]
    return [
        "x86-64": [], "haswell": haswell, "znver2": haswell, "znver3": haswell + ["vaes", "vpclmulqdq"],
        "skylake-avx512": skylakeAVX512, "cascadelake": skylakeAVX512 + ["avx512_vnni"],
        "icelake-server": icelake, "znver4": icelake + ["avx512_bf16"],
        "sapphirerapids": icelake + ["avx512_bf16", "avx512_fp16", "avx_vnni"],
    ]
}()

/// The build machine's CPU flags (`/proc/cpuinfo`), empty where there is no such file; SSE3 as
/// `sse3`, which Linux calls `pni`.
let hostFlags: Set<String> = {
    #if os(Linux) && arch(x86_64)
    guard let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
          let line = cpu.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
    else { return [] }
    // The kernel calls SSE3 "pni" (Prescott New Instructions).
    return Set(line.split(separator: " ").map { $0 == "pni" ? "sse3" : String($0) })
    #else
    return []
    #endif
}()

/// Whether this build also compiles the faster tiers as dynamic libraries, loaded at run time
/// when the CPU has their instructions (the `KernelTierLibraries` plugin, PocketKernels'
/// `KernelTierLibrary`): the dependency build on Linux x86-64, which may not compile for a
/// target CPU itself. `POCKET_KERNEL_TIER_LIBRARIES=0` leaves them out.
let buildsKernelTierLibraries: Bool = {
    #if os(Linux) && arch(x86_64)
    // Not with another tier named (`POCKET_ISA=portable` for cross-compiling, say).
    return isDependencyCheckout && environment["POCKET_NATIVE"] != "1" && environment["POCKET_PORTABLE"] != "1"
        && [nil, "sse2"].contains(environment["POCKET_ISA"]) && environment["POCKET_KERNEL_TIER_LIBRARIES"] != "0"
    #else
    return false
    #endif
}()

/// `POCKET_NATIVE_BUILD` marks a build for the build machine's own CPU with the tier detected
/// from it (a test checks that tier is the fastest the running CPU has).
///
/// The settings of every target that links the kernels (release builds inline kernels across
/// modules, so they all need the same target CPU and conditions).
let kernelSettings: [SwiftSetting] = {
    #if arch(x86_64)
    let requested = environment["POCKET_ISA"].flatMap(InstructionSetTier.named)
    func conditions(_ tier: InstructionSetTier, requiring features: [String]) -> [SwiftSetting] {
        let required = Set(features + tier.requiredFeatures).intersection(checkedFeatures)
        return (tier.conditions + required.sorted().map { "POCKET_REQUIRES_" + $0.uppercased() }).map { .define($0) }
    }
    if environment["POCKET_PORTABLE"] == "1" { return conditions(.portable, requiring: []) }
    if isDependencyCheckout {
        guard environment["POCKET_NATIVE"] == "1" else {
            return conditions(requested ?? .sse2, requiring: [])
                + (buildsKernelTierLibraries ? [.define("POCKET_KERNEL_TIER_LIBRARIES")] : [])
        }
        // The consumer's `-Xswiftc -target-cpu -Xswiftc native` compiles for this machine.
        return conditions(requested ?? .fastest(for: hostFlags), requiring: Array(hostFlags))
            + (requested == nil ? [.define("POCKET_NATIVE_BUILD")] : [])
    }
    if let named = environment["POCKET_TARGET_CPU"].flatMap({ $0.isEmpty ? nil : $0 }) {
        // Another machine's CPU: its flags are not this machine's, so the tier must be named.
        let features = namedCPUFeatures[named] ?? []
        return [.unsafeFlags(["-target-cpu", named])]
            + conditions(requested ?? .fastest(for: Set(features)), requiring: features)
    }
    return [.unsafeFlags(["-target-cpu", "native"])]
        + conditions(requested ?? .fastest(for: hostFlags), requiring: Array(hostFlags))
        + (requested == nil ? [.define("POCKET_NATIVE_BUILD")] : [])
    #else
    return []
    #endif
}()

let package = Package(
    name: "Pocket",
    products: [
        .library(name: "PocketGGUF", targets: ["PocketGGUF"]),
        .library(name: "PocketKernels", targets: ["PocketKernels"]),
        .library(name: "PocketTokenizer", targets: ["PocketTokenizer"]),
        .library(name: "PocketTransformer", targets: ["PocketTransformer"]),
        .library(name: "PocketQuantizer", targets: ["PocketQuantizer"]),
        .library(name: "PocketGrammar", targets: ["PocketGrammar"]),
        .library(name: "Pocket", targets: ["Pocket"]),
        // `import FoundationModels` for code written against Apple's framework (re-exports Pocket).
        .library(name: "FoundationModels", targets: ["FoundationModels"]),
        .executable(name: "pocket", targets: ["PocketCLI"]),
        .executable(name: "pocket-bench", targets: ["PocketBench"]),
        .executable(name: "pocket-examples", targets: ["PocketExamples"]),
    ],
    targets: [
        // Layer 1: the GGUF file format (memory-mapped reader, metadata, tensor infos).
        .target(name: "PocketGGUF"),
        // Under layer 2: the CPU check (`cpuid` against the features a build requires). Never
        // given `kernelSettings`: it runs on the CPUs it refuses, so it is compiled for any x86-64.
        .target(name: "PocketCPU"),
        // Layer 2: block formats, dequantization, dot products, matmul, norms, thread pool.
        // In the dependency build it also carries the faster tiers, as libraries built by the
        // plugin below and loaded at run time (Sources/PocketKernels/TierLibraries/).
        .target(
            name: "PocketKernels", dependencies: ["PocketGGUF", "PocketCPU"], swiftSettings: kernelSettings,
            plugins: buildsKernelTierLibraries ? ["KernelTierLibraries"] : []),
        .plugin(name: "KernelTierLibraries", capability: .buildTool()),
        // Layer 2: byte-level BPE tokenizer, pre-tokenizers, chat templates, detokenizer.
        .target(name: "PocketTokenizer", dependencies: ["PocketGGUF"]),
        // Layer 3: model config, weights, KV cache, forward pass, sampling.
        .target(
            name: "PocketTransformer",
            dependencies: ["PocketGGUF", "PocketKernels"],
            swiftSettings: kernelSettings),
        // Above layer 3: the model quantizer (recipes, calibration statistics, size-budgeted
        // plans, the GGUF it writes); its built-in calibration text is a resource.
        .target(
            name: "PocketQuantizer",
            dependencies: ["PocketTransformer", "PocketKernels", "PocketGGUF"],
            resources: [.copy("Resources/calibration.txt")],
            swiftSettings: kernelSettings),
        // Grammar automaton and token masks for structured output; sees the vocabulary as id -> bytes.
        .target(name: "PocketGrammar"),
        // Lexer, declaration parser and code generator behind @Generable (no swift-syntax).
        .target(name: "PocketMacroKit"),
        // The @Generable / @Guide macros: a compiler plugin that speaks the plugin protocol itself.
        .macro(name: "PocketMacros", dependencies: ["PocketMacroKit"]),
        // The public API (Apple's FoundationModels names).
        .target(
            name: "Pocket",
            dependencies: ["PocketMacros", "PocketGrammar", "PocketTransformer", "PocketTokenizer", "PocketGGUF", "PocketCPU"],
            swiftSettings: kernelSettings),
        // Re-exports Pocket under Apple's module name.
        .target(name: "FoundationModels", dependencies: ["Pocket"]),
        // The `pocket` command-line tool.
        .executableTarget(
            name: "PocketCLI",
            dependencies: ["PocketGGUF", "PocketKernels", "PocketTokenizer", "PocketTransformer", "PocketQuantizer", "PocketGrammar",
                           "Pocket"],
            swiftSettings: kernelSettings),
        // `pocket-examples`: one runnable example per pattern in Apple's documentation.
        .executableTarget(name: "PocketExamples", dependencies: ["Pocket"], swiftSettings: kernelSettings),
        // The benchmark runner `pocket-bench` (sources in Benchmarks/).
        .executableTarget(
            name: "PocketBench",
            dependencies: ["PocketGGUF", "PocketKernels", "PocketTokenizer", "PocketTransformer", "PocketQuantizer", "PocketGrammar",
                           "Pocket"],
            path: "Benchmarks", exclude: ["dependency-speed"], swiftSettings: kernelSettings),

        .testTarget(name: "PocketGGUFTests", dependencies: ["PocketGGUF", "PocketKernels"], exclude: ["Fixtures"]),
        .testTarget(name: "PocketKernelsTests", dependencies: ["PocketKernels", "PocketGGUF", "PocketCPU"],
                    resources: [.copy("Fixtures")], swiftSettings: kernelSettings),
        .testTarget(
            name: "PocketTokenizerTests", dependencies: ["PocketTokenizer", "PocketGGUF", "PocketTransformer"], exclude: ["Fixtures"],
            swiftSettings: kernelSettings),
        .testTarget(
            name: "PocketTransformerTests",
            dependencies: ["PocketTransformer", "PocketTokenizer", "PocketKernels", "PocketGGUF"], exclude: ["Scripts"],
            swiftSettings: kernelSettings),
        .testTarget(
            name: "PocketQuantizerTests",
            dependencies: ["PocketQuantizer", "PocketTransformer", "PocketTokenizer", "PocketKernels", "PocketGGUF"],
            swiftSettings: kernelSettings),
        .testTarget(
            name: "PocketGrammarTests", dependencies: ["PocketGrammar", "PocketTokenizer", "PocketGGUF", "PocketKernels"]),
        .testTarget(
            name: "PocketMacroKitTests", dependencies: ["PocketMacroKit"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PocketTests", dependencies: ["Pocket"], swiftSettings: kernelSettings),
        // Code written for Apple's framework, importing `FoundationModels` only.
        .testTarget(name: "FoundationModelsTests", dependencies: ["FoundationModels"]),
        // Runs the built `pocket` executable as a user would.
        .testTarget(name: "PocketCLITests", dependencies: ["PocketCLI"], swiftSettings: kernelSettings),
    ]
)

// CI's narrower builds (.ci/run): `POCKET_TESTS=PocketKernelsTests,…` declares only those test
// targets, the targets they depend on and the products made of those, so running one layer's
// tests in another build mode compiles that layer and the ones below it, not the whole package.
if let names = environment["POCKET_TESTS"], !names.isEmpty {
    var kept = Set<String>()
    var pending = names.split(separator: ",").map(String.init)
    while let name = pending.popLast() {
        guard let target = package.targets.first(where: { $0.name == name }) else {
            fatalError("POCKET_TESTS names \(name), which is not a target of this package")
        }
        guard kept.insert(name).inserted else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): pending.append(name)
            default: break
            }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) && $0.type != .plugin }
    package.products.removeAll { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return !targets.allSatisfy(kept.contains)
    }
}
