/// Llama 3.1's own tool-call format (JSON-based tool calling, Llama 3.1–3.3 and 3.2's
/// templates): the system turn opens with `Environment: ipython\n`, the tool definitions go in
/// the first user turn after an instruction, a call is a bare JSON object
/// `{"name": …, "parameters": …}` as an assistant turn, and a result is an `ipython` turn.
///
/// ```
/// <|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\nCutting Knowledge Date: …<|eot_id|>
/// <|start_header_id|>user<|end_header_id|>\n\nGiven the following functions, …{tool}\n\n{question}<|eot_id|>
/// <|start_header_id|>assistant<|end_header_id|>\n\n{"name": "f", "parameters": {"a": 1}}<|eot_id|>
/// <|start_header_id|>ipython<|end_header_id|>\n\n"{result as a JSON string}"<|eot_id|>
/// ```
///
/// As with ``NativeToolFormat``, Pocket does not run Jinja: it recognizes the format by its
/// markers and takes the prose from the template's own string literals (the instruction, the
/// knowledge-date lines, the default date), so the model reads what it was trained on. This is
/// the template's default `tools_in_user_message = true` and no `builtin_tools`, so calls end
/// with `<|eot_id|>` (the model may also end one with `<|eom_id|>`, which stops generation too).
public struct LlamaToolFormat: Sendable, Equatable {
    /// What opens the system turn when tools are offered (`Environment: ipython\n`).
    public let environment: String
    /// The system turn's lines after the environment, with the template's default date
    /// (`Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n`); empty when the
    /// template has none.
    public let dateLines: String
    /// What opens the first user turn before the tool definitions ("Given the following
    /// functions, …Do not use variables.\n\n").
    public let instruction: String
    /// The key of a call's arguments (`parameters`, where Hermes says `arguments`).
    public let argumentsKey = "parameters"

    /// Finds the format in a Jinja template, or returns `nil` when the template has none.
    public init?(template: String) {
        guard template.contains("<|start_header_id|>"), template.contains("ipython"),
              template.contains("\"parameters\": ") else { return nil }
        let literals = NativeToolFormat.stringLiterals(in: Self.withoutComments(template))
        guard literals.contains("Environment: ipython\n"),
              let first = literals.firstIndex(where: { $0.hasPrefix("Given the following functions") }),
              let last = literals[first...].prefix(6).firstIndex(where: { $0.hasSuffix("Do not use variables.\n\n") })
        else { return nil }
        environment = "Environment: ipython\n"
        instruction = literals[first...last].joined()
        var dateLines = ""
        if let knowledge = literals.first(where: { $0.hasPrefix("Cutting Knowledge Date:") }) {
            dateLines += knowledge
            if let today = literals.first(where: { $0 == "Today Date: " }), let date = Self.defaultDate(in: template) {
                dateLines += today + date + "\n\n"
            }
        }
        self.dateLines = dateLines
    }

    /// Renders a Llama 3 conversation with tools in this format, followed by `generationPrompt`.
    ///
    /// The first message after the system message becomes the user turn that carries the tools
    /// (the template takes `messages[0]`); an assistant message's calls become one assistant turn
    /// each (the template allows one call per message), its text dropped as the template drops it.
    func segments(for messages: [ChatMessage], tools: [String], generationPrompt: [ChatTemplate.Segment]) -> [ChatTemplate.Segment] {
        var out: [ChatTemplate.Segment] = [.special("<|begin_of_text|>")]
        var rest = messages[...]
        var system = ""
        if rest.first?.role == .system { system = rest.removeFirst().content.trimmingWhitespace() }
        out += header("system") + [.text((tools.isEmpty ? "" : environment) + dateLines + system), .special("<|eot_id|>")]
        if !tools.isEmpty {
            let question = rest.isEmpty ? "" : rest.removeFirst().content.trimmingWhitespace()
            let definitions = tools.map { Self.indentedJSON($0) + "\n\n" }.joined()
            out += header("user") + [.text(instruction + definitions + question), .special("<|eot_id|>")]
        }
        for message in rest {
            switch message.role {
            case .assistant where !message.toolCalls.isEmpty:
                for call in message.toolCalls {
                    let json = "{\"name\": \"\(call.name)\", \"\(argumentsKey)\": \(NativeToolFormat.spacedJSON(call.argumentsJSON))}"
                    out += header("assistant") + [.text(json), .special("<|eot_id|>")]
                }
            case .tool:
                // The template's `message.content is iterable` holds for a string too, so a
                // result is written as a JSON string (`"Sunny"`), as Jinja and llama.cpp render it.
                out += header("ipython") + [.text(Self.jsonString(message.content)), .special("<|eot_id|>")]
            default:
                out += header(message.role.rawValue)
                    + [.text(message.content.trimmingWhitespace()), .special("<|eot_id|>")]
            }
        }
        return out + generationPrompt
    }

