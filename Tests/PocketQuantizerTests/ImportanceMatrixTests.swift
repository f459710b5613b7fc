import Foundation
import PocketGGUF
import PocketKernels
import PocketTransformer
import Testing
@testable import PocketQuantizer

/// Calibration: reading the text, collecting the statistics, and quantizing with them.
@Suite struct ImportanceMatrixTests {
    @Test func calibrationFilesFailWithTypedErrors() throws {
        #expect(throws: QuantizationError.unreadableCalibration(path: "/nonexistent/cal.txt", reason: "no such file or not readable")) {
            try CalibrationText(contentsOf: URL(fileURLWithPath: "/nonexistent/cal.txt"))
        }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-cal-\(UUID()).txt")
        try Data(" \n\n".utf8).write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        #expect(throws: QuantizationError.unreadableCalibration(path: empty.path, reason: "the file is empty")) {
            try CalibrationText(contentsOf: empty)
        }
        #expect(try CalibrationText.default.text.count > 20_000)
        // The default text is not the perplexity text.
        #expect(try !CalibrationText.default.text.contains("GNU GENERAL PUBLIC LICENSE"))
    }

    @Test func importanceAddsAFloorSoNoColumnIsIgnored() {
        let matrix = ImportanceMatrix(columns: ["w": [0, 2, 0, 2]], tokenCount: 64)
        #expect(matrix.importance(forTensor: "w") == [0.01, 2.01, 0.01, 2.01])
        #expect(matrix.importance(forTensor: "other") == nil)
    }

    @Test func quantizingWithImportanceIsDeterministicAndUsesIt() throws {
        let input = try SmallModel.file()
        defer { try? FileManager.default.removeItem(at: input) }
        let importance = ImportanceMatrix(columns: [
            "blk.0.ffn_down.weight": (0..<512).map { $0 % 37 == 0 ? 500 : 1 },
            "blk.0.ffn_up.weight": (0..<96).map { $0 % 5 == 0 ? 300 : 1 },
        ], tokenCount: 100)
        var files: [Data] = []
        for (threads, matrix) in [(1, importance), (3, importance), (2, nil)] as [(Int, ImportanceMatrix?)] {
            let output = SmallModel.temporaryOutput()
            defer { try? FileManager.default.removeItem(at: output) }
            _ = try ModelQuantizer(input: input, recipe: QuantizationRecipe(target: .q2_k), importance: matrix,
                                   types: ["blk.0.ffn_down.weight": .q2_K, "blk.0.ffn_up.weight": .q4_0])
                .write(to: output, pool: ThreadPool(threads: threads))
            files.append(try Data(contentsOf: output))
        }
        #expect(files[0] == files[1])
        #expect(files[0] != files[2])
        let result = try GGUFFile(data: files[0])
        #expect(result.tensor(named: "blk.0.ffn_down.weight")?.type == .q2_K)
        #expect(result.tensor(named: "blk.0.ffn_up.weight")?.type == .q4_0)
    }

    @Test(.enabled(if: SmolLM2.isInstalled, "SmolLM2, the small test model, is not installed (run Weights/fetch)"))
    func collectsOneColumnVectorPerMatrixIndependentOfThreads() throws {
        var matrices: [ImportanceMatrix] = []
        for threads in [1, 2] {
            let model = try Transformer(file: SmolLM2.file, contextLength: 128, pool: ThreadPool(threads: threads))
            let tokens = SmolLM2.tokenizer.encode(try CalibrationText.default.text, parseSpecial: false)
            matrices.append(try ImportanceMatrix.collect(model: model, tokens: tokens, maxTokens: 160, chunkLength: 64))
        }
        #expect(matrices[0] == matrices[1])
        let matrix = matrices[0]
        #expect(matrix.tokenCount == 160)
        // 30 layers × 7 matrices, plus the tied embedding (SmolLM2 has no output.weight).
        #expect(matrix.columns.count == 30 * 7 + 1)
        #expect(matrix.columns["blk.0.ffn_down.weight"]?.count == 1536)
        #expect(matrix.columns["blk.29.attn_output.weight"]?.count == 576)
        #expect(matrix.columns["token_embd.weight"]?.count == 576)
        #expect(matrix.columns.values.allSatisfy { $0.allSatisfy { $0.isFinite && $0 >= 0 } && $0.contains { $0 > 0 } })

        let model = try Transformer(file: SmolLM2.file, contextLength: 128)
        #expect("\(model.configuration.architecture.definition.feedForwardActivation.traceName)" == "ffn_swiglu")
        #expect(throws: QuantizationError.calibrationTooShort(tokens: 2, minimum: ImportanceMatrix.minimumTokens)) {
            try ImportanceMatrix.collect(model: model, tokens: SmolLM2.tokenizer.encode("Hello world", parseSpecial: false))
        }
    }

    /// Gemma 3's down projections read the GeGLU's result (`ffn_geglu`), and its chunks start
    /// with BOS: every matrix gets statistics, and BOS changes them.
    @Test(.enabled(if: Gemma3.isInstalled, "Gemma 3 270M is not installed (run Weights/fetch gemma3)"))
    func gemmaMatricesAllGetStatistics() throws {
        let model = try Transformer(file: Gemma3.file, contextLength: 128)
        let tokens = Gemma3.tokenizer.encode(try CalibrationText.default.text, parseSpecial: false)
        let bos = try #require(Gemma3.tokenizer.addsBOS ? Gemma3.tokenizer.bosToken : nil)
        let matrix = try ImportanceMatrix.collect(model: model, tokens: tokens, maxTokens: 128, chunkLength: 64, beginningOfSequence: bos)
        // 18 layers × 7 matrices, plus the tied embedding.
        #expect(matrix.columns.count == 18 * 7 + 1)
        #expect(matrix.columns["blk.0.ffn_down.weight"]?.count == 2048)
        #expect(matrix.columns["blk.17.ffn_down.weight"]?.contains { $0 > 0 } == true)
        let withoutBOS = try ImportanceMatrix.collect(model: model, tokens: tokens, maxTokens: 128, chunkLength: 64)
        #expect(withoutBOS.columns["blk.0.attn_q.weight"] != matrix.columns["blk.0.attn_q.weight"])
    }
}
