// swift-tools-version: 6.1
// Pocket: a pure-Swift, on-device LLM inference engine with Apple's FoundationModels API.
// No package dependencies by design: only the toolchain (stdlib, Foundation, Dispatch,
// Synchronization, Swift Testing).
import CompilerPluginSupport
import PackageDescription
#if os(Linux)
import Foundation
#endif

/// Per-ISA kernels, chosen at build time (the ggml way: scalar reference → portable Swift SIMD →
/// per-ISA). `POCKET_X86_KERNELS` compiles the byte dot-product kernels (`Formats/<F>+X86.swift`,
/// through the toolchain's `_Builtin_intrinsics.intel` module) on one of two instruction sets:
/// `POCKET_AVX512_VNNI` (`vpdpbusd`, 64 byte products per instruction) or `POCKET_AVX2`
/// (`vpmaddubsw` + `vpmaddwd`, for CPUs without AVX-512); without either the portable kernels
/// run. `POCKET_ISA=avx512|avx2|portable` chooses; otherwise the build machine's CPU flags do,
/// when the build is for that machine (`detect`).
func instructionSetKernels(detect: Bool) -> [SwiftSetting] {
    let avx512: [SwiftSetting] = [.define("POCKET_X86_KERNELS"), .define("POCKET_AVX512_VNNI")]
    let avx2: [SwiftSetting] = [.define("POCKET_X86_KERNELS"), .define("POCKET_AVX2")]
    switch Context.environment["POCKET_ISA"] {
    case "avx512": return avx512
    case "avx2": return avx2
    case "portable": return []
    default: break
    }
    #if os(Linux) && arch(x86_64)
    guard detect, let cpu = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
          let flagsLine = cpu.split(separator: "\n").first(where: { $0.hasPrefix("flags") })
    else { return [] }
    let flags = Set(flagsLine.split(separator: " ").map(String.init))
    if ["avx512f", "avx512bw", "avx512vl", "avx512_vnni"].allSatisfy(flags.contains) { return avx512 }
    if ["avx2", "fma", "f16c"].allSatisfy(flags.contains) { return avx2 }
    #endif
    return []
}

/// Every target that links the kernels gets the same settings: release builds inline kernels
/// across modules, and kernel code compiled into a module without the CPU's features is slow
/// (or, for the per-ISA kernels, uses an encoding the CPU may lack).
///
/// Kernels are only fast when the compiler may use the host's vector units: Swift's default
/// x86-64 target has no FMA and no AVX, and some SIMD idioms fall back to per-lane calls
/// (see docs/kernels.md). On x86-64 we therefore compile the numeric targets for the build
/// machine's CPU, as llama.cpp does by default. `POCKET_PORTABLE=1` at build time turns this off
/// for binaries that must run on other x86-64 machines. `POCKET_TARGET_CPU=NAME` (an LLVM CPU
/// name: `haswell` for AVX2 machines, `znver4` for AVX-512 ones…) compiles for that CPU
/// instead, with the portable kernels unless `POCKET_ISA` names the instruction set: the build
/// machine's flags say nothing about another CPU.
let hostTuned: [SwiftSetting] = {
    #if arch(x86_64)
    if Context.environment["POCKET_PORTABLE"] == nil {
        let named = Context.environment["POCKET_TARGET_CPU"].flatMap { $0.isEmpty ? nil : $0 }
        return [.unsafeFlags(["-target-cpu", named ?? "native"])] + instructionSetKernels(detect: named == nil)
    }
    #endif
    return []
}()


