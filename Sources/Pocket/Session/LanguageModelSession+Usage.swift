import Foundation

extension LanguageModelSession {
    /// How many tokens a response took, as in Apple's FoundationModels (iOS/macOS 27): the
    /// transcript's tokens the model read, and the tokens it generated.
    ///
    /// ```swift
    /// let response = try await session.respond(to: "Name a color.")
    /// print(response.usage.input.totalTokenCount, response.usage.output.totalTokenCount)
    /// print(session.usage.totalTokenCount)  // every response of the session so far
    /// ```
    ///
    /// A response's usage covers all of its rounds (a request whose model calls tools reads
    /// the transcript once per round). The figures are the executor's own counts; for
    /// Pocket's engine, the tokens of the chat template's rendering of the transcript (markers
    /// and the assistant header included) and the tokens sampled.
    ///
    /// Pocket adds the cache figures as ``inputTokens`` and ``cachedTokens``, and the timings
    /// ``timeToFirstToken`` and ``tokensPerSecond``.
    public struct Usage: Sendable, Equatable, CustomStringConvertible {
        /// Counts of the transcript's tokens: `totalTokenCount`, and the part of it reused from
        /// a cache, `cachedTokenCount` (the executor channel's type, which executors report).
        public typealias Input = LanguageModelExecutorGenerationChannel.Usage.Input

        /// Counts of the generated tokens: `totalTokenCount`, and the part of it spent reasoning,
        /// `reasoningTokenCount` (0 for a model without the ``LanguageModelCapabilities/Capability/reasoning``
        /// capability; the executor channel's type).
        public typealias Output = LanguageModelExecutorGenerationChannel.Usage.Output

        /// Counts of the transcript's tokens.
        public var input: Input
        /// Counts of the generated tokens.
        public var output: Output
        /// Further usage figures the model's executor reported, keyed by name.
        public var metadata: [String: GeneratedContent]

        /// From the start of the request to the first generated token (a Pocket addition;
        /// zero when the executor does not report it).
        public var timeToFirstToken: Duration = .zero
        /// Generated tokens per second after the first (a Pocket addition; zero when the
        /// executor does not report it).
        public var tokensPerSecond: Double = 0

        /// Creates usage figures.
        ///
        /// - Parameters:
        ///   - input: Counts of the transcript's tokens.
        ///   - output: Counts of the generated tokens.
        ///   - metadata: Further usage figures, keyed by name.
        public init(input: Input, output: Output, metadata: [String: any ConvertibleToGeneratedContent] = [:]) {
            self.input = input
            self.output = output
            self.metadata = metadata.mapValues(\.generatedContent)
        }

        /// Input and output tokens together.
        public var totalTokenCount: Int { input.totalTokenCount + output.totalTokenCount }

        /// The input tokens the model evaluated: those not reused from a cache (a Pocket addition).
        public var inputTokens: Int { max(0, input.totalTokenCount - input.cachedTokenCount) }
        /// The input tokens reused from a cache (a Pocket addition; ``Input/cachedTokenCount``).
        public var cachedTokens: Int { input.cachedTokenCount }
        /// The tokens generated (a Pocket addition; ``Output/totalTokenCount``).
        public var outputTokens: Int { output.totalTokenCount }

        /// No tokens.
        static let zero = Usage(input: .init(totalTokenCount: 0, cachedTokenCount: 0), output: .init(totalTokenCount: 0, reasoningTokenCount: 0))

        /// Adds the figures of a later round or response: counts add up, metadata merges (later
        /// values win), the time to first token is the first one reported and the rate the last.
        mutating func add(_ other: Usage) {
            if timeToFirstToken == .zero { timeToFirstToken = other.timeToFirstToken }
            if other.tokensPerSecond != 0 { tokensPerSecond = other.tokensPerSecond }
            input.totalTokenCount += other.input.totalTokenCount
            input.cachedTokenCount += other.input.cachedTokenCount
            output.totalTokenCount += other.output.totalTokenCount
            output.reasoningTokenCount += other.output.reasoningTokenCount
            metadata.merge(other.metadata) { _, later in later }
        }

        /// The sum of two usages (see ``add(_:)``).
        static func + (lhs: Usage, rhs: Usage) -> Usage {
            var sum = lhs
            sum.add(rhs)
            return sum
        }

        /// The figures in one line.
        public var description: String {
            "input \(input.totalTokenCount) tokens (\(input.cachedTokenCount) cached), output \(output.totalTokenCount) tokens "
                + "(\(output.reasoningTokenCount) reasoning), first token after \(timeToFirstToken), "
                + "\(String(format: "%.1f", tokensPerSecond)) tokens/s"
        }
    }
}
