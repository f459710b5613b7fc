import Foundation
import PocketKernels

/// How the next token is chosen from the logits.
///
/// Greedy takes the most likely token. Otherwise logits are divided by the temperature, the
/// candidates are cut to the `topK` most likely and then to the smallest set whose probability
/// reaches `topP` (nucleus sampling), and one is drawn with a seeded generator, so the same seed
/// gives the same text.
public struct SamplingParameters: Sendable, Equatable {
    /// `0` means greedy (argmax).
    public var temperature: Float
    /// Keep only the `topK` most likely tokens; `0` keeps all.
    public var topK: Int
    /// Keep the most likely tokens whose cumulative probability first reaches `topP`; `1` keeps all.
    public var topP: Float
    /// Seed of the random generator.
    public var seed: UInt64

    /// Greedy decoding.
    public static let greedy = SamplingParameters(temperature: 0)

    /// Creates sampling parameters; defaults match common llama.cpp settings.
    public init(temperature: Float = 0.8, topK: Int = 40, topP: Float = 0.95, seed: UInt64 = 0) {
        self.temperature = temperature
        self.topK = topK
        self.topP = topP
        self.seed = seed
    }

    /// Whether the parameters select argmax decoding.
    public var isGreedy: Bool { temperature <= 0 || topK == 1 }
}

/// Picks tokens from logits according to ``SamplingParameters``.
///
/// Keeps its random state between calls, so a fresh sampler with the same seed reproduces a
/// generation exactly. Buffers are allocated once and reused.
public struct Sampler: Sendable {
    /// The parameters in use.
    public let parameters: SamplingParameters
    private var random: SplitMix64
    private var candidates: [(id: Int, logit: Float)] = []

    /// Creates a sampler.
    public init(_ parameters: SamplingParameters) {
        self.parameters = parameters
        random = SplitMix64(seed: parameters.seed)
    }

    /// Index of the largest logit; the lowest index wins ties. NaN logits are never chosen
    /// unless every logit is NaN.
    public static func argmax(_ logits: UnsafeBufferPointer<Float>) -> Int {
        argmax(logits) { _ in true }
    }

    /// Index of the largest logit among the tokens `allowed` accepts; the lowest index wins
    /// ties, and `0` is returned when no allowed token has a logit above `-infinity`.
    @inline(__always)
    public static func argmax(_ logits: UnsafeBufferPointer<Float>, allowing allowed: (Int) -> Bool) -> Int {
        var best = 0
        var bestValue = -Float.infinity
        for i in logits.indices where logits[i] > bestValue && allowed(i) {
            best = i
            bestValue = logits[i]
        }
        return best
    }

    /// Chooses the next token.
    ///
    /// - Parameter logits: Unnormalized scores, one per vocabulary entry; entries set to
    ///   `-infinity` are never chosen (masking).
    public mutating func sample(_ logits: UnsafeBufferPointer<Float>) -> Int {
        choose(logits) { _ in true }
    }

    /// Chooses the next token among the tokens `allowed` accepts, as ``sample(_:)`` would if
    /// every other logit were `-infinity`.
    ///
    /// Used for constrained decoding: the predicate is typically a grammar's token mask
    /// (a bit test), so nothing is copied or allocated per token. When no allowed token has a
    /// finite logit, the result is ``argmax(_:allowing:)``'s.
    ///
    /// - Parameters:
    ///   - logits: Unnormalized scores, one per vocabulary entry.
    ///   - allowed: Whether a token id may be chosen; a pure function of the id (it may be
    ///     asked more than once).
    /// - Complexity: O(vocabulary) plus the sort of the tokens a top-k/top-p cut can keep.
    public mutating func sample(_ logits: UnsafeBufferPointer<Float>, allowing allowed: (Int) -> Bool) -> Int {
        choose(logits, allowing: allowed)
    }

