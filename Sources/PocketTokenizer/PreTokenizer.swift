/// Splits text into the pieces that byte-pair encoding then encodes one at a time.
///
/// Each style reproduces the regular expression llama.cpp uses for the `tokenizer.ggml.pre`
/// value, written as a hand-made scanner over Unicode scalars:
///
/// - ``gpt2``: `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`
/// - ``smollm``: first every `\p{N}` on its own, then the GPT-2 rules on the rest (also used by
///   StarCoder-family vocabularies).
/// - ``llama3``: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
///   ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
/// - ``qwen2``: Llama 3's rules with single digits (`\p{N}`) instead of runs of up to three.
public enum PreTokenizer: String, Sendable, CaseIterable {
    /// GPT-2's split (`gpt-2`, `default`).
    case gpt2
    /// Digits split individually, then GPT-2 (`smollm`, `starcoder`, `refact`, …).
    case smollm
    /// Llama 3's split (`llama-bpe`, `llama3`).
    case llama3
    /// Qwen2's split (`qwen2`).
    case qwen2

    /// The style for a `tokenizer.ggml.pre` value, or `nil` for one Pocket does not implement.
    public init?(ggufName: String) {
        switch ggufName {
        case "gpt-2", "gpt2", "default": self = .gpt2
        case "smollm", "starcoder", "refact", "codeshell", "command-r", "exaone", "minerva": self = .smollm
        case "llama-bpe", "llama3", "llama-v3": self = .llama3
        case "qwen2", "deepseek-r1-qwen": self = .qwen2
        default: return nil
        }
    }

    /// Splits `text` into pieces; concatenated, the pieces are `text` again.
    public func split(_ text: String) -> [Substring.UnicodeScalarView] {
        let scalars = Array(text.unicodeScalars)
        var ranges: [Range<Int>] = []
        switch self {
        case .gpt2: Self.gpt2Split(scalars, 0..<scalars.count, into: &ranges)
        case .smollm:
            // First regex: every number character is its own piece; the gaps between go on.
            var start = 0
            for (i, s) in scalars.enumerated() where Category(s).isNumber {
                if start < i { Self.gpt2Split(scalars, start..<i, into: &ranges) }
                ranges.append(i..<(i + 1))
                start = i + 1
            }
            if start < scalars.count { Self.gpt2Split(scalars, start..<scalars.count, into: &ranges) }
        case .llama3: Self.llama3Split(scalars, maximumDigits: 3, into: &ranges)
        case .qwen2: Self.llama3Split(scalars, maximumDigits: 1, into: &ranges)
        }
        let view = text.unicodeScalars
        var indices: [String.UnicodeScalarView.Index] = []
        indices.reserveCapacity(scalars.count + 1)
        var index = view.startIndex
        while index != view.endIndex { indices.append(index); view.formIndex(after: &index) }
        indices.append(view.endIndex)
        return ranges.map { Substring(view[indices[$0.lowerBound]..<indices[$0.upperBound]]).unicodeScalars }
    }

    /// GPT-2 rules over `scalars[range]`, appending piece ranges.
    static func gpt2Split(_ s: [Unicode.Scalar], _ range: Range<Int>, into out: inout [Range<Int>]) {
        let end = range.upperBound
        func category(_ i: Int) -> Category { i < end ? Category(s[i]) : .outOfRange }
        var pos = range.lowerBound
        while pos < end {
            let start = pos
            let c = s[pos]
            // 's|'t|'re|'ve|'m|'ll|'d (lowercase only)
            if let length = contraction(s, at: pos, end: end, ignoringCase: false) {
                out.append(start..<(pos + length)); pos += length; continue
            }
            let second = c == " " ? category(pos + 1) : Category(c)
            // ' ?\p{L}+', ' ?\p{N}+', ' ?[^\s\p{L}\p{N}]+'
            if second.isLetter || second.isNumber || second.isOther {
                if c == " " { pos += 1 }
                let matches: (Category) -> Bool = second.isLetter ? { $0.isLetter } : second.isNumber ? { $0.isNumber } : { $0.isOther }
                while pos < end && matches(category(pos)) { pos += 1 }
                out.append(start..<pos); continue
            }
            // '\s+(?!\S)' then '\s+'
            var spaces = 0
            while category(pos + spaces).isWhitespace { spaces += 1 }
            if spaces > 1 && pos + spaces < end {
                pos += spaces - 1; out.append(start..<pos); continue
            }
            if spaces > 0 {
                pos += spaces; out.append(start..<pos); continue
            }
            pos += 1
            out.append(start..<pos)
        }
    }

