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

        /// A sampling mode's strategy, as a value to switch over.
        ///
        /// One `random` case carries both random strategies (exactly one of `top` and
        /// `probabilityThreshold` is set), as the fields of Apple's Python SDK do: two cases
        /// named `random` with different labels could not be told apart in a `switch`.
        public enum Kind: Sendable, Hashable {
            /// The most likely token, always.
            case greedy
            /// A token among the `top` most likely (top-k), or among the most likely whose
            /// probabilities add up to `probabilityThreshold` (top-p, nucleus sampling), with
            /// an optional seed.
            case random(top: Int?, probabilityThreshold: Double?, seed: UInt64?)
        }

        /// The strategy this mode uses to choose each token.
        ///
        /// ```swift
        /// switch options.samplingMode?.kind {
        /// case .greedy: …
        /// case .random(let top, let probabilityThreshold, let seed): …
        /// case nil: …
        /// }
        /// ```
        public var kind: Kind {
            switch mode {
            case .greedy: .greedy
            case .top(let k): .random(top: k, probabilityThreshold: nil, seed: seed)
            case .nucleus(let p): .random(top: nil, probabilityThreshold: p, seed: seed)
            }
        }

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
    public var samplingMode: SamplingMode?
    /// Temperature (higher is more varied); `nil` is 0.7.
    public var temperature: Double?
    /// The most tokens the response may have; `nil` means up to the context window.
    public var maximumResponseTokens: Int?
    /// Whether the response may, must or must not call the session's tools; `nil` is
    /// ``ToolCallingMode/allowed``. Executors read it from the request's
    /// ``LanguageModelExecutorGenerationRequest/generationOptions``.
    public var toolCallingMode: ToolCallingMode?

    /// The sampling mode under its first name (Apple's FoundationModels 26).
    @available(*, deprecated, renamed: "samplingMode")
    public var sampling: SamplingMode? {
        get { samplingMode }
        set { samplingMode = newValue }
    }

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

    /// Creates options; `nil` keeps a default.
    ///
    /// ```swift
    /// let options = GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 80)
    /// ```
    ///
    /// - Parameters:
    ///   - samplingMode: How tokens are chosen.
    ///   - temperature: How varied the response is (0...1 in Apple's documentation).
    ///   - maximumResponseTokens: The most tokens the response may have (positive).
    public init(samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.samplingMode = samplingMode
        self.temperature = temperature
        self.maximumResponseTokens = maximumResponseTokens
    }

    /// Creates options with a tool-calling mode.
    ///
    /// ```swift
    /// let options = GenerationOptions(toolCallingMode: .required)
    /// ```
    ///
    /// - Parameters:
    ///   - samplingMode: How tokens are chosen.
    ///   - temperature: How varied the response is.
    ///   - maximumResponseTokens: The most tokens the response may have.
    ///   - toolCallingMode: Whether the response may, must or must not call tools.
    public init(
        samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
        toolCallingMode: ToolCallingMode?
    ) {
        self.init(samplingMode: samplingMode, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
        self.toolCallingMode = toolCallingMode
    }

    /// Creates options, with the sampling mode under its first label (Apple's FoundationModels 26).
    @available(*, deprecated, renamed: "init(samplingMode:temperature:maximumResponseTokens:)")
    public init(sampling: SamplingMode?, temperature: Double? = nil, maximumResponseTokens: Int? = nil) {
        self.init(samplingMode: sampling, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
    }

    /// Creates options with repetition penalties (a Pocket addition; `nil` keeps a default).
    public init(
        samplingMode: SamplingMode? = nil, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
        repetitionPenalty: Double?, frequencyPenalty: Double? = nil, presencePenalty: Double? = nil, penaltyWindow: Int? = nil
    ) {
        self.init(samplingMode: samplingMode, temperature: temperature, maximumResponseTokens: maximumResponseTokens)
        self.repetitionPenalty = repetitionPenalty
        self.frequencyPenalty = frequencyPenalty
        self.presencePenalty = presencePenalty
        self.penaltyWindow = penaltyWindow
    }

    /// Creates options with repetition penalties, with the sampling mode under its first label.
    @available(*, deprecated, renamed: "init(samplingMode:temperature:maximumResponseTokens:repetitionPenalty:frequencyPenalty:presencePenalty:penaltyWindow:)")
    public init(
        sampling: SamplingMode?, temperature: Double? = nil, maximumResponseTokens: Int? = nil,
        repetitionPenalty: Double?, frequencyPenalty: Double? = nil, presencePenalty: Double? = nil, penaltyWindow: Int? = nil
    ) {
        self.init(
            samplingMode: sampling, temperature: temperature, maximumResponseTokens: maximumResponseTokens,
            repetitionPenalty: repetitionPenalty, frequencyPenalty: frequencyPenalty, presencePenalty: presencePenalty,
            penaltyWindow: penaltyWindow)
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
        let mode = samplingMode ?? .random(probabilityThreshold: 0.9)
        let seed = mode.seed ?? UInt64.random(in: 0...UInt64.max)
        switch mode.mode {
        case .greedy: return (0, 0, 1, seed)
        case .top(let k): return (temperature, k, 1, seed)
        case .nucleus(let p): return (temperature, 0, Float(p), seed)
        }
    }
}

extension GenerationOptions {
    /// Whether a response may call the session's tools, must call one, or must answer without
    /// calling any.
    ///
    /// ```swift
    /// let options = GenerationOptions(toolCallingMode: .required)
    /// if options.toolCallingMode?.kind == .disallowed { … }
    /// ```
    ///
    /// The session passes the mode to the executor in the request's
    /// ``LanguageModelExecutorGenerationRequest/generationOptions``; enforcing it is the
    /// executor's work.
    public struct ToolCallingMode: Sendable, Hashable, Codable {
        /// The behaviours a tool-calling mode can ask for.
        public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
            /// The model decides whether to call tools.
            case allowed
            /// The model calls one or more tools before it answers.
            case required
            /// The model answers without calling a tool.
            case disallowed
        }

        /// The behaviour this mode asks for.
        public var kind: Kind

        /// Creates a mode of the given kind (a Pocket addition; Apple's API has only the
        /// three constants).
        public init(kind: Kind) {
            self.kind = kind
        }

        /// The model may call tools or answer directly (the default).
        public static let allowed = ToolCallingMode(kind: .allowed)
        /// The model must call one or more tools.
        public static let required = ToolCallingMode(kind: .required)
        /// The model may not call any tool.
        public static let disallowed = ToolCallingMode(kind: .disallowed)
    }
}

