import PocketTransformer
/// Options that control how a model generates its response.
public struct GenerationOptions: Sendable, Equatable, Codable {
    /// How tokens are chosen.
    public struct SamplingMode: Sendable, Equatable, Codable {
        enum Mode: Equatable, Codable {
            case greedy
            case top(Int)
            case nucleus(Double)
        }

        let mode: Mode
        /// The random seed; `nil` means a fresh seed per request.
        let seed: UInt64?

        /// Always the most likely token: deterministic.
        public static var greedy: SamplingMode { SamplingMode(mode: .greedy, seed: nil) }

        /// Samples among the `k` most likely tokens.
        ///
        /// - Parameters:
        ///   - k: How many tokens to consider (at least 1).
        ///   - seed: A seed for reproducible output.
        public static func random(top k: Int, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(mode: .top(max(1, k)), seed: seed)
        }

        /// Samples among the most likely tokens whose probabilities add up to `probabilityThreshold`.
        ///
        /// - Parameters:
        ///   - probabilityThreshold: A probability in 0...1.
        ///   - seed: A seed for reproducible output.
        public static func random(probabilityThreshold: Double, seed: UInt64? = nil) -> SamplingMode {
            SamplingMode(mode: .nucleus(min(1, max(0, probabilityThreshold))), seed: seed)
        }
    }

    /// The sampling mode; `nil` is random sampling with the default top-p of 0.9.
    public var sampling: SamplingMode?
    /// Temperature (higher is more varied); `nil` is 0.7.
    public var temperature: Double?
    /// The most tokens the response may have; `nil` means up to the context window.
    public var maximumResponseTokens: Int?

    /// Divides the logits of tokens the response repeated among its last ``penaltyWindow``
    /// tokens (llama.cpp's `repeat_penalty`); `nil` is 1.1, 1 turns it off. A Pocket addition.
    public var repetitionPenalty: Double?
    /// Subtracted from a token's logit once per repetition in the window (llama.cpp's
    /// `frequency_penalty`); `nil` is 0. A Pocket addition.
    public var frequencyPenalty: Double?
    /// Subtracted from the logit of every token in the window (llama.cpp's `presence_penalty`);
    /// `nil` is 0. A Pocket addition.
    public var presencePenalty: Double?
    /// How many of the response's latest tokens the penalties look at; `nil` is 64. A Pocket addition.
    public var penaltyWindow: Int?

    /// Creates options.
    public init(sampling: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.sampling = sampling
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
    }

    /// Creates options with repetition penalties (a Pocket addition; `nil` keeps a default).
    public init(
        sampling: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
        repetitionPenalty: Double?, frequencyPenalty: Double? = nil, presencePenalty: Double? = nil, penaltyWindow: Int? = nil
    ) {
        self.init(sampling: sampling, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
        self.repetitionPenalty = repetitionPenalty
        self.frequencyPenalty = frequencyPenalty
        self.presencePenalty = presencePenalty
        self.penaltyWindow = penaltyWindow
    }

    /// The session default of ``repetitionPenalty``: mild enough to leave repeated words that
    /// belong in an answer, strong enough to break a small model's loops.
    public static let defaultRepetitionPenalty = 1.1
    /// The session default of ``penaltyWindow``.
    public static let defaultPenaltyWindow = 64

    /// The engine's view of the penalties, with the session defaults filled in.
    var resolvedPenalty: RepetitionPenalty {
        RepetitionPenalty(
            repetition: Float(repetitionPenalty ?? Self.defaultRepetitionPenalty), frequency: Float(frequencyPenalty ?? 0),
            presence: Float(presencePenalty ?? 0), window: penaltyWindow ?? Self.defaultPenaltyWindow)
    }

    /// The engine's view: temperature (0 is greedy), top-k (0: off), top-p (1: off) and seed.
    var resolved: (temperature: Float, topK: Int, topP: Float, seed: UInt64) {
        let temperature = Float(max(0, self.temperature ?? 0.7))
        let mode = sampling ?? .random(probabilityThreshold: 0.9)
        let seed = mode.seed ?? UInt64.random(in: 0...UInt64.max)
        switch mode.mode {
        case .greedy: return (0, 0, 1, seed)
        case .top(let k): return (temperature, k, 1, seed)
        case .nucleus(let p): return (temperature, 0, Float(p), seed)
        }
    }
}
