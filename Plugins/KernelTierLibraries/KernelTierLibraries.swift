// Builds PocketKernels' faster instruction-set tiers as dynamic libraries, for builds that may
// not compile for a target CPU (a package depending on Pocket by version: SwiftPM refuses
// `-target-cpu` there). Each library is PocketGGUF, PocketCPU and PocketKernels compiled again
// for the tier's target CPU, with the tier's conditions; `KernelTierLibrary` in PocketKernels
// loads the fastest one the running CPU supports (docs/architecture.md, "Kernel tier libraries").
//
// The outputs are not source files, so SwiftPM copies them into PocketKernels' resource bundle,
// which sits next to the executables it builds.

import Foundation
import PackagePlugin

@main
struct KernelTierLibraries: BuildToolPlugin {
    /// A tier built as a library. The conditions and features repeat Package.swift's
    /// `InstructionSetTier` rows and PocketCPU's `targetCPUFeatures` (a plugin cannot read
    /// either); the loader refuses a library whose features differ from PocketCPU's, and the
    /// dependency build's tests check each one loads.
    struct Tier {
        let name: String
        let targetCPU: String
        let conditions: [String]
        let features: [String]
    }

    static let haswellFeatures = ["sse3", "ssse3", "sse4_1", "sse4_2", "popcnt", "avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "movbe"]

    static let tiers = [
        Tier(name: "avx512", targetCPU: "cascadelake",
             conditions: ["POCKET_ISA_AVX512_VNNI", "POCKET_X86_KERNELS", "POCKET_512BIT_VECTORS", "POCKET_256BIT_VECTORS",
                          "POCKET_FMA", "POCKET_F16C"],
             features: haswellFeatures + ["avx512f", "avx512dq", "avx512cd", "avx512bw", "avx512vl", "avx512_vnni"]),
        Tier(name: "avx2", targetCPU: "haswell",
             conditions: ["POCKET_ISA_AVX2", "POCKET_X86_KERNELS", "POCKET_256BIT_VECTORS", "POCKET_FMA", "POCKET_F16C"],
             features: haswellFeatures),
    ]

    /// PocketKernels' folders a tier library does not compile: the encoders and the llama.cpp-order
    /// reference kernels, which no entry point (`TierLibraries/KernelTierEntryPoints.swift`)
    /// reaches; about a tenth of the optimizer's work in these single-threaded compiles.
    static let excludedKernelFolders = ["Quantization", "LlamaOrder"]

    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        #if os(Linux) && arch(x86_64)
        let swiftc = try context.tool(named: "swiftc").url
        /// The target's Swift files, less those under `excluded` (folders of the target's own).
        func sources(_ name: String, excluding excluded: [String] = []) throws -> [URL] {
            guard let module = try context.package.targets(named: [name]).first as? SwiftSourceModuleTarget else { return [] }
            let prefixes = excluded.map { module.directoryURL.appending(path: $0).path + "/" }
            return module.sourceFiles(withSuffix: "swift").map(\.url)
                .filter { file in !prefixes.contains { file.path.hasPrefix($0) } }
                .sorted { $0.path < $1.path }
        }
        let gguf = try sources("PocketGGUF"), cpu = try sources("PocketCPU")
        let kernels = try sources("PocketKernels", excluding: Self.excludedKernelFolders)
        return try Self.tiers.map { tier in
            let folder = context.pluginWorkDirectoryURL.appending(path: "build-\(tier.name)")
            let library = context.pluginWorkDirectoryURL.appending(path: "libPocketKernels-\(tier.name).so")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let common = ["-parse-as-library", "-O", "-wmo", "-suppress-warnings", "-swift-version", "6", "-package-name", "pocket",
                          "-target-cpu", tier.targetCPU, "-I", folder.path]
            func staticModule(_ name: String, _ files: [URL]) -> [String] {
                common + ["-module-name", name, "-emit-library", "-static", "-emit-module",
                          "-emit-module-path", folder.appending(path: "\(name).swiftmodule").path,
                          "-o", folder.appending(path: "lib\(name).a").path] + files.map(\.path)
            }
            let requirements = tier.features.map { "POCKET_REQUIRES_" + $0.uppercased() }
            let defines = (tier.conditions + requirements + ["POCKET_KERNEL_TIER_LIBRARY"]).flatMap { ["-D", $0] }
            // -Bsymbolic: the library's calls stay inside it, never bound to the loading
            // binary's own copies of the same modules.
            let dynamicLibrary = common + defines + [
                "-module-name", "PocketKernels_\(tier.name)", "-emit-library", "-L", folder.path, "-lPocketGGUF", "-lPocketCPU",
                "-Xlinker", "-Bsymbolic", "-o", library.path,
            ] + kernels.map(\.path)
            let steps = [staticModule("PocketGGUF", gguf), staticModule("PocketCPU", cpu), dynamicLibrary]
            // One command for the three compilations, so that only the library is an output (and
            // so a resource); each step's arguments go in a response file.
            var script = "set -e\n"
            for (index, arguments) in steps.enumerated() {
                let file = folder.appending(path: "step\(index).resp")
                try arguments.map(Self.quoted).joined(separator: "\n").write(to: file, atomically: true, encoding: .utf8)
                script += "\(Self.quoted(swiftc.path)) \(Self.quoted("@" + file.path))\n"
            }
            return .buildCommand(
                displayName: "Compiling PocketKernels' \(tier.name) tier library (\(tier.targetCPU))",
                executable: URL(fileURLWithPath: "/bin/sh"), arguments: ["-c", script],
                inputFiles: gguf + cpu + kernels, outputFiles: [library])
        }
        #else
        // Elsewhere the build's own kernels are all there is (arm64 has NEON in its baseline).
        return []
        #endif
    }

    /// `argument` in double quotes, for a response file or `sh`.
    static func quoted(_ argument: String) -> String {
        "\"" + argument.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "$", with: "\\$").replacingOccurrences(of: "`", with: "\\`") + "\""
    }
}
