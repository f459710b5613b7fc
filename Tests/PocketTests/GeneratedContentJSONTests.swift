import Testing
@testable import Pocket

/// Parsing and printing JSON; expectations derived by hand from RFC 8259.
@Suite struct GeneratedContentJSONTests {
    private func string(_ value: String, complete: Bool = true) -> GeneratedContent {
        GeneratedContent(kind: .string(value), isComplete: complete)
    }

    private func object(_ pairs: [(String, GeneratedContent)]) -> GeneratedContent {
        GeneratedContent(kind: .structure(
            properties: Dictionary(uniqueKeysWithValues: pairs), orderedKeys: pairs.map(\.0)))
    }

    @Test func completeDocumentKeepsKeyOrderAndPrintsBack() throws {
        let text = #"{"b":1,"a":[true,false,null],"c":{"x":"y","w":-2.5}}"#
        let content = try GeneratedContent(json: text)
        #expect(content.isComplete)
        guard case .structure(_, let keys) = content.kind else {
            Issue.record("expected a structure, got \(content)")
            return
        }
        #expect(keys == ["b", "a", "c"])
        #expect(content.jsonString == text)
        #expect(try content.value(Int.self, forProperty: "b") == 1)
        #expect(try content.value([Bool?].self, forProperty: "a") == [true, false, nil])
    }

    @Test func whitespaceIsAcceptedAndDroppedWhenPrinting() throws {
        let content = try GeneratedContent(json: " \n{ \"a\" :\t[ 1 , 2 ] }\r\n ")
        #expect(content.isComplete)
        #expect(content.jsonString == #"{"a":[1,2]}"#)
    }