let package = Package(
    name: "Pocket",
    products: [
        .library(name: "PocketGGUF", targets: ["PocketGGUF"]),
        .library(name: "PocketKernels", targets: ["PocketKernels"]),
        .library(name: "PocketTokenizer", targets: ["PocketTokenizer"]),
        .library(name: "PocketTransformer", targets: ["PocketTransformer"]),
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
        // Under layer 2: the prefetch instruction, the one compiler builtin the kernels use
        // (reachable only with `-parse-stdlib`, so in a module of its own).
        .target(name: "PocketPrefetch", swiftSettings: [.unsafeFlags(["-parse-stdlib"])]),
        // Layer 2: block formats, dequantization, dot products, matmul, norms, thread pool.
        .target(name: "PocketKernels", dependencies: ["PocketGGUF", "PocketPrefetch"], swiftSettings: hostTuned),
        // Layer 2: byte-level BPE tokenizer, pre-tokenizers, chat templates, detokenizer.
        .target(name: "PocketTokenizer", dependencies: ["PocketGGUF"]),
        // Layer 3: model config, weights, KV cache, forward pass, sampling.
        .target(
            name: "PocketTransformer",
            dependencies: ["PocketGGUF", "PocketKernels"],
            swiftSettings: hostTuned),
        // Grammar automaton and token masks for structured output; sees the vocabulary as id -> bytes.
        .target(name: "PocketGrammar"),
        // Lexer, declaration parser and code generator behind @Generable (no swift-syntax).
        .target(name: "PocketMacroKit"),
        // The @Generable / @Guide macros: a compiler plugin that speaks the plugin protocol itself.
        .macro(name: "PocketMacros", dependencies: ["PocketMacroKit"]),
        // The public API (Apple's FoundationModels names).
        .target(
            name: "Pocket",
            dependencies: ["PocketMacros", "PocketGrammar", "PocketTransformer", "PocketTokenizer", "PocketGGUF"],
            swiftSettings: hostTuned),
        // Re-exports Pocket under Apple's module name.
        .target(name: "FoundationModels", dependencies: ["Pocket"]),
        // The `pocket` command-line tool.
        .executableTarget(
            name: "PocketCLI",
            dependencies: ["PocketGGUF", "PocketKernels", "PocketTokenizer", "PocketTransformer", "PocketGrammar", "Pocket"],
            swiftSettings: hostTuned),
        // `pocket-examples`: one runnable example per pattern in Apple's documentation.
        .executableTarget(name: "PocketExamples", dependencies: ["Pocket"], swiftSettings: hostTuned),
        // The benchmark runner `pocket-bench` (sources in Benchmarks/).
        .executableTarget(
            name: "PocketBench",
            dependencies: ["PocketGGUF", "PocketKernels", "PocketTokenizer", "PocketTransformer", "PocketGrammar", "Pocket"],
            path: "Benchmarks", swiftSettings: hostTuned),

        .testTarget(name: "PocketGGUFTests", dependencies: ["PocketGGUF", "PocketKernels"], exclude: ["Fixtures"]),
        .testTarget(name: "PocketKernelsTests", dependencies: ["PocketKernels", "PocketGGUF"],
                    resources: [.copy("Fixtures")], swiftSettings: hostTuned),
        .testTarget(
            name: "PocketTokenizerTests", dependencies: ["PocketTokenizer", "PocketGGUF", "PocketTransformer"], exclude: ["Fixtures"],
            swiftSettings: hostTuned),
        .testTarget(
            name: "PocketTransformerTests",
            dependencies: ["PocketTransformer", "PocketTokenizer", "PocketKernels", "PocketGGUF"], swiftSettings: hostTuned),
        .testTarget(
            name: "PocketGrammarTests", dependencies: ["PocketGrammar", "PocketTokenizer", "PocketGGUF", "PocketKernels"]),
        .testTarget(
            name: "PocketMacroKitTests", dependencies: ["PocketMacroKit"], resources: [.copy("Fixtures")]),
        .testTarget(name: "PocketTests", dependencies: ["Pocket"], swiftSettings: hostTuned),
        // Runs the built `pocket` executable as a user would.
        .testTarget(name: "PocketCLITests", dependencies: ["PocketCLI"], swiftSettings: hostTuned),
    ]
)
