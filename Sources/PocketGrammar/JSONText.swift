/// JSON string literals, written one way everywhere: the grammar's literals (keys, enum
/// strings), `GeneratedContent`'s JSON text and the schemas shown to the model.
package enum JSONText {
    /// `s` as a JSON string literal with the minimal escapes: `\"` and `\\`, the short forms
    /// `\b \f \n \r \t`, `\u00XX` for the other control characters; everything else as is.
    package static func quoted(_ s: String) -> String {
        var out = ""
        appendQuoted(s, to: &out)
        return out
    }

    /// Appends `s` as a JSON string literal (see ``quoted(_:)``) to `output`.
    package static func appendQuoted(_ s: String, to output: inout String) {
        output += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{08}": output += "\\b"
            case "\u{0C}": output += "\\f"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
