import Testing
@testable import PocketTokenizer

/// Expectations derived by hand from each style's regular expression.
@Suite struct PreTokenizerTests {
    func pieces(_ style: PreTokenizer, _ text: String) -> [String] {
        style.split(text).map { String(String.UnicodeScalarView($0)) }
    }

    @Test func gpt2() {
        #expect(pieces(.gpt2, "Hello world") == ["Hello", " world"])
        // Contractions (lowercase only), letters, numbers and punctuation runs with one space.
        #expect(pieces(.gpt2, "I'm fine, it's 2024!!") == ["I", "'m", " fine", ",", " it", "'s", " 2024", "!!"])
        #expect(pieces(.gpt2, "DON'T") == ["DON", "'", "T"])
        // Whitespace before a word keeps its last character for the word.
        #expect(pieces(.gpt2, "a   b") == ["a", "  ", " b"])
        #expect(pieces(.gpt2, "end  ") == ["end", "  "])
    }

    @Test func gpt2WhitespaceRuns() {
        // "\n\n" followed by "y": \s+(?!\S) takes the first newline, \s+ the second.
        #expect(pieces(.gpt2, "x\n\ny") == ["x", "\n", "\n", "y"])
        #expect(pieces(.gpt2, "x \ty") == ["x", " ", "\t", "y"])
    }

    @Test func smollmSplitsEveryDigit() {
        #expect(pieces(.smollm, "abc 123") == ["abc", " ", "1", "2", "3"])
        #expect(pieces(.smollm, "v2.0") == ["v", "2", ".", "0"])
        #expect(pieces(.smollm, "Hello world") == ["Hello", " world"])
    }

    @Test func llama3() {
        // Up to three digits per piece; a leading non-letter joins a word; contractions in any case.
        #expect(pieces(.llama3, "12345") == ["123", "45"])
        #expect(pieces(.llama3, "DON'T stop") == ["DON", "'T", " stop"])
        #expect(pieces(.llama3, "(hello)") == ["(hello", ")"])
        // Newlines gather trailing whitespace: \s*[\r\n]+.
        #expect(pieces(.llama3, "a \n\nb") == ["a", " \n\n", "b"])
        #expect(pieces(.llama3, "x!!\n") == ["x", "!!\n"])
    }

    @Test func qwen2SplitsSingleDigits() {
        #expect(pieces(.qwen2, "12345") == ["1", "2", "3", "4", "5"])
        #expect(pieces(.qwen2, "DON'T") == ["DON", "'T"])
    }

    @Test func piecesConcatenateToTheText() {
        let text = "Émilie's 3.14 🙂🚀 日本語\r\n  done?!"
        for style in PreTokenizer.allCases {
            #expect(pieces(style, text).joined() == text, "\(style)")
        }
    }

    @Test func namesFromGGUF() {
        #expect(PreTokenizer(ggufName: "smollm") == .smollm)
        #expect(PreTokenizer(ggufName: "llama-bpe") == .llama3)
        #expect(PreTokenizer(ggufName: "qwen2") == .qwen2)
        #expect(PreTokenizer(ggufName: "gpt-2") == .gpt2)
        #expect(PreTokenizer(ggufName: "default") == .gpt2)
        #expect(PreTokenizer(ggufName: "unknown-thing") == nil)
    }
}
