import PocketGGUF

/// One message of a conversation.
public struct ChatMessage: Sendable, Equatable {
    /// Who wrote a message.
    public enum Role: String, Sendable {
        case system, user, assistant, tool
    }

    /// The author.
    public var role: Role
    /// The text; encoded as plain text, never parsed for special tokens.
    public var content: String
    /// Tools the assistant calls in this message (assistant messages only).
    public var toolCalls: [ChatToolCall]

    /// Creates a message.
    public init(role: Role, content: String, toolCalls: [ChatToolCall] = []) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
    }
}

/// A call to a tool inside an assistant message.
public struct ChatToolCall: Sendable, Equatable {
    /// The tool's name.
    public var name: String
    /// The arguments as JSON text (an object).
    public var argumentsJSON: String

    /// Creates a call.
    public init(name: String, argumentsJSON: String) {
        self.name = name
        self.argumentsJSON = argumentsJSON
    }
}

/// Renders conversations in a model's chat format.
///
/// Pocket does not interpret the Jinja template stored in `tokenizer.chat_template`; it
/// recognizes the format by its markers and renders it natively: ChatML (`<|im_start|>`),
/// Llama 3 (`<|start_header_id|>`) and Gemma (`<start_of_turn>`). An unknown or missing
/// template falls back to ChatML and sets ``warning``.
///
/// Rendering produces ``Segment``s: the template's own markers, which are encoded as special
/// tokens, and text, which is encoded with `parseSpecial: false`. A message containing
/// `<|im_end|>` therefore cannot close its turn or forge another role.
///
/// A template with a thinking section (Qwen3's `<think>…</think>` and `enable_thinking`) has
/// ``thinking``; the `thinking:` parameter of the rendering methods turns the section on or off
/// in the generation prompt.
public struct ChatTemplate: Sendable {
    /// The chat formats Pocket renders.
    public enum Style: String, Sendable {
        /// `<|im_start|>role\ncontent<|im_end|>\n` (Qwen, SmolLM, many others).
        case chatML
        /// `<|start_header_id|>role<|end_header_id|>\n\ncontent<|eot_id|>` after `<|begin_of_text|>`.
        case llama3
        /// `<start_of_turn>role\ncontent<end_of_turn>\n` after `<bos>`; the assistant is `model`
        /// and a system message is prepended to the first user turn.
        case gemma
    }

    /// A piece of rendered conversation.
    public enum Segment: Sendable, Equatable {
        /// A marker of the template, encoded as one special token.
        case special(String)
        /// Text, encoded without special-token parsing.
        case text(String)
    }

    /// The recognized format.
    public let style: Style
    /// Set when the template was not recognized and ChatML is used instead.
    public let warning: String?
    /// The system prompt the template inserts when a conversation has none (SmolLM2's
    /// "You are a helpful AI assistant named SmolLM…", Qwen2.5's "You are Qwen…"), if the
    /// template has one.
    public let defaultSystemPrompt: String?
    /// The template's own tool-call format, when it has one (Qwen2.5's `<tool_call>` turns);
    /// `nil` when tools must be described in plain instructions.
    public let nativeTools: NativeToolFormat?
    /// Llama 3.1's JSON tool calling, for a Llama 3 template that has it (`Environment: ipython`,
    /// tools in the first user turn, calls as `{"name": …, "parameters": …}`); `nil` otherwise.
    public let llamaTools: LlamaToolFormat?
    /// The template's thinking section, when it has one (Qwen3, QwQ, DeepSeek-R1); `nil` for a
    /// model that does not reason separately from its answer.
    public let thinking: ThinkingFormat?

    /// Recognizes the template of a model (`tokenizer.chat_template`); a model without one gets
    /// its family's format where the family has one (Gemma's base models ship none).
    public init(gguf file: GGUFFile) {
        self.init(template: file.metadata.string("tokenizer.chat_template"),
                  architecture: file.metadata.string("general.architecture"))
    }

