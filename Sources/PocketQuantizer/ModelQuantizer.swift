import Foundation
import PocketGGUF
import PocketKernels
import PocketTransformer

/// Re-encodes every tensor of a GGUF model into the types a ``QuantizationRecipe`` chooses and
/// writes a GGUF v3 file that other GGUF readers load.
///
/// Any input type Pocket can decode is accepted (a Q4_1 model can be requantized): each row is
/// decoded to floats, encoded into its output type, and decoded again to measure the error.
/// The metadata is copied with `general.file_type` updated; tensors keep their names, shapes,
/// order and the input's alignment.
///
/// ```swift
/// let quantizer = try ModelQuantizer(input: URL(fileURLWithPath: "in.gguf"),
///                                    recipe: QuantizationRecipe(target: .q2_k))
/// let summary = try quantizer.write(to: URL(fileURLWithPath: "out.gguf"), pool: ThreadPool())
/// print(summary.bitsPerWeight)
/// ```
///
/// Rows are split across the thread pool; every row is encoded independently and the error
/// sums are added in row order, so the file and the report are identical for any thread count.
/// Output is produced a few MiB of rows at a time and streamed to a temporary file that is
/// renamed into place only when complete: a failure never leaves a partial file.
public final class ModelQuantizer: Sendable {
    /// The model being quantized.
    public let input: GGUFFile
    /// The recipe.
    public let recipe: QuantizationRecipe
    /// One plan per input tensor, in file order.
    public let plans: [TensorPlan]

    /// Bytes of output encoded per batch of rows.
    static let batchBytes = 4 << 20

    /// Column statistics the encoders weight rounding errors by, or `nil`.
    public let importance: ImportanceMatrix?
    /// Whether the 32-weight formats use the searched encoders (see
    /// ``ImportanceWeightedFormat``) rather than the reference-exact ones: true unless the
    /// recipe is `pure` without calibration, which reproduces llama.cpp's reference bytes.
    public var searched: Bool { importance != nil || !recipe.pure }

    /// Plans the quantization of `input`.
    ///
    /// - Parameters:
    ///   - importance: Column statistics for importance-weighted encoding, or `nil`.
    ///   - types: Types chosen elsewhere (a ``QuantizationPlan``) by tensor name; they replace
    ///     the recipe's choice for the tensors they name.
    /// - Throws: ``QuantizationError/unsupportedInputType(tensor:type:)`` if a tensor's type
    ///   has no decoder (or a planned type has no encoder).
    public init(
        input: GGUFFile, recipe: QuantizationRecipe, importance: ImportanceMatrix? = nil, types: [String: GGMLType] = [:]
    ) throws(QuantizationError) {
        var plans: [TensorPlan] = []
        let architecture = TensorRole.definition(of: input)
        for tensor in input.tensors {
            guard BlockFormats.format(for: tensor.type) != nil else {
                throw .unsupportedInputType(tensor: tensor.name, type: tensor.type)
            }
            var choice = recipe.choice(forTensor: tensor.name, dimensions: tensor.dimensions, architecture: architecture)
            if let planned = types[tensor.name] {
                guard BlockFormats.encoder(for: planned) != nil,
                      GGUFTensorInfo.byteCount(dimensions: tensor.dimensions, type: planned) != nil else {
                    throw .unsupportedInputType(tensor: tensor.name, type: planned)
                }
                choice = QuantizationRecipe.Choice(requested: planned, type: planned)
            }
            plans.append(TensorPlan(name: tensor.name, dimensions: tensor.dimensions, inputType: tensor.type, choice: choice))
        }
        self.input = input
        self.recipe = recipe
        self.plans = plans
        self.importance = importance
    }

