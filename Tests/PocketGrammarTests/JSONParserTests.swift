import Testing
@testable import PocketGrammar

/// The one JSON parser: prefixes are incomplete values, whole documents complete; the
/// importer's `JSONValue` takes only whole documents.
@Suite struct JSONParserTests {
    static func parse(_ text: String) throws -> JSONNode {
        var parser = JSONParser(bytes: Array(text.utf8))
        return try parser.parseDocument()
    }

    @Test func wholeDocumentsAreCompleteAndKeepKeyOrder() throws {
        let node = try Self.parse(#"{"b":1,"a":[true,null,"x\u00e9"]}"#)
        #expect(node.isComplete)
        guard case .object(let members) = node.kind else { Issue.record("expected an object"); return }
        #expect(members.map(\.key) == ["b", "a"])
        #expect(JSONValue(node) == .object([("b", .number(1)), ("a", .array([.bool(true), .null, .string("xé")]))]))
    }

    @Test func prefixesAreIncomplete() throws {
        for text in [#"{"a":[1,"#, #"{"a""#, "[tr", #""abc"#, "12", ""] {
            #expect(try !Self.parse(text).isComplete || text == "12", "\(text)")
        }
        #expect(try Self.parse("12").isComplete)  // a number that is the whole document
    }

    @Test func errorsNameTheOffset() {
        #expect(throws: JSONParseError.self) { try Self.parse(#"{"a":1,"a":2}"#) }
        #expect(throws: JSONParseError.self) { try Self.parse("[01]") }
        #expect(throws: JSONParseError.self) { try Self.parse("\"a\u{01}\"") }
        do {
            _ = try Self.parse("[1,]")
            Issue.record("expected an error")
        } catch let error as JSONParseError {
            #expect(error.offset == 3)
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func schemaDocumentsMustBeWhole() {
        #expect(throws: GrammarError.invalidJSON("unexpected end of input", offset: 9)) {
            try JSONValue.parse(Array(#"{"type":""#.utf8))
        }
        #expect(throws: GrammarError.self) { try JSONValue.parse(Array("{} x".utf8)) }
    }
}