    /// Recognizes a Jinja chat template by its markers; `nil` means the model has none, and then
    /// `architecture` (`general.architecture`) picks the format: Gemma's for the `gemma` families,
    /// ChatML otherwise, with a ``warning`` either way.
    public init(template: String?, architecture: String? = nil) {
        guard let template else {
            if let architecture, architecture.hasPrefix("gemma") {
                style = .gemma
                warning = "the model has no chat template; using Gemma's turn format (architecture \(architecture))"
            } else {
                style = .chatML
                warning = "the model has no chat template; using ChatML"
            }
            defaultSystemPrompt = nil
            nativeTools = nil
            llamaTools = nil
            thinking = nil
            return
        }
        if template.contains("<|im_start|>") {
            style = .chatML
            warning = nil
        } else if template.contains("<|start_header_id|>") {
            style = .llama3
            warning = nil
        } else if template.contains("<start_of_turn>") {
            style = .gemma
            warning = nil
        } else {
            style = .chatML
            warning = "unrecognized chat template; falling back to ChatML"
        }
        defaultSystemPrompt = Self.defaultSystemPrompt(in: template, style: style)
        nativeTools = style == .chatML ? NativeToolFormat(template: template) : nil
        llamaTools = style == .llama3 ? LlamaToolFormat(template: template) : nil
        thinking = ThinkingFormat(template: template)
    }

    /// Finds a literal system turn that a template emits when the first message is not a
    /// system message (`{% if … messages[0]['role'] != 'system' %}{{ '<|im_start|>system\n…' }}`).
    /// Qwen2.5 tests `messages[0]['role'] == 'system'` and emits the literal in the `else`
    /// branch; the first system turn whose text up to `<|im_end|>` is a literal is the one.
    static func defaultSystemPrompt(in template: String, style: Style) -> String? {
        guard style == .chatML,
              template.contains("messages[0]['role']") || template.contains("messages[0][\"role\"]")
                || template.contains("messages[0].role") else { return nil }
        // The newline is a real one in some templates and a `\n` escape inside a Jinja string
        // literal in others (Qwen2.5).
        for opener in ["<|im_start|>system\n", "<|im_start|>system\\n"] {
            var searchStart = template.startIndex
            while let start = template.range(of: opener, range: searchStart..<template.endIndex) {
                searchStart = start.upperBound
                guard let end = template.range(of: "<|im_end|>", range: start.upperBound..<template.endIndex) else { break }
                let prompt = String(template[start.upperBound..<end.lowerBound])
                // Only a literal: a template that builds the prompt from variables has none.
                if !prompt.contains("{") && !prompt.contains("'") && !prompt.contains("\"") && !prompt.contains("\\") { return prompt }
            }
        }
        return nil
    }

    /// Renders `messages`, optionally followed by the opening of the assistant's reply.
    ///
    /// - Parameters:
    ///   - tools: Tool definitions as JSON objects (`{"type": "function", …}`), shown in the
    ///     template's own format; only templates with ``nativeTools`` or ``llamaTools`` take them.
    ///   - thinking: For a template with ``thinking``: whether the reply opens with the thinking
    ///     section (`true`) or with an empty one (`false`); `nil` renders what the template
    ///     renders without the switch. See ``generationPrompt(thinking:)``.
    public func segments(for messages: [ChatMessage], tools: [String] = [], addGenerationPrompt: Bool, thinking: Bool? = nil) -> [Segment] {
        var out: [Segment] = []
        var messages = messages
        if let defaultSystemPrompt, messages.first?.role != .system {
            messages.insert(ChatMessage(role: .system, content: defaultSystemPrompt), at: 0)
        }
        if let nativeTools, style == .chatML {
            return nativeTools.segments(
                for: messages, tools: tools, generationPrompt: addGenerationPrompt ? generationPrompt(thinking: thinking) : [], in: self)
        }
        if let llamaTools, style == .llama3, !tools.isEmpty || messages.contains(where: { !$0.toolCalls.isEmpty }) {
            return llamaTools.segments(
                for: messages, tools: tools, generationPrompt: addGenerationPrompt ? generationPrompt(thinking: thinking) : [])
        }
        switch style {
        case .llama3: out.append(.special("<|begin_of_text|>"))
        case .gemma:
            out.append(.special("<bos>"))
            // Gemma has no system role: the system text opens the first user turn.
            if messages.first?.role == .system {
                let system = messages.removeFirst().content
                if let i = messages.firstIndex(where: { $0.role == .user }) {
                    messages[i].content = system + "\n\n" + messages[i].content
                } else {
                    messages.insert(ChatMessage(role: .user, content: system), at: 0)
                }
            }
        case .chatML: break
        }
        for message in messages { out += segments(for: message) }
        if addGenerationPrompt { out += generationPrompt(thinking: thinking) }
        return out
    }

