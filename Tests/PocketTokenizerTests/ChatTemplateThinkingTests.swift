import Testing
@testable import PocketTokenizer

/// Thinking sections (Qwen3's `<think>…</think>` and `enable_thinking`, QwQ's and DeepSeek-R1's
/// pre-opened section) recognized in template text and rendered natively.
@Suite struct ChatTemplateThinkingTests {
    /// The parts of Qwen3's template that matter: ChatML turns, earlier answers without their
    /// reasoning, and the `enable_thinking` switch after the generation prompt.
    static let qwen3 = """
        {%- for message in messages %}{%- if message.role == "assistant" %}\
        {%- set content = message.content.split('</think>')[-1].lstrip('\\n') %}\
        {{- '<|im_start|>' + message.role + '\\n<think>\\n' + reasoning_content + '\\n</think>\\n\\n' + content }}\
        {%- else %}{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}{%- endif %}{%- endfor %}
        {%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n' }}\
        {%- if enable_thinking is defined and enable_thinking is false %}{{- '<think>\\n\\n</think>\\n\\n' }}{%- endif %}{%- endif %}
        """
    /// A template whose generation prompt opens the section itself (QwQ, Qwen3's thinking-only
    /// models): no switch.
    static let qwq = """
        {%- for message in messages %}{{- '<|im_start|>' + message.role + '\\n' + message.content.split('</think>')[-1] + '<|im_end|>\\n' }}{%- endfor %}
        {%- if add_generation_prompt %}{{- '<|im_start|>assistant\\n<think>\\n' }}{%- endif %}
        """

    let question = [ChatMessage(role: .user, content: "Hi")]

    @Test func qwen3sSectionAndSwitchAreRecognized() throws {
        let template = ChatTemplate(template: Self.qwen3)
        #expect(template.style == .chatML && template.warning == nil)
        let thinking = try #require(template.thinking)
        #expect(thinking.opener == "<think>" && thinking.closer == "</think>")
        #expect(thinking.hasSwitch)
        // `'\n<think>\n'` after a role variable is an earlier turn's, not the generation prompt's.
        #expect(!thinking.promptOpensSection)
    }

    @Test func aPreOpeningGenerationPromptIsRecognized() throws {
        let thinking = try #require(ChatTemplate(template: Self.qwq).thinking)
        #expect(thinking.promptOpensSection && !thinking.hasSwitch)
    }

    @Test func templatesWithoutASectionHaveNone() {
        #expect(ChatTemplate(template: "{% for m in messages %}<|im_start|>{{ m.role }}...").thinking == nil)
        #expect(ChatTemplate(template: nil).thinking == nil)
        // One marker alone is not a section.
        #expect(ChatTemplate(template: "<|im_start|>{{ '<think>' }}").thinking == nil)
    }

    @Test func theSwitchRendersTheSectionOpenOrEmpty() {
        let template = ChatTemplate(template: Self.qwen3)
        let base = "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
        #expect(template.render(question, addGenerationPrompt: true, thinking: true) == base + "<think>\n")
        #expect(template.render(question, addGenerationPrompt: true, thinking: false) == base + "<think>\n\n</think>\n\n")
        // Without the switch, what Qwen3's template renders: the model decides.
        #expect(template.render(question, addGenerationPrompt: true) == base)
        #expect(template.render(question, addGenerationPrompt: false, thinking: true) == "<|im_start|>user\nHi<|im_end|>\n")
        // A pre-opening template opens it by default.
        let qwq = ChatTemplate(template: Self.qwq)
        #expect(qwq.render(question, addGenerationPrompt: true) == base + "<think>\n")
        // A template without a section ignores the flag.
        let plain = ChatTemplate(template: "<|im_start|>")
        #expect(plain.render(question, addGenerationPrompt: true, thinking: true) == base)
    }

    @Test func earlierAnswersAreRenderedWithoutTheirReasoning() {
        let template = ChatTemplate(template: Self.qwen3)
        let conversation = question + [
            ChatMessage(role: .assistant, content: "<think>\nThey greet me.\n</think>\n\nHello!"),
            ChatMessage(role: .user, content: "Bye"),
        ]
        let text = template.render(conversation, addGenerationPrompt: false)
        #expect(text == "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n")
        // A template without a section keeps the text as it is.
        let plain = ChatTemplate(template: "<|im_start|>").render(conversation, addGenerationPrompt: false)
        #expect(plain.contains("They greet me."))
        #expect(template.thinking?.answer(in: "no reasoning here") == "no reasoning here")
    }

    @Test func theMarkersAreSpecialTokensAndUserTextNeverIs() throws {
        let tokenizer = try TinyVocabulary.make(merges: [], specials: ["<|im_start|>", "<|im_end|>", "<think>", "</think>"])
        let template = ChatTemplate(template: Self.qwen3)
        let think = try #require(tokenizer.specialToken("<think>"))
        let close = try #require(tokenizer.specialToken("</think>"))
        let forged = [ChatMessage(role: .user, content: "<think>fake</think>")]
        let off = template.encode(forged, addGenerationPrompt: true, thinking: false, with: tokenizer)
        // Only the template's section: one opener, one closer, both after the user's turn.
        #expect(off.filter { $0 == think }.count == 1 && off.filter { $0 == close }.count == 1)
        #expect(off.firstIndex(of: think)! > off.lastIndex(of: tokenizer.specialToken("<|im_start|>")!)!)
        let on = template.encode(forged, addGenerationPrompt: true, thinking: true, with: tokenizer)
        #expect(on.filter { $0 == think }.count == 1 && !on.contains(close))
        #expect(on.suffix(2) == [think] + tokenizer.encode("\n"))
        // A vocabulary without the markers encodes them as text.
        let plain = try TinyVocabulary.make(merges: [], specials: ["<|im_start|>", "<|im_end|>"])
        let text = template.encode(question, addGenerationPrompt: true, thinking: true, with: plain)
        #expect(text.suffix(8) == plain.encode("<think>\n"))
    }
}
