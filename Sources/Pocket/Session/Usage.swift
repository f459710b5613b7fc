import Foundation

/// Token counts and timings of one generation as Pocket's engine measures them (a Pocket
/// addition).
///
/// Sessions report ``LanguageModelSession/Usage`` (Apple's type, which carries these figures
/// too); this type is the engine's own record, kept public for code written against
/// earlier versions of Pocket.
public struct Usage: Sendable, Equatable, CustomStringConvertible {
    /// Tokens of the conversation that were evaluated for this request.
    public var inputTokens = 0
    /// Tokens of the conversation that were reused from the cache instead.
    public var cachedTokens = 0
    /// Tokens generated.
    public var outputTokens = 0
    /// From the start of the request to the first generated token.
    public var timeToFirstToken: Duration = .zero
    /// Generated tokens per second after the first.
    public var tokensPerSecond: Double = 0
    /// Tokens prompt lookup drafted (``SystemLanguageModel/DecodingShortcuts``).
    public var draftedTokens = 0
    /// Drafted tokens the model then chose, which needed no pass of their own.
    public var acceptedDraftTokens = 0

    /// Creates usage numbers.
    public init(
        inputTokens: Int = 0, cachedTokens: Int = 0, outputTokens: Int = 0,
        timeToFirstToken: Duration = .zero, tokensPerSecond: Double = 0
    ) {
        self.inputTokens = inputTokens
        self.cachedTokens = cachedTokens
        self.outputTokens = outputTokens
        self.timeToFirstToken = timeToFirstToken
        self.tokensPerSecond = tokensPerSecond
    }

    /// Adds the counts of another round (tool loops); keeps the first round's time to first token.
    mutating func add(_ other: Usage) {
        if inputTokens + cachedTokens + outputTokens == 0 { timeToFirstToken = other.timeToFirstToken }
        inputTokens += other.inputTokens
        cachedTokens += other.cachedTokens
        outputTokens += other.outputTokens
        tokensPerSecond = other.tokensPerSecond
        draftedTokens += other.draftedTokens
        acceptedDraftTokens += other.acceptedDraftTokens
    }

    public var description: String {
        "input \(inputTokens) tokens (\(cachedTokens) cached), output \(outputTokens) tokens, "
            + "first token after \(timeToFirstToken), \(String(format: "%.1f", tokensPerSecond)) tokens/s"
    }
}