    /// A turn's header: `<|start_header_id|>role<|end_header_id|>\n\n`.
    private func header(_ role: String) -> [ChatTemplate.Segment] {
        [.special("<|start_header_id|>"), .text(role), .special("<|end_header_id|>"), .text("\n\n")]
    }

    /// The date the template uses when `date_string` is not given: the first literal assigned
    /// to it (`{%- set date_string = "26 Jul 2024" %}`; Llama 3.2 tries `strftime_now` first,
    /// which Pocket does not call, so a conversation renders the same every day).
    static func defaultDate(in template: String) -> String? {
        var rest = Substring(template)
        while let range = rest.range(of: "set date_string = ") {
            rest = rest[range.upperBound...]
            guard let quote = rest.first, quote == "\"" || quote == "'" else { continue }
            let value = rest.dropFirst().prefix { $0 != quote }
            return String(value)
        }
        return nil
    }

    /// The template without its `{# … #}` comments, whose prose may hold a stray quote
    /// ("we're in ipython mode") that would pair with a real one.
    static func withoutComments(_ template: String) -> String {
        var out = ""
        var rest = Substring(template)
        while let open = rest.range(of: "{#") {
            out += rest[..<open.lowerBound]
            guard let close = rest.range(of: "#}", range: open.upperBound..<rest.endIndex) else { return out }
            rest = rest[close.upperBound...]
        }
        return out + rest
    }

    /// `text` as a JSON string literal, escaped as Python's `json.dumps(ensure_ascii=False)`
    /// escapes it (quote, backslash and control characters; other characters as they are).
    /// The same escapes as PocketGrammar's `JSONText`, which this layer sits below and cannot import.
    static func jsonString(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// JSON re-indented as Python's `json.dumps(indent=4)` writes it (the template's
    /// `tojson(indent=4)`): each item of a non-empty object or array on its own line, `": "`
    /// after keys, `","` at line ends; whitespace outside strings in `json` is dropped first.
    public static func indentedJSON(_ json: String, indent: Int = 4) -> String {
        var out = ""
        var depth = 0
        var inString = false, escaped = false
        let characters = Array(json)
        func newline() { out += "\n" + String(repeating: " ", count: depth * indent) }
        /// The next character outside whitespace after `index`.
        func next(after index: Int) -> Character? {
            characters[(index + 1)...].first { !$0.isWhitespace }
        }
        for (index, character) in characters.enumerated() {
            if inString {
                out.append(character)
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" { inString = false }
                continue
            }
            switch character {
            case "\"":
                inString = true
                out.append(character)
            case "{", "[":
                out.append(character)
                // An empty object or array stays `{}` / `[]`.
                if let following = next(after: index), following == "}" || following == "]" { continue }
                depth += 1
                newline()
            case "}", "]":
                if let last = out.last, last != "{" && last != "[" {
                    depth -= 1
                    newline()
                }
                out.append(character)
            case ",":
                out.append(character)
                newline()
            case ":":
                out += ": "
            case _ where character.isWhitespace:
                continue
            default:
                out.append(character)
            }
        }
        return out
    }
}