    /// The sampler itself; inlined into both entry points so the unconstrained one tests no
    /// predicate.
    @inline(__always)
    private mutating func choose(_ logits: UnsafeBufferPointer<Float>, allowing allowed: (Int) -> Bool) -> Int {
        if parameters.isGreedy { return Self.argmax(logits, allowing: allowed) }
        let temperature = parameters.temperature
        candidates.removeAll(keepingCapacity: true)
        var largest = -Float.infinity
        for i in logits.indices where logits[i] > -Float.infinity && allowed(i) {
            candidates.append((i, logits[i] / temperature))
            largest = max(largest, logits[i] / temperature)
        }
        guard !candidates.isEmpty else { return Self.argmax(logits, allowing: allowed) }
        // Only the tokens a top-k or top-p cut can keep need sorting: with a cut, the
        // candidates are first narrowed to a superset of the kept ones (`narrowForCut`), so a
        // 152k-token vocabulary costs one pass instead of a full sort per token.
        let total = parameters.topK > 0 || parameters.topP < 1 ? narrowForCut(maximum: largest) : nil
        // Stable order (ties by id) keeps sampling deterministic.
        candidates.sort { $0.logit > $1.logit || ($0.logit == $1.logit && $0.id < $1.id) }
        if parameters.topK > 0 && parameters.topK < candidates.count {
            candidates.removeSubrange(parameters.topK...)
        }
        let maximum = candidates[0].logit
        var probabilities = candidates.map { expf($0.logit - maximum) }
        // With top-k the total is over the k kept; without, over every candidate in vocabulary
        // order (some of which the narrowing dropped: `narrowForCut` returned it).
        let fullTotal = parameters.topK > 0 ? probabilities.reduce(0, +) : (total ?? probabilities.reduce(0, +))
        var kept = probabilities.count
        if parameters.topP < 1 {
            var cumulative: Float = 0
            for i in probabilities.indices {
                cumulative += probabilities[i] / fullTotal
                if cumulative >= parameters.topP { kept = i + 1; break }
            }
        }
        probabilities.removeSubrange(kept...)
        let keptTotal = probabilities.reduce(0, +)
        var target = random.nextUnitFloat() * keptTotal
        for i in probabilities.indices {
            target -= probabilities[i]
            if target < 0 { return candidates[i].id }
        }
        return candidates[kept - 1].id
    }

    /// Drops candidates that neither cut can keep, without sorting, and returns the sum of
    /// `e^(logit − maximum)` (`maximum`: the largest candidate logit) over all of them (before dropping); nil, dropping nothing, when the
    /// largest logit is infinite.
    ///
    /// Candidates are counted into buckets of `max − logit` (width 1/8); walking the buckets
    /// from the most likely, the first bucket at which both cuts are satisfied (k candidates
    /// reached; the probability mass above `topP`, with a margin of 1% for the rounding of
    /// long float sums) bounds every kept candidate. Those of later buckets are removed, unless
    /// they are few (flat distributions, where the cut keeps most tokens anyway).
    private mutating func narrowForCut(maximum: Float) -> Float? {
        let bucketCount = 1024
        guard maximum.isFinite else { return nil }
        return withUnsafeTemporaryAllocation(of: (count: Int, mass: Float).self, capacity: bucketCount) { buckets in
            buckets.initialize(repeating: (0, 0))
            @inline(__always) func bucket(_ logit: Float) -> Int {
                let distance = (maximum - logit) * 8  // ≥ 0, possibly infinite
                return distance < Float(bucketCount - 1) ? Int(distance) : bucketCount - 1
            }
            var total: Float = 0
            for c in candidates {
                let p = expf(c.logit - maximum)
                total += p
                let b = bucket(c.logit)
                buckets[b].count += 1
                buckets[b].mass += p
            }
            let needsCount = parameters.topK > 0 ? parameters.topK : 0
            let needsMass = parameters.topP < 1 ? min(total, (parameters.topP + 0.01) * total) : 0
            var count = 0, mass: Float = 0, last = bucketCount - 1
            for b in 0..<bucketCount {
                count += buckets[b].count
                mass += buckets[b].mass
                if count >= needsCount && (mass >= needsMass || parameters.topK > 0) { last = b; break }
            }
            if last < bucketCount - 1 && count < candidates.count / 8 { candidates.removeAll { bucket($0.logit) > last } }
            return total
        }
    }

    /// Chooses the next token from an array of logits.
    public mutating func sample(_ logits: [Float]) -> Int {
        logits.withUnsafeBufferPointer { sample($0) }
    }
}