    /// Length of the English contraction (`'s 't 're 've 'm 'll 'd`) starting at `pos`, if any.
    static func contraction(_ s: [Unicode.Scalar], at pos: Int, end: Int, ignoringCase: Bool) -> Int? {
        guard s[pos] == "'", pos + 1 < end else { return nil }
        func letter(_ i: Int) -> Unicode.Scalar {
            let c = s[i]
            return ignoringCase && ("A"..."Z").contains(c) ? Unicode.Scalar(c.value + 32)! : c
        }
        let next = letter(pos + 1)
        if next == "s" || next == "t" || next == "m" || next == "d" { return 2 }
        guard pos + 2 < end else { return nil }
        let pair = (next, letter(pos + 2))
        return pair == ("r", "e") || pair == ("v", "e") || pair == ("l", "l") ? 3 : nil
    }

    /// Llama 3 rules (Qwen2 with `maximumDigits: 1`).
    static func llama3Split(_ s: [Unicode.Scalar], maximumDigits: Int, into out: inout [Range<Int>]) {
        let end = s.count
        func category(_ i: Int) -> Category { i < end ? Category(s[i]) : .outOfRange }
        var pos = 0
        while pos < end {
            let start = pos
            let c = s[pos]
            let flags = Category(c)
            // (?i:'s|'t|'re|'ve|'m|'ll|'d)
            if let length = contraction(s, at: pos, end: end, ignoringCase: true) {
                out.append(start..<(pos + length)); pos += length; continue
            }
            // [^\r\n\p{L}\p{N}]?\p{L}+
            if !(c == "\r" || c == "\n" || flags.isNumber) && (flags.isLetter || category(pos + 1).isLetter) {
                pos += 1
                while category(pos).isLetter { pos += 1 }
                out.append(start..<pos); continue
            }
            // \p{N}{1,maximumDigits}
            if flags.isNumber {
                while pos < end && category(pos).isNumber && pos - start < maximumDigits { pos += 1 }
                out.append(start..<pos); continue
            }
            // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
            let second = c == " " ? category(pos + 1) : flags
            if second.isOther {
                if c == " " { pos += 1 }
                while category(pos).isOther { pos += 1 }
                while pos < end && (s[pos] == "\r" || s[pos] == "\n") { pos += 1 }
                out.append(start..<pos); continue
            }
            // \s*[\r\n]+, then \s+(?!\S), then \s+
            var spaces = 0, lastLineBreak = 0
            while category(pos + spaces).isWhitespace {
                let w = s[pos + spaces]
                if w == "\r" || w == "\n" { lastLineBreak = pos + spaces + 1 }
                spaces += 1
            }
            if lastLineBreak > 0 {
                pos = lastLineBreak; out.append(start..<pos); continue
            }
            if spaces > 1 && pos + spaces < end {
                pos += spaces - 1; out.append(start..<pos); continue
            }
            if spaces > 0 {
                pos += spaces; out.append(start..<pos); continue
            }
            pos += 1
            out.append(start..<pos)
        }
    }
}

/// The classes the pre-tokenizer rules distinguish.
enum Category: Equatable {
    /// `outOfRange` stands for "past the end of the piece", which matches no class.
    case letter, number, whitespace, other, outOfRange

    init(_ s: Unicode.Scalar) {
        if s.properties.isWhitespace { self = .whitespace; return }
        switch s.properties.generalCategory {
        case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter: self = .letter
        case .decimalNumber, .letterNumber, .otherNumber: self = .number
        default: self = .other
        }
    }

    var isLetter: Bool { self == .letter }
    var isNumber: Bool { self == .number }
    var isWhitespace: Bool { self == .whitespace }
    /// `[^\s\p{L}\p{N}]`: punctuation, symbols, marks, controls, unassigned code points.
    var isOther: Bool { self == .other }
}
