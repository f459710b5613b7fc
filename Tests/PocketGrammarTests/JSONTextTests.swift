import Foundation
import Testing
@testable import PocketGrammar

/// The one JSON string quoter: every control character, quote and backslash reads back as
/// itself through Foundation's decoders, with the short escapes where JSON has them.
@Suite struct JSONTextTests {
    static let samples: [String] = (0..<0x20).map { String(UnicodeScalar(UInt8($0))) }
        + ["\"", "\\", "/", "\u{7F}", "é", "😀", "\u{2028}", "a\u{08}b\u{0C}c\n\"\\\t\r\u{01}"]

    @Test func quotedTextDecodesToTheSameString() throws {
        for s in Self.samples {
            let quoted = JSONText.quoted(s)
            #expect(try JSONDecoder().decode(String.self, from: Data(quoted.utf8)) == s, "\(quoted)")
            let array = try JSONSerialization.jsonObject(with: Data("[\(quoted)]".utf8)) as? [String]
            #expect(array == [s], "\(quoted)")
        }
    }

    @Test func controlCharactersUseTheShortEscapes() {
        #expect(JSONText.quoted("\u{08}\u{0C}\n\r\t") == #""\b\f\n\r\t""#)
        #expect(JSONText.quoted("\u{00}\u{1F}") == #""\u0000\u001f""#)
        #expect(JSONText.quoted("\"\\/") == #""\"\\/""#)
    }

    @Test func appendingMatchesQuoting() {
        var text = "x"
        JSONText.appendQuoted("a\u{0C}", to: &text)
        #expect(text == "x" + JSONText.quoted("a\u{0C}"))
    }
}
