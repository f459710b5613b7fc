import PocketMacroKit
import Testing

@Suite struct LexerTests {
    func texts(_ source: String) throws -> [String] {
        try Lexer.tokenize(source).map(\.text)
    }

    @Test func bracesInsideCommentsAndLiteralsAreNotTokens() throws {
        let source = #"""
            /* { /* nested } */ } */ a // }
            "x { \(f("}")) }" #"raw \(no) " } "# """
              multi { "quoted" }
              """ b
            """#
        let tokens = try Lexer.tokenize(source)
        #expect(tokens.map(\.kind) == [.identifier, .stringLiteral, .stringLiteral, .stringLiteral, .identifier])
        #expect(tokens.filter { $0.isSymbol("{") || $0.isSymbol("}") }.isEmpty)
        #expect(tokens[2].text == ##"#"raw \(no) " } "#"##)
    }

    @Test func offsetsAreUTF8ByteOffsets() throws {
        let source = "let é = \"ü\"; x"
        let tokens = try Lexer.tokenize(source)
        let x = try #require(tokens.last)
        #expect(x.text == "x")
        #expect(x.start == offset(of: "; x", in: source)! + 2)
        #expect(tokens[1].text == "é" && tokens[1].end - tokens[1].start == 2)
    }

    @Test func rangesAndOptionalsSplitAsTypesRead() throws {
        #expect(try texts(".range(0...20)") == [".", "range", "(", "0", "...", "20", ")"])
        #expect(try texts("[Array<Int>?]!") == ["[", "Array", "<", "Int", ">", "?", "]", "!"])
        #expect(try texts("Set<Set<Int>>") == ["Set", "<", "Set", "<", "Int", ">", ">"])
        #expect(try texts("1.5e-3 0x1F 1_000") == ["1.5e-3", "0x1F", "1_000"])
        #expect(try texts("`default`: Int") == ["default", ":", "Int"])
    }

    @Test func regexLiteralsVersusDivision() throws {
        let regex = try Lexer.tokenize(#"(description: "a", /[a/]+\/x/)"#)
        #expect(regex.contains { $0.kind == .regexLiteral && $0.text == #"/[a/]+\/x/"# })
        let extended = try Lexer.tokenize("(#/a/b/#)")
        #expect(extended[1].kind == .regexLiteral && extended[1].text == "#/a/b/#")
        let division = try Lexer.tokenize("= a / b / c")
        #expect(!division.contains { $0.kind == .regexLiteral })
    }

    @Test func unterminatedConstructsAreErrorsAtTheirStart() throws {
        for (source, needle) in [
            ("a \"never closed", "\""), ("a /* open", "/*"), ("x \"\"\"\nmulti", "\"\"\""),
            ("(/unclosed", "/unclosed"), ("#\"raw\" ", "#\""), ("`tick", "`"),
        ] {
            #expect {
                try Lexer.tokenize(source)
            } throws: { error in
                (error as? MacroError)?.offset == offset(of: needle, in: source)
            }
        }
    }
}
