import Testing
@testable import PocketTokenizer

@Suite struct StreamingDetokenizerTests {
    /// A vocabulary of the 256 single bytes, so any byte sequence can be fed token by token.
    let tokenizer = try! TinyVocabulary.make(merges: [])

    func stream(_ bytes: [UInt8]) -> [String] {
        var detokenizer = StreamingDetokenizer(tokenizer: tokenizer)
        var out = bytes.map { detokenizer.append(Int($0)) }
        out.append(detokenizer.finish())
        return out
    }

    @Test func multiByteCharactersAreNeverSplit() {
        for text in ["é", "日本語", "🙂🚀", "👩\u{200D}💻", "a🙂b"] {
            let chunks = stream(Array(text.utf8))
            #expect(chunks.joined() == text)
            for chunk in chunks { #expect(!chunk.contains("\u{FFFD}"), "\(text): \(chunks)") }
        }
    }

    @Test func textAppearsAsSoonAsItIsComplete() {
        // The four bytes of 🙂: nothing until the last arrives.
        #expect(stream(Array("🙂".utf8)) == ["", "", "", "🙂", ""])
        #expect(stream(Array("ab".utf8)) == ["a", "b", ""])
    }

    @Test func invalidBytesBecomeReplacementCharacters() {
        // A stray continuation byte, and a lead byte cut off by the end of the stream.
        #expect(stream([0x61, 0x80, 0x62]).joined() == "a\u{FFFD}b")
        #expect(stream([0x61, 0xE6, 0x97]).joined() == "a\u{FFFD}")
        // A lead byte followed by a non-continuation byte.
        #expect(stream([0xE6, 0x41]).joined() == "\u{FFFD}A")
    }
}
