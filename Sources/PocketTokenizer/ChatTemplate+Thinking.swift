/// A chat template's thinking section: the `<think>…</think>` block in which a reasoning model
/// (Qwen3, QwQ, DeepSeek-R1 and its distillations) thinks before it answers.
///
/// Pocket recognizes the section by its markers in the template text and renders it natively:
///
/// - **Thinking on**: the generation prompt is followed by the opener and a newline
///   (`<|im_start|>assistant\n<think>\n`); the model reasons, writes the closer, then answers.
///   Pocket opens the section itself even for templates that leave it to the model (Qwen3), so a
///   reply is known to start inside it.
/// - **Thinking off**: the generation prompt is followed by an empty section
///   (`<think>\n\n</think>\n\n`), as Qwen3's template renders `enable_thinking=false`.
///
/// An earlier assistant turn is rendered without its reasoning: text up to the last closer is
/// dropped, with the newlines after it (Qwen3's template does the same).
///
/// The markers are rendered as ``ChatTemplate/Segment/special(_:)`` segments: one token each in
/// vocabularies that have them (Qwen3's `<think>` and `</think>`), text otherwise. A user's
/// message containing `<think>` stays text either way.
public struct ThinkingFormat: Sendable, Equatable {
    /// What opens the section.
    public let opener = "<think>"
    /// What closes the section.
    public let closer = "</think>"
    /// What separates the closed section from the answer.
    public let separator = "\n\n"
    /// Whether the template's own generation prompt opens the section
    /// (`'<|im_start|>assistant\n<think>\n'`: QwQ, Qwen3's thinking-only models, DeepSeek-R1):
    /// the model always reasons.
    public let promptOpensSection: Bool
    /// Whether the template has a switch that turns thinking off (Qwen3's `enable_thinking`).
    public let hasSwitch: Bool

    /// Finds the section in a Jinja template, or returns `nil` when the template has none
    /// (it must mention both `<think>` and `</think>`).
    public init?(template: String) {
        guard template.contains("<think>"), template.contains("</think>") else { return nil }
        hasSwitch = template.contains("enable_thinking")
        // A string literal that ends the assistant's header by opening the section; Qwen3's
        // `'\n<think>\n'` (inside an earlier assistant turn, after a role variable) is not one.
        promptOpensSection = NativeToolFormat.stringLiterals(in: template).contains {
            $0.hasSuffix("<think>\n") && ($0.contains("assistant") || $0.contains("Assistant"))
        }
    }

    /// What follows the generation prompt: an open section (`thinking` is `true`), an empty
    /// closed one (`false`), or what the template renders without the switch (`nil`: an open
    /// section when ``promptOpensSection``, else nothing).
    public func generationPromptSuffix(thinking: Bool?) -> [ChatTemplate.Segment] {
        switch thinking ?? (promptOpensSection ? true : nil) {
        case true?: [.special(opener), .text("\n")]
        case false?: [.special(opener), .text("\n\n"), .special(closer), .text(separator)]
        case nil: []
        }
    }

    /// An assistant turn's text without its reasoning: what follows the last closer, leading
    /// newlines dropped; the text itself when it has no closer.
    public func answer(in content: String) -> String {
        var rest = Substring(content)
        var closed = false
        while let range = rest.firstRange(of: closer) {
            rest = rest[range.upperBound...]
            closed = true
        }
        return closed ? String(rest.drop { $0 == "\n" }) : content
    }
}
