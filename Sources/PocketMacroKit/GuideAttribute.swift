/// What a `@Guide(…)` attribute says about a property: its description and its guides, as
/// Swift expressions to paste into the generated schema.
///
/// Apple's three forms are accepted:
/// - `@Guide(description: "…")`
/// - `@Guide(description: "…", .range(0...20), .count(3))` — guides copied verbatim
/// - `@Guide(description: "…", /[A-Z][a-z]+/)` or `Regex("…")` — a pattern, emitted as
///   `.pattern(source: "…")` with the text exactly as written in the source
public struct GuideAttribute: Equatable, Sendable {
    /// The description expression (usually a string literal), if given.
    public var description: String?
    /// Guide expressions, e.g. `.range(0...20)` or `.pattern(source: "[a-z]+")`.
    public var guides: [String]

    /// Reads a `@Guide` attribute.
    ///
    /// - Throws: ``MacroError`` at the argument that is neither `description:` nor a guide.
    public init(_ attribute: Attribute) throws(MacroError) {
        description = nil
        guides = []
        for argument in attribute.arguments ?? [] {
            switch argument.label {
            case "description"?:
                description = argument.expression
            case nil:
                guides.append(try Self.guide(from: argument))
            case let label?:
                throw MacroError(
                    "@Guide has no argument labeled '\(label)'; write @Guide(description: \"…\", .guide(…))",
                    at: argument.offset)
            }
        }
    }

    /// Turns an unlabeled argument into a guide expression.
    private static func guide(from argument: Argument) throws(MacroError) -> String {
        let tokens = argument.tokens
        if tokens.count == 1, tokens[0].kind == .regexLiteral {
            return ".pattern(source: \(swiftStringLiteral(regexSource(tokens[0].text))))"
        }
        // Regex("…"), try Regex("…"), Regex(#"…"#): the string literal becomes the pattern.
        var rest = tokens[...]
        if rest.first?.isWord("try") == true {
            rest = rest.dropFirst()
            if rest.first?.isSymbol("!") == true { rest = rest.dropFirst() }
        }
        if rest.first?.isWord("Regex") == true {
            let inner = Array(rest.dropFirst())
            guard inner.count == 3, inner[0].isSymbol("("), inner[1].kind == .stringLiteral, inner[2].isSymbol(")") else {
                throw MacroError(
                    "@Guide reads Regex(\"…\") only with a string literal pattern, so that the pattern "
                        + "is known at compile time; write Regex(\"[a-z]+\") or /[a-z]+/", at: argument.offset)
            }
            return ".pattern(source: \(inner[1].text))"
        }
        // Guides are written as implicit members (`.range(1...5)`) or spelled out in full.
        guard let first = tokens.first, first.isSymbol(".") || first.isWord("GenerationGuide")
            || first.isWord("Pocket") || first.isWord("FoundationModels") else {
            throw MacroError(
                "expected a guide such as .range(0...10), .count(3) or a regex literal, found '\(argument.expression)'",
                at: argument.offset)
        }
        return argument.expression
    }

    /// The pattern inside `/…/` or `#/…/#`.
    static func regexSource(_ literal: String) -> String {
        var text = Substring(literal)
        while text.first == "#" && text.last == "#" {
            text = text.dropFirst().dropLast()
        }
        return String(text.dropFirst().dropLast())
    }
}

/// A Swift string literal whose value is `text`.
func swiftStringLiteral(_ text: String) -> String {
    var literal = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\\": literal += "\\\\"
        case "\"": literal += "\\\""
        case "\n": literal += "\\n"
        case "\r": literal += "\\r"
        case "\t": literal += "\\t"
        case _ where scalar.value < 0x20:
            literal += "\\u{\(String(scalar.value, radix: 16))}"
        default: literal.unicodeScalars.append(scalar)
        }
    }
    return literal + "\""
}
