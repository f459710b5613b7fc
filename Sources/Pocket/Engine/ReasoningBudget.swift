import Foundation
import PocketTokenizer

/// How a request's ``ContextOptions/ReasoningLevel`` maps to a model's thinking section
/// (``ThinkingFormat``): whether the reply opens it, and how many tokens the model may think
/// before the engine closes it.
///
/// Pocket's decisions:
///
/// | Level | Section | Budget (tokens) |
/// |---|---|---|
/// | `.light` | open | 256 |
/// | `.moderate` | open | 1024 |
/// | `.deep` | open | 4096 |
/// | `.custom(s)` | open | `s` as a whole number of tokens (`"300"`); `"light"`/`"low"`, `"moderate"`/`"medium"`, `"deep"`/`"high"` as those levels; anything else moderate |
/// | `nil` | closed (rendered empty) when the template has a switch (Qwen3); else open | moderate |
///
/// `nil` is the model's default: a template with a switch is asked not to think (a reply
/// without a requested level costs no reasoning tokens); a template without one (DeepSeek-R1,
/// QwQ) always thinks, at the moderate budget. When the budget is spent (or the model ends its
/// reply inside the section) the engine writes the closer itself and the model answers.
/// Reasoning tokens count towards `maximumResponseTokens`; with that option set, the budget is at
/// most half of it, so that the answer keeps room (``capped(byMaximumResponseTokens:)``).
struct ReasoningBudget: Equatable {
    /// Whether the reply opens with the thinking section.
    var thinks: Bool
    /// Tokens the model may think before the engine closes the section.
    var tokens: Int

    static let light = 256
    static let moderate = 1024
    static let deep = 4096

    /// The plan of `level` for a template with `format`.
    init(level: ContextOptions.ReasoningLevel?, format: ThinkingFormat) {
        guard let level else {
            thinks = !format.hasSwitch
            tokens = Self.moderate
            return
        }
        thinks = true
        tokens = Self.tokens(for: level)
    }

    /// The budget with room left for the answer: at most half of `maximum` response tokens
    /// (unchanged when there is no maximum).
    func capped(byMaximumResponseTokens maximum: Int?) -> ReasoningBudget {
        guard let maximum else { return self }
        var capped = self
        capped.tokens = min(tokens, max(0, maximum / 2))
        return capped
    }

    /// The budget of a level.
    static func tokens(for level: ContextOptions.ReasoningLevel) -> Int {
        switch level {
        case .light: return light
        case .moderate: return moderate
        case .deep: return deep
        case .custom(let name):
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            if let count = Int(trimmed), count >= 0 { return count }
            switch trimmed {
            case "light", "low", "minimal": return light
            case "deep", "high", "max", "maximum": return deep
            default: return moderate
            }
        }
    }
}