    /// One message, as it appears in the middle of a conversation (an assistant message without
    /// its reasoning, for a template with ``thinking``).
    public func segments(for message: ChatMessage) -> [Segment] {
        var message = message
        if message.role == .assistant, let thinking { message.content = thinking.answer(in: message.content) }
        return switch style {
        case .chatML:
            [.special("<|im_start|>"), .text(message.role.rawValue + "\n" + message.content), .special("<|im_end|>"), .text("\n")]
        case .llama3:
            [.special("<|start_header_id|>"), .text(message.role == .tool ? "ipython" : message.role.rawValue),
             .special("<|end_header_id|>"), .text("\n\n" + message.content.trimmingWhitespace()), .special("<|eot_id|>")]
        case .gemma:
            [.special("<start_of_turn>"), .text((message.role == .assistant ? "model" : "user") + "\n" + message.content.trimmingWhitespace()),
             .special("<end_of_turn>"), .text("\n")]
        }
    }

    /// The opening of an assistant reply.
    public var generationPrompt: [Segment] {
        switch style {
        case .chatML: [.special("<|im_start|>"), .text("assistant\n")]
        case .llama3: [.special("<|start_header_id|>"), .text("assistant"), .special("<|end_header_id|>"), .text("\n\n")]
        case .gemma: [.special("<start_of_turn>"), .text("model\n")]
        }
    }

    /// The opening of an assistant reply, with the thinking section as asked.
    ///
    /// - Parameter thinking: For a template with ``thinking``: `true` opens the section
    ///   (`<think>\n`), `false` renders it empty and closed (`<think>\n\n</think>\n\n`, Qwen3's
    ///   `enable_thinking=false`), `nil` renders what the template does without the switch.
    ///   Ignored for a template without a thinking section.
    public func generationPrompt(thinking: Bool?) -> [Segment] {
        guard let format = self.thinking else { return generationPrompt }
        return generationPrompt + format.generationPromptSuffix(thinking: thinking)
    }

    /// What follows an assistant reply's content to close its turn (the part of
    /// ``segments(for:)`` after the content). A chat that keeps the generated tokens in its
    /// cache appends this, then the next messages.
    public var endOfReply: [Segment] {
        switch style {
        case .chatML: [.special("<|im_end|>"), .text("\n")]
        case .llama3: [.special("<|eot_id|>")]
        case .gemma: [.special("<end_of_turn>"), .text("\n")]
        }
    }

    /// The conversation as one string (for display and logs).
    public func render(_ messages: [ChatMessage], tools: [String] = [], addGenerationPrompt: Bool, thinking: Bool? = nil) -> String {
        segments(for: messages, tools: tools, addGenerationPrompt: addGenerationPrompt, thinking: thinking).map {
            switch $0 {
            case .special(let s), .text(let s): s
            }
        }.joined()
    }

    /// Token ids of `messages`: markers as special tokens, all text without special parsing.
    public func encode(
        _ messages: [ChatMessage], tools: [String] = [], addGenerationPrompt: Bool, thinking: Bool? = nil, with tokenizer: Tokenizer
    ) -> [Int] {
        encode(segments(for: messages, tools: tools, addGenerationPrompt: addGenerationPrompt, thinking: thinking), with: tokenizer)
    }

    /// Token ids of rendered segments. Adjacent text segments are encoded together, as one
    /// run of text between two markers; a marker missing from the vocabulary is encoded as text.
    public func encode(_ segments: [Segment], with tokenizer: Tokenizer) -> [Int] {
        var ids: [Int] = []
        var text = ""
        for segment in segments {
            switch segment {
            case .text(let s): text += s
            case .special(let marker):
                if let id = tokenizer.specialToken(marker) {
                    if !text.isEmpty { ids += tokenizer.encode(text, parseSpecial: false); text = "" }
                    ids.append(id)
                } else {
                    text += marker
                }
            }
        }
        if !text.isEmpty { ids += tokenizer.encode(text, parseSpecial: false) }
        return ids
    }
}

extension String {
    /// The string without leading and trailing whitespace (Jinja's `trim`).
    func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
