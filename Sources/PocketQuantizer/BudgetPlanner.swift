import PocketGGUF

/// Chooses each tensor's type so that the model's estimated error is smallest within a size
/// budget: a greedy marginal-gain allocation.
///
/// Every tensor starts at its smallest candidate. Each step takes the one upgrade (any tensor,
/// any larger candidate that still fits the remaining budget) with the largest error reduction
/// per extra byte, until no upgrade fits or none reduces the error. Sensitive tensors (large
/// error at few bits) and cheap ones therefore get bits first; large, robust ones stay low.
///
/// ```swift
/// let choice = try BudgetPlanner.allocate([
///     .init(name: "a", candidates: [.init(type: .q2_K, bytes: 84, error: 0.9), .init(type: .q4_K, bytes: 144, error: 0.1)]),
/// ], budget: 150)   // [1]
/// ```
///
/// The result depends only on the inputs (ties go to the earlier tensor, then the smaller
/// type), so plans are reproducible.
public enum BudgetPlanner {
    /// One possible type of a tensor.
    public struct Candidate: Sendable, Equatable {
        /// The type.
        public let type: GGMLType
        /// Bytes the tensor occupies in that type.
        public let bytes: Int
        /// Estimated contribution to the model's error in that type (smaller is better).
        public let error: Double

        /// Creates a candidate.
        public init(type: GGMLType, bytes: Int, error: Double) {
            self.type = type
            self.bytes = bytes
            self.error = error
        }
    }

    /// The candidates of one tensor.
    public struct Options: Sendable, Equatable {
        /// The tensor's name.
        public let name: String
        /// Its possible types (at least one).
        public let candidates: [Candidate]

        /// Creates the options of a tensor.
        public init(name: String, candidates: [Candidate]) {
            self.name = name
            self.candidates = candidates
        }
    }

    /// The index of the chosen candidate of each tensor, in `tensors` order.
    ///
    /// - Throws: ``QuantizationError/budgetTooSmall(budget:minimum:)`` when the smallest
    ///   candidates together exceed `budget`.
    /// - Complexity: O(steps × candidates); at most one step per candidate.
    public static func allocate(_ tensors: [Options], budget: Int) throws(QuantizationError) -> [Int] {
        var chosen = tensors.map { options in
            options.candidates.indices.min { a, b in
                let (x, y) = (options.candidates[a], options.candidates[b])
                return x.bytes != y.bytes ? x.bytes < y.bytes : x.error < y.error
            }!
        }
        var used = zip(tensors, chosen).reduce(0) { $0 + $1.0.candidates[$1.1].bytes }
        guard used <= budget else { throw .budgetTooSmall(budget: budget, minimum: used) }
        while true {
            var best: (tensor: Int, candidate: Int, gain: Double)?
            for (t, options) in tensors.enumerated() {
                let current = options.candidates[chosen[t]]
                for (k, candidate) in options.candidates.enumerated() {
                    let extra = candidate.bytes - current.bytes
                    let reduction = current.error - candidate.error
                    guard extra > 0, reduction > 0, used + extra <= budget else { continue }
                    let gain = reduction / Double(extra)
                    if best == nil || gain > best!.gain { best = (t, k, gain) }
                }
            }
            guard let step = best else { break }
            used += tensors[step.tensor].candidates[step.candidate].bytes - tensors[step.tensor].candidates[chosen[step.tensor]].bytes
            chosen[step.tensor] = step.candidate
        }
        return chosen
    }
}
