import PocketGGUF
import PocketKernels

/// A budgeted quantization plan: the type of every tensor, its size and its estimated error.
public struct QuantizationPlan: Sendable, Equatable {
    /// One tensor of the plan.
    public struct Entry: Sendable, Equatable {
        /// The tensor's name.
        public let name: String
        /// The chosen type.
        public let type: GGMLType
        /// Bytes in that type.
        public let bytes: Int
        /// Estimated relative output error (see ``QuantizationPlanner``); 0 for unquantized tensors.
        public let error: Double
    }

    /// One entry per input tensor, in file order.
    public let entries: [Entry]
    /// The size budget for tensor data, in bytes.
    public let budget: Int

    /// Bytes of tensor data of the plan.
    public var byteCount: Int { entries.reduce(0) { $0 + $1.bytes } }
    /// The planner's objective: the sum of the tensors' estimated errors.
    public var expectedError: Double { entries.reduce(0) { $0 + $1.error } }
    /// The chosen type by tensor name.
    public var types: [String: GGMLType] { Dictionary(uniqueKeysWithValues: entries.map { ($0.name, $0.type) }) }
}

/// Measures how much each tensor suffers in each candidate type and lets ``BudgetPlanner``
/// spend a size budget (by default that of llama.cpp's mix, ``ReferenceMix``; or a number of
/// bits per weight, `pocket quantize --bpw`) where it reduces the error most.
///
/// The error of a tensor W in type T is its importance-weighted relative error
///
///     e(W, T) = Σ_i Σ_j m_j (Ŵ_ij − W_ij)² / Σ_i Σ_j m_j W_ij²
///
/// with m_j the column's mean squared activation (``ImportanceMatrix``; all 1 without
/// calibration): the expected energy of the output change (Ŵ − W)·x relative to the energy of
/// the output W·x, i.e. the noise-to-signal ratio the quantization adds at that matrix. The
/// model's error is estimated as the sum over matrices. Ŵ is encoded with the same (weighted)
/// encoder the file is written with, on evenly spaced sample rows (`sampleRows` per tensor).
///
/// Candidates (the ladder of the target's family, only types Pocket can encode):
/// - k-quant and 32-weight targets: rows that are whole 256-weight super-blocks may take Q2_K,
///   Q3_K, Q4_K, Q6_K, Q8_0; rows of whole 32-weight blocks Q4_0, Q4_1, Q5_0, Q8_0;
/// - i-quant targets: whole super-blocks IQ2_XXS, IQ2_XS, IQ2_S, IQ3_XXS, IQ3_S, IQ4_XS, Q6_K,
///   Q8_0; whole 32-weight blocks IQ4_NL, Q5_0, Q8_0;
/// - other rows stay F16; 1-D tensors stay F32.
public enum QuantizationPlanner {
    /// The types a matrix with rows of `rowLength` weights may take, smallest first: the
    /// i-quant ladder when `iQuants`, otherwise the k-quant one.
    public static func candidateTypes(rowLength: Int, iQuants: Bool = false) -> [GGMLType] {
        let ladder: [GGMLType]
        if rowLength % 256 == 0 {
            ladder = iQuants ? [.iq2_xxs, .iq2_xs, .iq2_s, .iq3_xxs, .iq3_s, .iq4_xs, .q6_K, .q8_0] : [.q2_K, .q3_K, .q4_K, .q6_K, .q8_0]
        } else if rowLength % 32 == 0 {
            ladder = iQuants ? [.iq4_nl, .q5_0, .q8_0] : [.q4_0, .q4_1, .q5_0, .q8_0]
        } else {
            return [.f16]
        }
        return ladder.filter { BlockFormats.encoder(for: $0) != nil }
    }

    /// Whether `target` plans on the i-quant ladder (``candidateTypes(rowLength:iQuants:)``).
    public static func usesIQuantLadder(_ target: QuantizationTarget) -> Bool {
        ReferenceMix.iQuantTargets.contains(target.type) || [.iq1_s, .iq1_m].contains(target.type)
    }

    /// The budget in bytes of tensor data for `bitsPerWeight` over every tensor of `file`
    /// (1-D tensors included; the metadata is not counted).
    public static func budget(of file: GGUFFile, bitsPerWeight: Double) -> Int {
        let weights = file.tensors.reduce(0) { $0 + $1.elementCount }
        return Int((bitsPerWeight * Double(weights) / 8).rounded(.down))
    }

