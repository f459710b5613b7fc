import Foundation
import PocketGGUF
@testable import PocketKernels
import Testing

/// The choice of a kernel tier library (any build), and in builds that carry them
/// (`POCKET_KERNEL_TIER_LIBRARIES`: the dependency build on Linux x86-64) the libraries
/// themselves: the fastest one the CPU runs is active, and its products agree with the
/// build's own kernels.
@Suite struct KernelTierLibraryTests {
    /// A fresh empty folder.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-tiers-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func noneKeepsTheBuildsOwnKernels() {
        let choice = KernelTierLibrary.select(request: "none", folders: KernelTierLibrary.searchFolders(), available: .all)
        #expect(choice.library == nil)
        #expect(choice.report == ["POCKET_KERNEL_TIER=none: this build's own \(CPUFeatures.compiledTier.rawValue) kernels"])
    }

    @Test func anUnknownTierIsReportedAndNothingLoads() {
        let choice = KernelTierLibrary.select(request: "sse4", folders: KernelTierLibrary.searchFolders(), available: .all)
        #expect(choice.library == nil)
        #expect(choice.report.count == 1 && choice.report[0].contains("POCKET_KERNEL_TIER=sse4 names no kernel tier library"))
    }

    @Test func aCPUWithoutATargetCPUsFeaturesLoadsNoLibrary() {
        // The AVX2 tier's own requirements, without the rest of its target CPU (haswell):
        // BMI, MOVBE, POPCNT… may be anywhere in code compiled for it.
        let available = InstructionSetTier.avx2.requiredFeatures
        let choice = KernelTierLibrary.select(request: nil, folders: KernelTierLibrary.searchFolders(), available: available)
        #expect(choice.library == nil)
        #expect(choice.report.count == 3)
        #expect(choice.report[0].hasPrefix("avx512: not loaded, this CPU lacks") && choice.report[0].contains("avx512_vnni"))
        #expect(choice.report[1].hasPrefix("avx2: not loaded, this CPU lacks") && choice.report[1].contains("bmi2"))
        #expect(!choice.report[1].contains("fma"))
    }

    @Test func missingAndBrokenFilesAreReportedAndSkipped() throws {
        let empty = try Self.temporaryFolder(), broken = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: empty); try? FileManager.default.removeItem(at: broken) }
        let notFound = KernelTierLibrary.select(request: "avx2", folders: [empty.path], available: .all)
        #expect(notFound.library == nil)
        #expect(notFound.report.first == "avx2: libPocketKernels-avx2.so not found in \(empty.path)")
        // Not an ELF file: dlopen refuses it, and the build's own kernels are used.
        let file = broken.appendingPathComponent(KernelTierLibrary.fileName(of: .avx2))
        try Data("not a library".utf8).write(to: file)
        let refused = KernelTierLibrary.select(request: "avx2", folders: [broken.path], available: .all)
        #expect(refused.library == nil)
        #expect(refused.report.first?.hasPrefix("avx2: \(file.path) not loaded: ") == true)
        #expect(refused.report.last?.hasSuffix("kernels compute products") == true)
    }

    #if POCKET_KERNEL_TIER_LIBRARIES
    /// The fastest tier whose target CPU this CPU has.
    static let fastestRunnable = [InstructionSetTier.avx512, .avx2].first {
        CPUFeatures.missing(required: $0.targetCPUFeatures, available: CPUFeatures.available).isEmpty
    }

    @Test func theFastestTierThisCPURunsIsActive() throws {
        // CI runs this without POCKET_KERNEL_TIER, so the choice is the default one.
        try #require(ProcessInfo.processInfo.environment["POCKET_KERNEL_TIER"] == nil)
        guard let fastest = Self.fastestRunnable else {
            #expect(KernelTierLibrary.active == nil, "\(KernelTierLibrary.report)")
            return
        }
        let library = try #require(KernelTierLibrary.active, "\(KernelTierLibrary.report)")
        #expect(library.tier == fastest)
        #expect(library.path.hasSuffix("/" + KernelTierLibrary.fileName(of: fastest)))
        #expect(KernelTierLibrary.report.last == "\(fastest.rawValue): \(library.path)")
    }

    @Test func aLibraryIsRefusedAsAnotherTier() throws {
        // The AVX2 library, loaded as the AVX-512 one: its required features are haswell's.
        // (Calling into it needs haswell's features; the other way round would need AVX-512.)
        guard Self.fastestRunnable != nil else { return }
        let folder = try #require(KernelTierLibrary.searchFolders().first {
            FileManager.default.fileExists(atPath: $0 + "/" + KernelTierLibrary.fileName(of: .avx2))
        })
        let path = folder + "/" + KernelTierLibrary.fileName(of: .avx2)
        guard case .failure(let failure) = KernelTierLibrary.load(.avx512, from: path) else {
            Issue.record("the AVX2 library loaded as the AVX-512 tier")
            return
        }
        #expect(failure.message.hasPrefix("it requires"), "\(failure.message)")
        guard case .success(let library) = KernelTierLibrary.load(.avx2, from: path) else {
            Issue.record("the AVX2 library did not load as itself")
            return
        }
        #expect(library.tier == .avx2)
    }

    /// Every library this CPU runs (not only the active one: on an AVX-512 machine the AVX2
    /// library is checked too), loaded afresh.
    static func runnableLibraries() throws -> [KernelTierLibrary] {
        try [InstructionSetTier.avx512, .avx2].compactMap { tier in
            guard CPUFeatures.missing(required: tier.targetCPUFeatures, available: CPUFeatures.available).isEmpty else { return nil }
            let name = KernelTierLibrary.fileName(of: tier)
            let folder = try #require(KernelTierLibrary.searchFolders().first { FileManager.default.fileExists(atPath: $0 + "/" + name) })
            return try KernelTierLibrary.load(tier, from: folder + "/" + name).get()
        }
    }

    /// Every format with an integer kernel, from 1 to 9 vectors, in rows and in row groups: each
    /// library's kernels and this build's own compute the same products from the same quantized
    /// activations (to float rounding: only the order of the sums may differ).
    @Test(arguments: integerDotFormats.map(\.type), [1, 4, 9])
    func libraryProductsMatchTheBuildsOwnKernels(type: GGMLType, tokens: Int) throws {
        let libraries = try Self.runnableLibraries()
        #expect(libraries.count == (Self.fastestRunnable == .avx512 ? 2 : Self.fastestRunnable == .avx2 ? 1 : 0))
        let rows = 48, columns = 512
        let bytes = randomBlocks(type, rows: rows, columns: columns, seed: 17 + UInt64(tokens))
        var rng = TestRandom(seed: 23)
        let x = (0..<(tokens * columns)).map { _ in Float.random(in: -2...2, using: &rng) }
        let own = try #require(KernelTable.ownTraits(of: type))
        for libraryUnderTest in libraries {
            let theirs = try #require(libraryUnderTest.traits(of: type))
            let activations = Q8Activations()
            x.withUnsafeBufferPointer {
                activations.quantize($0.baseAddress!, tokens: tokens, columns: columns, layouts: own.layouts.union(theirs.layouts))
            }
            let vectors = (0..<tokens).map { activations.vector(token: $0) }
            try bytes.withUnsafeBytes { raw in
                let plain = try WeightMatrix(type: type, rows: rows, columns: columns, data: raw.baseAddress!, byteCount: raw.count)
                // Grouped as the library's traits ask (withRowGroups follows the active library's).
                let grouped = theirs.groupsPerTileAtLeast == nil ? plain : plain.withRowGroups()
                #expect((grouped.rowGroups != nil) == (theirs.groupsPerTileAtLeast != nil))
                for matrix in [plain, grouped] {
                    var ours = [Float](repeating: .nan, count: tokens * rows), library = ours
                    vectors.withUnsafeBufferPointer { v in
                        ours.withUnsafeMutableBufferPointer { y in
                            KernelTable.visit(type, ProductRows(matrix, v.baseAddress!, tokens: tokens, into: y.baseAddress!, range: 0..<rows))
                        }
                        library.withUnsafeMutableBufferPointer { y in
                            libraryUnderTest.compute(ProductRows(matrix, v.baseAddress!, tokens: tokens, into: y.baseAddress!, range: 0..<rows))
                        }
                    }
                    let scale = ours.map(abs).max()!
                    for i in ours.indices {
                        #expect(abs(ours[i] - library[i]) <= 1e-5 * scale,
                                "\(libraryUnderTest.tier) library, \(type), \(matrix.rowGroups == nil ? "rows" : "row groups"), element \(i): \(ours[i]) vs \(library[i])")
                    }
                }
            }
        }
    }
    /// Attention over 300 positions (two blocks), two heads sharing keys and values, in single
    /// and half precision: each library and this build agree (FMA against multiply-then-add,
    /// so in half precision a step may round to the neighbouring half).
    @Test(arguments: [false, true])
    func libraryAttentionMatchesTheBuildsOwn(halfPrecision: Bool) throws {
        let heads = 2, hd = 64, length = 300, stride = hd
        var rng = TestRandom(seed: 31)
        let queries = (0..<(heads * hd)).map { _ in Float(Float16(Float.random(in: -1...1, using: &rng))) }
        let keys = (0..<(length * stride)).map { _ in Float16(Float.random(in: -1...1, using: &rng)) }
        let values = (0..<(length * stride)).map { _ in Float16(Float.random(in: -1...1, using: &rng)) }
        let scratchCount = Attention.Scratch.count(heads: heads, headDimension: hd)
        func attend(_ library: KernelTierLibrary?) -> [Float] {
            var scratch = [Float](repeating: 0, count: scratchCount), state = [Float](repeating: 0, count: heads * (hd + 2))
            var out = [Float](repeating: .nan, count: heads * hd)
            scratch.withUnsafeMutableBufferPointer { scratch in
                state.withUnsafeMutableBufferPointer { state in
                    let partial = Attention.PartialState(
                        accumulators: state.baseAddress!, maxima: state.baseAddress! + heads * hd, sums: state.baseAddress! + heads * hd + heads)
                    let accumulation = Attention.Accumulation(
                        queries: queries, heads: heads, headDimension: hd, keys: keys, values: values, rowStride: stride, length: length,
                        scale: 0.125, halfPrecision: halfPrecision, scratch: Attention.Scratch(scratch.baseAddress!), state: partial)
                    if let library { library.accumulate(accumulation) } else { accumulation.run() }
                    Attention.combine(parts: 1, heads: heads, headDimension: hd, halfPrecision: halfPrecision, partial, into: &out)
                }
            }
            return out
        }
        let ours = attend(nil)
        let scale = ours.map(abs).max()!
        for library in try Self.runnableLibraries() {
            let theirs = attend(library)
            for i in ours.indices {
                #expect(abs(ours[i] - theirs[i]) <= (halfPrecision ? 4e-3 : 1e-5) * scale,
                        "\(library.tier) library, element \(i): \(ours[i]) vs \(theirs[i])")
            }
        }
    }
    #endif
}