    /// Opens the model at `url` and plans its quantization.
    ///
    /// - Throws: ``QuantizationError/unreadableInput(path:reason:)`` or
    ///   ``QuantizationError/unsupportedInputType(tensor:type:)``.
    public convenience init(
        input url: URL, recipe: QuantizationRecipe, importance: ImportanceMatrix? = nil, types: [String: GGMLType] = [:]
    ) throws(QuantizationError) {
        let file: GGUFFile
        do {
            file = try GGUFFile(contentsOf: url)
        } catch {
            throw .unreadableInput(path: url.path, reason: error.description)
        }
        try self.init(input: file, recipe: recipe, importance: importance, types: types)
    }

    /// Checks, writing nothing, that ``write(to:pool:progress:)`` can create its output at
    /// `url` (``GGUFWriter/checkDestination(_:)``), so a caller can fail before the calibration
    /// and the encoding rather than after them. A Pocket addition.
    ///
    /// - Throws: ``QuantizationError/cannotWrite(path:reason:)`` with the system's reason.
    public static func checkDestination(_ url: URL) throws(QuantizationError) {
        do { try GGUFWriter.checkDestination(url) } catch { throw .cannotWrite(path: url.path, reason: error.description) }
    }

    /// Encodes every tensor and writes the output file.
    ///
    /// - Parameters:
    ///   - url: Where to write; replaced if it exists (it may be the input file itself).
    ///   - pool: Threads to split each tensor's rows across.
    ///   - progress: Called after each batch of rows with the weights done so far and the total.
    /// - Returns: Per-tensor errors, the file size and the time taken.
    /// - Throws: ``QuantizationError``: `nonFiniteWeight` or `outOfRange` for weights that
    ///   cannot be encoded, `cannotWrite` for I/O failures.
    /// - Complexity: O(number of weights); memory O(batch + one row per thread).
    public func write(
        to url: URL, pool: ThreadPool, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) throws(QuantizationError) -> QuantizationSummary {
        let started = ContinuousClock.now
        var writer = GGUFWriter(alignment: input.alignment)
        writer.setMetadata(contentsOf: input.metadata)
        if input.alignment != 32 { writer.setMetadata("general.alignment", .uint32(UInt32(input.alignment))) }
        writer.setMetadata("general.file_type", .uint32(recipe.fileType))
        for plan in plans {
            writer.addTensor(name: plan.name, dimensions: plan.dimensions, type: plan.outputType, byteCount: plan.outputByteCount)
        }
        let total = plans.reduce(0) { $0 + $1.elementCount }
        var done = 0
        var reports: [TensorQuantizationReport] = []
        do {
            try writer.write(to: url) { index, _, sink in
                let plan = plans[index]
                let source = input.bytes(of: input.tensors[index])
                let inputFormat = BlockFormats.format(for: plan.inputType)!
                let outputFormat = BlockFormats.encoder(for: plan.outputType)!
                let encodeRow = Self.rowEncoder(for: plan.outputType, columns: plan.dimensions[0],
                                                importance: importance?.importance(forTensor: plan.name), searched: searched)
                let (squaredError, squaredInput) = try Self.encode(
                    plan, source, inputFormat, outputFormat, encodeRow, pool: pool, sink: sink
                ) { rows in
                    done += rows * plan.dimensions[0]
                    progress(done, total)
                }
                let count = Double(plan.elementCount)
                reports.append(TensorQuantizationReport(
                    plan: plan, rmsError: (squaredError / count).squareRoot(), inputRMS: (squaredInput / count).squareRoot()))
            }
        } catch let error as QuantizationError {
            throw error
        } catch {
            throw .cannotWrite(path: url.path, reason: (error as? GGUFError)?.description ?? "\(error)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
        return QuantizationSummary(tensors: reports, fileByteCount: size,
                                   seconds: (ContinuousClock.now - started).seconds)
    }

    /// Encodes one tensor batch by batch into `sink`; returns its summed squared error and
    /// summed squared input, added in row order.
    private static func encode<Input: BlockFormat, Output: QuantizableFormat>(
        _ plan: TensorPlan, _ source: UnsafeRawBufferPointer, _ input: Input.Type, _ output: Output.Type,
        _ encodeRow: @escaping RowEncoder, pool: ThreadPool, sink: (UnsafeRawBufferPointer) throws -> Void, finishedRows: (Int) -> Void
    ) throws -> (Double, Double) {
        let columns = plan.dimensions[0]
        let rows = plan.elementCount / columns
        let inputRowBytes = plan.inputType.byteCount(elements: columns)!
        let outputRowBytes = plan.outputType.byteCount(elements: columns)!
        let batchRows = max(1, min(rows, batchBytes / outputRowBytes))
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: batchRows * outputRowBytes, alignment: 64)
        // Per row of a batch: squared error, squared input, status (0 ok, 1 bad input, 2 overflow).
        let errors = UnsafeMutablePointer<Double>.allocate(capacity: 2 * batchRows)
        let status = UnsafeMutablePointer<UInt8>.allocate(capacity: batchRows)
        defer { buffer.deallocate(); errors.deallocate(); status.deallocate() }
        let base = source.baseAddress!
        var squaredError = 0.0, squaredInput = 0.0
        for first in stride(from: 0, to: rows, by: batchRows) {
            let count = min(batchRows, rows - first)
            pool.parallelFor(count) { range in
                let weights = UnsafeMutablePointer<Float>.allocate(capacity: 2 * columns)
                defer { weights.deallocate() }
                let decoded = weights + columns
                for r in range {
                    let row = buffer + r * outputRowBytes
                    input.dequantize(base + (first + r) * inputRowBytes, blocks: columns / Input.weightsPerBlock, into: weights)
                    encodeRow(weights, row)
                    output.dequantize(row, blocks: columns / Output.weightsPerBlock, into: decoded)
                    var e = 0.0, s = 0.0, finiteInput = true, finiteOutput = true
                    for i in 0..<columns {
                        let x = weights[i], y = decoded[i]
                        if !x.isFinite { finiteInput = false }
                        if !y.isFinite { finiteOutput = false }
                        let difference = Double(y) - Double(x)
                        e += difference * difference
                        s += Double(x) * Double(x)
                    }
                    errors[2 * r] = e
                    errors[2 * r + 1] = s
                    status[r] = !finiteInput ? 1 : !finiteOutput ? 2 : 0
                }
            }
            for r in 0..<count {
                switch status[r] {
                case 1: throw QuantizationError.nonFiniteWeight(tensor: plan.name, row: first + r)
                case 2: throw QuantizationError.outOfRange(tensor: plan.name, row: first + r, type: plan.outputType)
                default: break
                }
                squaredError += errors[2 * r]
                squaredInput += errors[2 * r + 1]
            }
            try sink(UnsafeRawBufferPointer(start: buffer, count: count * outputRowBytes))
            finishedRows(count)
        }
        return (squaredError, squaredInput)
    }

    /// Encodes one row of floats into its output blocks.
    typealias RowEncoder = @Sendable (_ row: UnsafePointer<Float>, _ output: UnsafeMutableRawPointer) -> Void

    /// The encoder of rows of `columns` weights into `type`: importance-weighted when the type
    /// has a weighted encoder and `searched` (or `importance` is given), otherwise the plain one.
    static func rowEncoder(for type: GGMLType, columns: Int, importance: [Float]?, searched: Bool) -> RowEncoder {
        let blocks = columns / type.blockSize
        if let weighted = BlockFormats.weightedEncoder(for: type), searched || importance != nil {
            guard let importance, importance.count == columns else {
                return { row, output in weighted.quantize(row, importance: nil, blocks: blocks, into: output) }
            }
            return { row, output in
                importance.withUnsafeBufferPointer { weighted.quantize(row, importance: $0.baseAddress, blocks: blocks, into: output) }
            }
        }
        let plain = BlockFormats.encoder(for: type)!
        return { row, output in plain.quantize(row, blocks: blocks, into: output) }
    }
}
