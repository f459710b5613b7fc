import Foundation

/// Chooses tokens from logits so that the output always follows the grammar.
///
/// Greedy and plain temperature sampling take a fast path: a token is first drawn from the
/// unconstrained distribution and kept if the grammar allows it; only when it does not is the
/// full mask computed and the draw repeated over the allowed tokens. This gives exactly the
/// masked distribution (a rejected first draw is redrawn from the allowed set in proportion to
/// its probability), at the cost of one check instead of a mask in most steps. With top-k or
/// top-p the cut depends on which tokens are allowed, so the mask is always computed first.
public struct ConstrainedSampler {
    /// Sampling settings.
    public struct Parameters: Sendable, Equatable {
        /// 0 is greedy.
        public var temperature: Float
        /// Keep the `topK` most likely allowed tokens (0: all).
        public var topK: Int
        /// Keep the most likely allowed tokens whose probability reaches `topP` (1: all).
        public var topP: Float
        /// Random seed.
        public var seed: UInt64

        /// Greedy decoding.
        public static let greedy = Parameters(temperature: 0, topK: 0, topP: 1, seed: 0)

        /// Creates parameters.
        public init(temperature: Float, topK: Int = 0, topP: Float = 1, seed: UInt64 = 0) {
            self.temperature = temperature
            self.topK = topK
            self.topP = topP
            self.seed = seed
        }
    }

    /// The settings.
    public let parameters: Parameters
    private var state: UInt64
    private var mask: TokenMask?
    /// How many steps needed the full mask (for measurements).
    public private(set) var maskedSteps = 0
    /// How many steps were decided by the fast path.
    public private(set) var fastSteps = 0

    /// Creates a sampler.
    public init(_ parameters: Parameters) {
        self.parameters = parameters
        state = parameters.seed
    }

    /// Chooses the next token, accepts it into `matcher`, and returns it.
    ///
    /// - Parameter logits: One score per token; modified (disallowed tokens set to -infinity)
    ///   when the mask is needed.
    public mutating func sample(logits: UnsafeMutableBufferPointer<Float>, matcher: inout GrammarMatcher) -> Int {
        let usesCut = parameters.topK > 0 || parameters.topP < 1
        if !usesCut {
            let first = draw(logits)
            if matcher.allows(first) {
                fastSteps += 1
                matcher.accept(first)
                return first
            }
        }
        maskedSteps += 1
        if mask == nil { mask = TokenMask(count: matcher.vocabulary.count) }
        matcher.fillMask(&mask!)
        for i in logits.indices where !mask!.contains(i) { logits[i] = -.infinity }
        let token = draw(logits)
        matcher.accept(token)
        return token
    }

    private mutating func nextUnit() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }

    private mutating func draw(_ logits: UnsafeMutableBufferPointer<Float>) -> Int {
        var best = 0
        for i in logits.indices where logits[i] > logits[best] { best = i }
        guard parameters.temperature > 0 else { return best }
        var candidates: [(Int, Double)] = []
        let maximum = Double(logits[best])
        for i in logits.indices where logits[i] > -.infinity {
            candidates.append((i, exp((Double(logits[i]) - maximum) / Double(parameters.temperature))))
        }
        if parameters.topK > 0 || parameters.topP < 1 {
            candidates.sort { $0.1 > $1.1 || ($0.1 == $1.1 && $0.0 < $1.0) }
            if parameters.topK > 0 && candidates.count > parameters.topK { candidates.removeSubrange(parameters.topK...) }
            if parameters.topP < 1 {
                let total = candidates.reduce(0) { $0 + $1.1 }
                var cumulative = 0.0
                for (i, c) in candidates.enumerated() {
                    cumulative += c.1 / total
                    if cumulative >= Double(parameters.topP) { candidates.removeSubrange((i + 1)...); break }
                }
            }
        }
        let total = candidates.reduce(0) { $0 + $1.1 }
        var target = nextUnit() * total
        for c in candidates {
            target -= c.1
            if target < 0 { return c.0 }
        }
        return candidates.last?.0 ?? best
    }
}

/// Checks a tokenized document against a grammar, as `pocket schema check` does.
public enum SchemaCheck {
    /// The outcome for one document.
    public enum Outcome: Equatable, Sendable, CustomStringConvertible {
        /// Every token was allowed and the value is complete.
        case accept
        /// Token `tokenIndex` was not allowed; `byteOffset` is the first rejected byte of the document.
        case reject(tokenIndex: Int, byteOffset: Int)
        /// The document ended before the value was complete.
        case incomplete

        public var description: String {
            switch self {
            case .accept: "accept"
            case .reject(let t, let b): "reject \(t) \(b)"
            case .incomplete: "incomplete"
            }
        }
    }

    /// Steps the matcher through `tokens`, checking each against the mask.
    public static func check(tokens: [Int], grammar: CompiledGrammar, vocabulary: Vocabulary) -> Outcome {
        var matcher = GrammarMatcher(grammar: grammar, vocabulary: vocabulary)
        var offset = 0
        for (i, token) in tokens.enumerated() {
            if !matcher.accept(token) {
                let bytes = token >= 0 && token < vocabulary.count ? vocabulary.tokens[token] : []
                return .reject(tokenIndex: i, byteOffset: offset + (matcher.firstRejectedByte(bytes) ?? 0))
            }
            offset += vocabulary.tokens[token].count
        }
        return matcher.canEnd ? .accept : .incomplete
    }
}
