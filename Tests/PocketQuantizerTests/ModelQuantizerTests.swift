import Foundation
import PocketGGUF
import PocketKernels
import Testing
@testable import PocketQuantizer

/// A small GGUF built in memory: tensors of several input types and shapes.
enum SmallModel {
    /// Deterministic weights for tensor `index`.
    static func weights(_ index: Int, count: Int, nan: Bool = false) -> [Float] {
        var state = UInt64(index + 1) &* 0x9E37_79B9_7F4A_7C15
        return (0..<count).map { i in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let u = Float(state >> 40) / Float(1 << 24) - 0.5
            return nan && i == count / 2 ? .nan : 0.1 * u + (i % 7 == 0 ? 0.05 : 0)
        }
    }

    /// The file's bytes, with tensor types from `tensors` (encoded with Pocket's encoders).
    static func data(alignment: Int = 32, nanIn tensor: Int? = nil, hugeIn hugeTensor: Int? = nil, types: [(String, [Int], GGMLType)] = usable) throws -> Data {
        var writer = GGUFWriter(alignment: alignment)
        writer.setMetadata("general.architecture", .string("llama"))
        writer.setMetadata("general.name", .string("small"))
        writer.setMetadata("general.file_type", .uint32(0))
        writer.setMetadata("tokenizer.ggml.tokens", .array([.string("a"), .string("b")]))
        writer.setMetadata("llama.rope.freq_base", .float32(10000))
        for (name, dimensions, type) in types {
            writer.addTensor(name: name, dimensions: dimensions, type: type,
                             byteCount: GGUFTensorInfo.byteCount(dimensions: dimensions, type: type)!)
        }
        return try writer.encoded { index, info, sink in
            let (_, dimensions, type) = types[index]
            guard let format = BlockFormats.encoder(for: type) else {
                try [UInt8](repeating: 0, count: info.byteCount).withUnsafeBytes { try sink($0) }
                return
            }
            let x = weights(index, count: dimensions.reduce(1, *), nan: index == tensor).map { index == hugeTensor ? $0 * 1e12 : $0 }
            var bytes = [UInt8](repeating: 0, count: info.byteCount)
            x.withUnsafeBufferPointer { p in
                bytes.withUnsafeMutableBytes { format.quantize(p.baseAddress!, blocks: x.count / format.weightsPerBlock, into: $0.baseAddress!) }
            }
            try bytes.withUnsafeBytes { try sink($0) }
        }
    }

    static let usable: [(String, [Int], GGMLType)] = [
        ("token_embd.weight", [512, 6], .f32),
        ("blk.0.attn_norm.weight", [256], .f32),
        ("blk.0.attn_v.weight", [256, 4], .f16),
        ("blk.0.ffn_down.weight", [512, 3], .q4_1),
        ("blk.0.ffn_up.weight", [96, 5], .f32),   // 96 = 3 × 32: k-quants fall back
        ("blk.0.odd.weight", [48, 2], .f16),      // 48: not even a multiple of 32, F16
    ]

    /// Writes the file to a temporary path.
    static func file(alignment: Int = 32, nanIn tensor: Int? = nil, hugeIn hugeTensor: Int? = nil, types: [(String, [Int], GGMLType)] = usable) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-quant-in-\(UUID()).gguf")
        try data(alignment: alignment, nanIn: tensor, hugeIn: hugeTensor, types: types).write(to: url)
        return url
    }

    static func temporaryOutput() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("pocket-quant-out-\(UUID()).gguf")
    }

    /// Every float of `tensor` decoded with Pocket's decoders.
    static func decoded(_ file: GGUFFile, _ tensor: GGUFTensorInfo) -> [Float] {
        let format = BlockFormats.format(for: tensor.type)!
        var out = [Float](repeating: 0, count: tensor.elementCount)
        out.withUnsafeMutableBufferPointer {
            format.dequantize(file.bytes(of: tensor).baseAddress!, blocks: tensor.elementCount / format.weightsPerBlock, into: $0.baseAddress!)
        }
        return out
    }
}

