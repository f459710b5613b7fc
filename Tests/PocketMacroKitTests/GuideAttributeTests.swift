import PocketMacroKit
import Testing

@Suite struct GuideAttributeTests {
    func guide(_ source: String) throws -> GuideAttribute {
        try GuideAttribute(DeclarationParser.parseAttribute(source))
    }

    @Test func descriptionAndGuidesAreCopiedVerbatim() throws {
        let read = try guide(#"@Guide(description: "The age", .range(0...20), .minimum(1))"#)
        #expect(read.description == #""The age""#)
        #expect(read.guides == [".range(0...20)", ".minimum(1)"])
        #expect(try guide(#"@Guide(description: "Only words")"#).guides.isEmpty)
        #expect(try guide("@Guide(.count(4))").description == nil)
    }

    @Test func regexLiteralsBecomePatternSources() throws {
        #expect(try guide(#"@Guide(description: "d", /[A-Z]\d{2}"x"/)"#).guides == [#".pattern(source: "[A-Z]\\d{2}\"x\"")"#])
        #expect(try guide(#"@Guide(#/a/b/#)"#).guides == [#".pattern(source: "a/b")"#])
        #expect(try guide(#"@Guide(Regex("[a-z]+\\d"))"#).guides == [#".pattern(source: "[a-z]+\\d")"#])
        #expect(try guide(##"@Guide(try! Regex(#"\w+"#))"##).guides == [##".pattern(source: #"\w+"#)"##])
    }

    @Test func unreadableArgumentsAreErrors() throws {
        for (source, needle) in [
            (#"@Guide(label: "x")"#, "label"),
            ("@Guide(description: \"d\", 5)", "5"),
            ("@Guide(Regex(pattern))", "Regex"),
            ("@Guide(makeGuide())", "makeGuide"),
        ] {
            #expect {
                try guide(source)
            } throws: { error in
                (error as? MacroError)?.offset == offset(of: needle, in: source)
            }
        }
    }
}