    /// Plans `input` within `budget`, by default the size of llama.cpp's `target` mix
    /// (``ReferenceMix``), on the candidate ladder of `target`'s family.
    ///
    /// - Parameters:
    ///   - importance: Column statistics, or `nil` to weight every column equally.
    ///   - budget: Bytes of tensor data allowed; defaults to the reference mix's.
    ///   - sampleRows: Rows per tensor the error is measured on.
    /// - Returns: `nil` when no budget is given and `target` has no reference mix (use
    ///   ``QuantizationRecipe``).
    /// - Throws: ``QuantizationError/unsupportedInputType(tensor:type:)``,
    ///   ``QuantizationError/budgetTooSmall(budget:minimum:)``.
    public static func plan(
        input: GGUFFile, target: QuantizationTarget, importance: ImportanceMatrix?, budget: Int? = nil,
        sampleRows: Int = 128, pool: ThreadPool
    ) throws(QuantizationError) -> QuantizationPlan? {
        guard let budget = budget ?? ReferenceMix.byteCount(of: input, target: target) else { return nil }
        let iQuants = usesIQuantLadder(target)
        // One job per (tensor, candidate); every job writes its own slot: no order dependence.
        struct Job { let tensor: Int; let type: GGMLType }
        var jobs: [Job] = []
        var typesByTensor: [[GGMLType]] = []
        for (t, tensor) in input.tensors.enumerated() {
            guard BlockFormats.format(for: tensor.type) != nil else {
                throw .unsupportedInputType(tensor: tensor.name, type: tensor.type)
            }
            let types: [GGMLType] = tensor.dimensions.count > 1 ? Self.candidateTypes(rowLength: tensor.dimensions[0], iQuants: iQuants) : [.f32]
            typesByTensor.append(types)
            for type in types { jobs.append(Job(tensor: t, type: type)) }
        }
        // An impossible budget fails before the (slow) measurements.
        let minimum = zip(input.tensors, typesByTensor).reduce(0) { sum, item in
            sum + item.1.map { GGUFTensorInfo.byteCount(dimensions: item.0.dimensions, type: $0)! }.min()!
        }
        guard minimum <= budget else { throw .budgetTooSmall(budget: budget, minimum: minimum) }
        let errors = UnsafeMutableBufferPointer<Double>.allocate(capacity: jobs.count)
        defer { errors.deallocate() }
        let importanceByTensor = input.tensors.map { importance?.importance(forTensor: $0.name) }
        pool.parallelFor(jobs.count) { range in
            for j in range {
                let job = jobs[j]
                let tensor = input.tensors[job.tensor]
                errors[j] = job.type == .f32 || job.type == .f16
                    ? 0
                    : relativeError(of: tensor, in: input, as: job.type, importance: importanceByTensor[job.tensor], sampleRows: sampleRows)
            }
        }
        var options: [BudgetPlanner.Options] = []
        var j = 0
        for (t, tensor) in input.tensors.enumerated() {
            var candidates: [BudgetPlanner.Candidate] = []
            for type in typesByTensor[t] {
                candidates.append(.init(type: type, bytes: GGUFTensorInfo.byteCount(dimensions: tensor.dimensions, type: type)!, error: errors[j]))
                j += 1
            }
            options.append(.init(name: tensor.name, candidates: candidates))
        }
        let chosen = try BudgetPlanner.allocate(options, budget: budget)
        let entries = zip(options, chosen).map { options, k in
            let candidate = options.candidates[k]
            return QuantizationPlan.Entry(name: options.name, type: candidate.type, bytes: candidate.bytes, error: candidate.error)
        }
        return QuantizationPlan(entries: entries, budget: budget)
    }

    /// e(W, T) of `tensor` on up to `sampleRows` evenly spaced rows (see the type's overview).
    static func relativeError(
        of tensor: GGUFTensorInfo, in file: GGUFFile, as type: GGMLType, importance: [Float]?, sampleRows: Int
    ) -> Double {
        let columns = tensor.dimensions[0]
        let rows = tensor.elementCount / columns
        let input = BlockFormats.format(for: tensor.type)!
        let inputRowBytes = tensor.type.byteCount(elements: columns)!
        let outputRowBytes = type.byteCount(elements: columns)!
        let output = BlockFormats.format(for: type)!
        let encode = ModelQuantizer.rowEncoder(for: type, columns: columns, importance: importance, searched: true)
        let x = UnsafeMutablePointer<Float>.allocate(capacity: 2 * columns)
        let encoded = UnsafeMutableRawPointer.allocate(byteCount: outputRowBytes, alignment: 64)
        defer { x.deallocate(); encoded.deallocate() }
        let y = x + columns
        let base = file.bytes(of: tensor).baseAddress!
        let count = Swift.min(rows, sampleRows)
        var error = 0.0, signal = 0.0
        for s in 0..<count {
            let r = s * rows / count
            input.dequantize(base + r * inputRowBytes, blocks: columns / input.weightsPerBlock, into: x)
            encode(x, encoded)
            output.dequantize(encoded, blocks: columns / output.weightsPerBlock, into: y)
            for i in 0..<columns {
                let m = Double(importance?[i] ?? 1), d = Double(y[i]) - Double(x[i])
                error += m * d * d
                signal += m * Double(x[i]) * Double(x[i])
            }
        }
        return signal > 0 ? error / signal : 0
    }
}
