/// A chat template's own tool-call format: tools listed in the system turn, calls as
/// `<tool_call>{"name": …, "arguments": …}</tool_call>` in assistant turns, results as
/// `<tool_response>…</tool_response>` inside a user turn (Qwen2.5 and other Hermes-style
/// templates).
///
/// Pocket does not run Jinja. It recognizes the format by its markers and takes the two pieces
/// of prose the template wraps around the tool list (the text before `<tools>` and after
/// `</tools>`) from the template's own string literals, so the model reads exactly what it was
/// trained on.
public struct NativeToolFormat: Sendable, Equatable {
    /// What opens a call in an assistant turn (one token in Qwen's vocabulary).
    public let callOpener = "<tool_call>"
    /// What closes a call.
    public let callCloser = "</tool_call>"
    /// The system-turn text between the system prompt and the first tool (ends with `<tools>`).
    public let preamble: String
    /// The system-turn text after the last tool (starts with `</tools>`, before `<|im_end|>`).
    public let postamble: String

    /// Finds the format in a Jinja template, or returns `nil` when the template has none.
    public init?(template: String) {
        guard template.contains("<tool_call>"), template.contains("<tool_response>") else { return nil }
        let literals = Self.stringLiterals(in: template)
        guard let preamble = literals.first(where: { $0.hasSuffix("<tools>") }),
              var postamble = literals.first(where: { $0.hasPrefix("\n</tools>") }) else { return nil }
        if postamble.hasSuffix("<|im_end|>\n") { postamble.removeLast("<|im_end|>\n".count) }
        guard !postamble.contains("<|im_end|>") else { return nil }
        self.preamble = preamble
        self.postamble = postamble
    }

    /// Renders a ChatML conversation with tools in this format (the caller has already put the
    /// default system prompt first when the template has one), followed by `generationPrompt`.
    func segments(
        for messages: [ChatMessage], tools: [String], generationPrompt: [ChatTemplate.Segment], in template: ChatTemplate
    ) -> [ChatTemplate.Segment] {
        var out: [ChatTemplate.Segment] = []
        var rest = messages[...]
        if !tools.isEmpty {
            var system = ""
            if rest.first?.role == .system { system = rest.removeFirst().content }
            out += [.special("<|im_start|>"), .text("system\n" + system + preamble)]
            for tool in tools { out.append(.text("\n" + tool)) }
            out += markersParsed(postamble)
            out += [.special("<|im_end|>"), .text("\n")]
        }
        let all = Array(rest)
        for (index, message) in all.enumerated() {
            switch message.role {
            case .assistant where !message.toolCalls.isEmpty:
                let content = template.thinking?.answer(in: message.content) ?? message.content
                out += [.special("<|im_start|>"), .text("assistant" + (content.isEmpty ? "" : "\n" + content))]
                for call in message.toolCalls {
                    out += [.text("\n"), .special(callOpener),
                            .text("\n{\"name\": \"\(call.name)\", \"arguments\": \(Self.spacedJSON(call.argumentsJSON))}\n"),
                            .special(callCloser)]
                }
                out += [.special("<|im_end|>"), .text("\n")]
            case .tool:
                if index == 0 || all[index - 1].role != .tool { out += [.special("<|im_start|>"), .text("user")] }
                out.append(.text("\n<tool_response>\n" + message.content + "\n</tool_response>"))
                if index == all.count - 1 || all[index + 1].role != .tool { out += [.special("<|im_end|>"), .text("\n")] }
            default:
                out += template.segments(for: message)
            }
        }
        out += generationPrompt
        return out
    }

    /// Template prose with its call markers as special segments (they are tokens in the
    /// vocabulary, and llama.cpp parses them in the rendered template).
    private func markersParsed(_ text: String) -> [ChatTemplate.Segment] {
        var out: [ChatTemplate.Segment] = []
        var rest = Substring(text)
        while let range = [callCloser, callOpener].compactMap({ rest.range(of: $0) }).min(by: { $0.lowerBound < $1.lowerBound }) {
            if range.lowerBound > rest.startIndex { out.append(.text(String(rest[..<range.lowerBound]))) }
            out.append(.special(String(rest[range])))
            rest = rest[range.upperBound...]
        }
        if !rest.isEmpty { out.append(.text(String(rest))) }
        return out
    }

    /// Compact JSON re-spaced as Python's `json.dumps` writes it (`", "` and `": "` between
    /// items), which is what the templates' `tojson` produced in training.
    public static func spacedJSON(_ compact: String) -> String {
        var out = ""
        out.reserveCapacity(compact.utf8.count + compact.utf8.count / 8)
        var inString = false, escaped = false
        for character in compact {
            out.append(character)
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
            } else if character == "\"" {
                inString = true
            } else if character == "," || character == ":" {
                out.append(" ")
            }
        }
        return out
    }

    /// The values of the quoted string literals of a Jinja template, escapes decoded.
    static func stringLiterals(in template: String) -> [String] {
        var literals: [String] = []
        var iterator = template.makeIterator()
        var quote: Character?
        var current = ""
        while let c = iterator.next() {
            guard let q = quote else {
                if c == "'" || c == "\"" { quote = c; current = "" }
                continue
            }
            if c == q {
                literals.append(current)
                quote = nil
            } else if c == "\\", let escaped = iterator.next() {
                switch escaped {
                case "n": current.append("\n")
                case "t": current.append("\t")
                case "r": current.append("\r")
                default: current.append(escaped)
                }
            } else {
                current.append(c)
            }
        }
        return literals
    }
}