    @Test func escapesAreDecoded() throws {
        let content = try GeneratedContent(json: #""a\"b\\c\/d\n\t\u00e9\ud83d\ude00\u0001\b\f\r""#)
        #expect(content.kind == .string("a\"b\\c/d\n\té😀\u{01}\u{08}\u{0C}\r"))
    }

    @Test func stringsAreEscapedWhenPrinted() {
        let content = GeneratedContent(kind: .string("q\"b\\s/\n\t\u{01}\u{1F}é😀\u{08}\u{0C}\r"))
        #expect(content.jsonString == #""q\"b\\s/\n\t\u0001\u001fé😀\b\f\r""#)
    }

    @Test func numbersArePrintedAsJSON() {
        #expect(GeneratedContent(kind: .number(30)).jsonString == "30")
        #expect(GeneratedContent(kind: .number(-0.25)).jsonString == "-0.25")
        #expect(GeneratedContent(kind: .number(1.5)).jsonString == "1.5")
        #expect(GeneratedContent(kind: .number(1e20)).jsonString == "1e+20")
        #expect(GeneratedContent(kind: .number(.infinity)).jsonString == "null")
        #expect(GeneratedContent(kind: .number(.nan)).jsonString == "null")
    }

    @Test func numbersAreParsed() throws {
        #expect(try GeneratedContent(json: "-12.5e2").kind == .number(-1250))
        #expect(try GeneratedContent(json: "0").kind == .number(0))
        #expect(try GeneratedContent(json: "1E-2").kind == .number(0.01))
    }

    @Test(arguments: [
        // (prefix of a document, the value read so far as compact JSON)
        (#"{"name": "Jo"#, #"{"name":"Jo"}"#),
        (#"{"name": "Jo", "ag"#, #"{"name":"Jo"}"#),
        (#"{"name": "Jo", "age""#, #"{"name":"Jo"}"#),
        (#"{"name": "Jo", "age":"#, #"{"name":"Jo"}"#),
        (#"{"name": "Jo", "age": 3"#, #"{"name":"Jo","age":3}"#),
        (#"{"name": "Jo", "age": 3,"#, #"{"name":"Jo","age":3}"#),
        (#"{"#, "{}"),
        (#"[1, 2, "#, "[1,2]"),
        (#"[1, [2, {"a": tr"#, #"[1,[2,{"a":true}]]"#),
        (#"[fa"#, "[false]"),
        (#"[n"#, "[null]"),
        (#"[-"#, "[]"),
        (#""ab\"#, #""ab""#),
        (#""ab\u00"#, #""ab""#),
        (#""x\ud83d"#, #""x""#),
        (#""x\ud83d\"#, #""x""#),
        (#""x\ud83d\ude"#, #""x""#),
        ("12.", "12"),
        ("1e", "1"),
        ("-", "null"),
        ("", "null"),
        ("  ", "null"),
    ])
    func prefixesGiveIncompleteContent(text: String, expected: String) throws {
        let content = try GeneratedContent(json: text)
        #expect(!content.isComplete, "\(text)")
        #expect(content.jsonString == expected, "\(text)")
    }

    @Test func completenessIsTrackedPerValue() throws {
        let content = try GeneratedContent(json: #"{"done": "yes", "list": [1, 2], "open": [3, "fo"#)
        guard case .structure(let properties, _) = content.kind else {
            Issue.record("expected a structure")
            return
        }
        #expect(properties["done"]!.isComplete)
        #expect(properties["list"]!.isComplete)
        #expect(!properties["open"]!.isComplete)
        guard case .array(let open) = properties["open"]!.kind else {
            Issue.record("expected an array")
            return
        }
        #expect(open[0].isComplete)
        #expect(!open[1].isComplete)
        #expect(open[1].kind == .string("fo"))
    }

    @Test func numberAtEndIsCompleteOnlyAsWholeDocument() throws {
        #expect(try GeneratedContent(json: "12").isComplete)
        #expect(try GeneratedContent(json: "[12]").isComplete)
        let partial = try GeneratedContent(json: "[12")
        guard case .array(let elements) = partial.kind else {
            Issue.record("expected an array")
            return
        }
        #expect(!elements[0].isComplete)
    }

    @Test func literalsAreComplete() throws {
        #expect(try GeneratedContent(json: "true") == GeneratedContent(kind: .bool(true)))
        #expect(try GeneratedContent(json: "null").isComplete)
        #expect(try !GeneratedContent(json: "nul").isComplete)
    }

    @Test(arguments: [
        (#"{"a" 1}"#, 5, "expected ':'"),
        ("[1,]", 3, "expected a JSON value"),
        (#"{"a":1}x"#, 7, "expected the end of the text"),
        ("01", 1, "leading zero"),
        (#"{"a":1,"a":2}"#, 7, "duplicate key \"a\""),
        (#""\x""#, 1, "invalid escape sequence"),
        (#""\udc00""#, 1, "unpaired UTF-16 low surrogate"),
        (#""\ud800x""#, 1, "unpaired UTF-16 high surrogate"),
        ("\"a\u{01}\"", 2, "unescaped control character"),
        ("{1:2}", 1, "expected a string key"),
        ("[1 2]", 3, "expected ',' or ']'"),
        (#"{"a":1 "b":2}"#, 7, "expected ',' or '}'"),
        ("tru e", 3, "expected the literal true"),
        ("-a", 1, "expected a digit"),
        ("1.x", 2, "expected a digit"),
        ("@", 0, "expected a JSON value"),
    ])
    func invalidTextThrowsWithOffset(text: String, offset: Int, message: String) {
        do {
            let content = try GeneratedContent(json: text)
            Issue.record("\(text) parsed as \(content)")
        } catch let error as GeneratedContent.JSONError {
            #expect(error.offset == offset, "\(text): \(error)")
            #expect(error.message.contains(message), "\(text): \(error)")
            #expect(error.description.hasPrefix("Invalid JSON at byte offset \(offset): "))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let text = String(repeating: "[", count: 600)
        #expect(throws: GeneratedContent.JSONError.self) { try GeneratedContent(json: text) }
        let allowed = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        #expect(throws: Never.self) { try GeneratedContent(json: allowed) }
    }

    @Test func roundTripsThroughText() throws {
        let original = GeneratedContent(properties: [
            "z": "quote \" and \\ and \u{7}",
            "a": [1, 2.5, -3] as [Double],
            "m": GeneratedContent(properties: ["inner": true, "none": GeneratedContent(kind: .null)]),
        ])
        let reparsed = try GeneratedContent(json: original.jsonString)
        #expect(reparsed == original)
        #expect(reparsed.jsonString == original.jsonString)
        #expect(original.jsonString == #"{"z":"quote \" and \\ and \u0007","a":[1,2.5,-3],"m":{"inner":true,"none":null}}"#)
    }
}

/// Every prefix of a document, as a response streams in, parses without error.
@Suite struct StreamingPrefixTests {
    @Test func everyPrefixParsesAndPrintsValidJSON() throws {
        let document = #"{"title": "Café \"Zoë\" 😀", "days": [{"day": 1, "ok": true, "n": null, "x": -12.5e1}, []], "z": {}}"#
        let scalars = Array(document.unicodeScalars)
        for length in 0...scalars.count {
            var prefix = ""
            prefix.unicodeScalars.append(contentsOf: scalars[0..<length])
            let content = try GeneratedContent(json: prefix)
            #expect(content.isComplete == (length == scalars.count), "prefix \(length): \(prefix)")
            // What was read so far is itself a complete, valid JSON document.
            let reparsed = try GeneratedContent(json: content.jsonString)
            #expect(reparsed.isComplete, "prefix \(length): \(content.jsonString)")
            #expect(reparsed == content, "prefix \(length)")
        }
        let whole = try GeneratedContent(json: document)
        #expect(whole.jsonString == #"{"title":"Café \"Zoë\" 😀","days":[{"day":1,"ok":true,"n":null,"x":-125},[]],"z":{}}"#)
    }
}