@Suite struct ModelQuantizerTests {
    @Test func writesTheRecipesTypesWithCopiedMetadataAndCloseWeights() throws {
        let input = try SmallModel.file()
        let output = SmallModel.temporaryOutput()
        defer { try? FileManager.default.removeItem(at: input); try? FileManager.default.removeItem(at: output) }
        let quantizer = try ModelQuantizer(input: input, recipe: QuantizationRecipe(target: .q2_k))
        var lastProgress = (0, 0)
        let summary = try quantizer.write(to: output, pool: ThreadPool(threads: 2)) { lastProgress = ($0, $1) }
        #expect(lastProgress.0 == lastProgress.1 && lastProgress.1 == quantizer.plans.reduce(0) { $0 + $1.elementCount })

        let source = try GGUFFile(contentsOf: input)
        let result = try GGUFFile(contentsOf: output)
        #expect(result.version == 3)
        #expect(result.tensors.map(\.type) == [.q6_K, .f32, .q4_K, .q2_K, .q4_0, .f16])
        #expect(result.tensors.map(\.name) == source.tensors.map(\.name))
        #expect(result.tensors.map(\.dimensions) == source.tensors.map(\.dimensions))
        #expect(result.tensors.allSatisfy { $0.offset % result.alignment == 0 })
        for key in source.metadata.keys where key != "general.file_type" {
            #expect(result.metadata[key] == source.metadata[key], "\(key)")
        }
        #expect(result.metadata["general.file_type"] == .uint32(10))
        #expect(summary.fileByteCount == result.byteCount)

        for (index, report) in summary.tensors.enumerated() {
            let x = SmallModel.decoded(source, source.tensors[index])
            let y = SmallModel.decoded(result, result.tensors[index])
            let squared = zip(x, y).reduce(0.0) { $0 + Double($1.1 - $1.0) * Double($1.1 - $1.0) }
            let rms = (squared / Double(x.count)).squareRoot()
            #expect(abs(rms - report.rmsError) <= 1e-9 + 1e-6 * rms, "\(report.plan.name)")
            // Far below the weights' own size (they are about 0.03 RMS); 2-bit is the coarsest.
            #expect(report.rmsError <= 0.35 * report.inputRMS, "\(report.plan.name): \(report.rmsError) vs \(report.inputRMS)")
            if report.plan.outputType == .f32 { #expect(report.rmsError == 0) }
        }
        let expectedBits = Double(summary.tensorByteCount * 8) / Double(summary.elementCount)
        #expect(summary.bitsPerWeight == expectedBits)
    }

    @Test func outputIsIdenticalForAnyThreadCount() throws {
        let input = try SmallModel.file()
        defer { try? FileManager.default.removeItem(at: input) }
        var files: [Data] = []
        for threads in [1, 3] {
            let output = SmallModel.temporaryOutput()
            defer { try? FileManager.default.removeItem(at: output) }
            _ = try ModelQuantizer(input: input, recipe: QuantizationRecipe(target: .q3_k, pure: true))
                .write(to: output, pool: ThreadPool(threads: threads))
            files.append(try Data(contentsOf: output))
        }
        #expect(files[0] == files[1])
    }

    @Test func keepsTheInputsAlignment() throws {
        let input = try SmallModel.file(alignment: 64)
        let output = SmallModel.temporaryOutput()
        defer { try? FileManager.default.removeItem(at: input); try? FileManager.default.removeItem(at: output) }
        _ = try ModelQuantizer(input: input, recipe: QuantizationRecipe(target: .q8_0)).write(to: output, pool: ThreadPool(threads: 1))
        let result = try GGUFFile(contentsOf: output)
        #expect(result.alignment == 64)
        #expect(result.dataOffset % 64 == 0 && result.tensors.allSatisfy { $0.offset % 64 == 0 })
    }

    @Test func errorsAreTypedAndLeaveNoOutput() throws {
        let pool = ThreadPool(threads: 1)
        // NaN in the input.
        let poisoned = try SmallModel.file(nanIn: 3)
        let output = SmallModel.temporaryOutput()
        defer { try? FileManager.default.removeItem(at: poisoned) }
        #expect(throws: QuantizationError.nonFiniteWeight(tensor: "blk.0.ffn_down.weight", row: 1)) {
            try ModelQuantizer(input: poisoned, recipe: QuantizationRecipe(target: .q4_0)).write(to: output, pool: pool)
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path)
            .filter { $0.hasPrefix(output.lastPathComponent) }
        #expect(leftovers.isEmpty)

        // Weights whose scales overflow fp16 (F32 input, 1e12).
        let huge = try SmallModel.file(hugeIn: 0)
        defer { try? FileManager.default.removeItem(at: huge) }
        #expect(throws: QuantizationError.outOfRange(tensor: "token_embd.weight", row: 0, type: .q8_0)) {
            try ModelQuantizer(input: huge, recipe: QuantizationRecipe(target: .q8_0)).write(to: output, pool: pool)
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))

        // An input type with no decoder.
        let exotic = try SmallModel.file(types: [("w", [256, 2], .q8_K)])
        defer { try? FileManager.default.removeItem(at: exotic) }
        #expect(throws: QuantizationError.unsupportedInputType(tensor: "w", type: .q8_K)) {
            try ModelQuantizer(input: exotic, recipe: QuantizationRecipe(target: .q4_0))
        }

        // Missing input, unwritable output.
        #expect {
            try ModelQuantizer(input: URL(fileURLWithPath: "/nonexistent/in.gguf"), recipe: QuantizationRecipe(target: .q4_0))
        } throws: { error in
            guard case .unreadableInput(let path, _) = error as? QuantizationError else { return false }
            return path == "/nonexistent/in.gguf"
        }
        let input = try SmallModel.file()
        defer { try? FileManager.default.removeItem(at: input) }
        #expect {
            try ModelQuantizer(input: input, recipe: QuantizationRecipe(target: .q4_0))
                .write(to: URL(fileURLWithPath: "/nonexistent-dir/out.gguf"), pool: pool)
        } throws: { error in
            guard case .cannotWrite(let path, let reason) = error as? QuantizationError else { return false }
            return path == "/nonexistent-dir/out.gguf" && !reason.isEmpty
        }
    }
}