extension GenerationOptions {
    private enum CodingKeys: String, CodingKey {
        case samplingMode, temperature, maximumResponseTokens, toolCallingMode
        case repetitionPenalty, frequencyPenalty, presencePenalty, penaltyWindow
        /// The key of ``samplingMode`` in options encoded by earlier versions of Pocket.
        case legacySampling = "sampling"
    }

    /// Decodes options; the sampling mode is also read under its earlier key, `sampling`, so
    /// transcripts saved by earlier versions of Pocket keep their options.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            samplingMode: try container.decodeIfPresent(SamplingMode.self, forKey: .samplingMode)
                ?? container.decodeIfPresent(SamplingMode.self, forKey: .legacySampling),
            temperature: try container.decodeIfPresent(Double.self, forKey: .temperature),
            maximumResponseTokens: try container.decodeIfPresent(Int.self, forKey: .maximumResponseTokens))
        toolCallingMode = try container.decodeIfPresent(ToolCallingMode.self, forKey: .toolCallingMode)
        repetitionPenalty = try container.decodeIfPresent(Double.self, forKey: .repetitionPenalty)
        frequencyPenalty = try container.decodeIfPresent(Double.self, forKey: .frequencyPenalty)
        presencePenalty = try container.decodeIfPresent(Double.self, forKey: .presencePenalty)
        penaltyWindow = try container.decodeIfPresent(Int.self, forKey: .penaltyWindow)
    }

    /// Encodes the options that are set.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(samplingMode, forKey: .samplingMode)
        try container.encodeIfPresent(temperature, forKey: .temperature)
        try container.encodeIfPresent(maximumResponseTokens, forKey: .maximumResponseTokens)
        try container.encodeIfPresent(toolCallingMode, forKey: .toolCallingMode)
        try container.encodeIfPresent(repetitionPenalty, forKey: .repetitionPenalty)
        try container.encodeIfPresent(frequencyPenalty, forKey: .frequencyPenalty)
        try container.encodeIfPresent(presencePenalty, forKey: .presencePenalty)
        try container.encodeIfPresent(penaltyWindow, forKey: .penaltyWindow)
    }
}
