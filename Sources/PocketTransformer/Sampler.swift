import Foundation

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
        var best = 0
        var bestValue = -Float.infinity
        for i in logits.indices where logits[i] > bestValue {
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
        if parameters.isGreedy { return Self.argmax(logits) }
        let temperature = parameters.temperature
        candidates.removeAll(keepingCapacity: true)
        for i in logits.indices where logits[i] > -Float.infinity {
            candidates.append((i, logits[i] / temperature))
        }
        guard !candidates.isEmpty else { return Self.argmax(logits) }
        // Top-k: a partial selection would be faster, but sorting 50k floats costs ~1 ms,
        // small next to a forward pass; stable order keeps ties deterministic.
        candidates.sort { $0.logit > $1.logit || ($0.logit == $1.logit && $0.id < $1.id) }
        if parameters.topK > 0 && parameters.topK < candidates.count {
            candidates.removeSubrange(parameters.topK...)
        }
        let maximum = candidates[0].logit
        var probabilities = candidates.map { expf($0.logit - maximum) }
        let total = probabilities.reduce(0, +)
        var kept = probabilities.count
        if parameters.topP < 1 {
            var cumulative: Float = 0
            for i in probabilities.indices {
                cumulative += probabilities[i] / total
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

    /// Chooses the next token from an array of logits.
    public mutating func sample(_ logits: [Float]) -> Int {
        logits.withUnsafeBufferPointer { sample($0) }
    }
}

/// SplitMix64: a small, fast, well-distributed generator with a 64-bit state. Its output for
/// a seed is fixed forever, which keeps seeded sampling reproducible across releases.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Starts the sequence for `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform float in `[0, 1)` from the top 24 bits.
    public mutating func nextUnitFloat() -> Float {
        Float(next() >> 40) * (1.0 / 16_777_216)
    }
}
