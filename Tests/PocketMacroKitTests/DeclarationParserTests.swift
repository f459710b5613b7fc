import PocketMacroKit
import Testing

@Suite struct DeclarationParserTests {
    @Test func storedPropertiesInOrderOthersSkipped() throws {
        let source = #"""
            /// Docs { with braces }
            @Generable(description: "A \"quoted\" {type}")
            public struct Trip: Equatable, Sendable {
                public let title: String
                @Guide(description: "Days", .count(1...3)) var days: [Day]
                var note: String? = nil
                static var shared: Int = 0
                class var other: Int { 1 }
                var total: Int { days.count }
                var watched: Int = 0 { didSet { print("}") } }
                lazy var cache: [String] = { ["{"] }()
                let constant = 5
                private(set) var a: Int, b: Optional<Double>
                func f() -> String { "}" }
                init(x: Int) { self.title = "\(x)" }
                subscript(i: Int) -> Int { i }
                struct Day: Codable { var n: Int }
                enum Inner { case a }
                typealias Alias = [String: Int]
            }
            """#
        let declaration = try DeclarationParser.parse(source)
        #expect(declaration.kind == .struct && declaration.name == "Trip")
        #expect(declaration.accessLevel == "public")
        #expect(declaration.inheritance == ["Equatable", "Sendable"])
        #expect(declaration.properties.map(\.name) == ["title", "days", "note", "watched", "cache", "a", "b"])
        #expect(declaration.properties.map(\.type) == [
            .named("String", genericArguments: []),
            .array(.named("Day", genericArguments: [])),
            .optional(.named("String", genericArguments: [])),
            .named("Int", genericArguments: []),
            .array(.named("String", genericArguments: [])),
            .named("Int", genericArguments: []),
            .optional(.named("Double", genericArguments: [])),
        ])
        #expect(declaration.properties[0].isLet && !declaration.properties[1].isLet)
        #expect(declaration.properties[2].hasInitialValue)
        let guide = try #require(declaration.properties[1].attributes.first)
        #expect(guide.name == "Guide")
        #expect(guide.arguments?.map(\.label) == ["description", nil])
        #expect(guide.arguments?.map(\.expression) == ["\"Days\"", ".count(1...3)"])
        #expect(guide.offset == offset(of: "@Guide", in: source))
        let generable = try #require(declaration.attributes.first)
        #expect(generable.argument(labeled: "description")?.expression == #""A \"quoted\" {type}""#)
        #expect(declaration.properties[1].offset == offset(of: "days:", in: source))
        #expect(declaration.properties[1].typeText == "[Day]")
    }

    @Test func propertiesOnConsecutiveLinesWithoutSemicolons() throws {
        let declaration = try DeclarationParser.parse("""
            struct S {
                var a: Int = 1 + 2
                var b: [String] = ["x",
                                   "y"]
                    .map { $0 }
                @Guide(description: "c") var c: Double = .pi
                var d: Bool = true
            }
            """)
        #expect(declaration.properties.map(\.name) == ["a", "b", "c", "d"])
    }

    @Test func enumCasesWithAndWithoutAssociatedValues() throws {
        let source = """
            indirect enum Encounter: String {
                case orderCoffee(String), wantToTalkToManager(complaint: String)
                case leave
                case pair(Int, label: [Double]?) // comment
                case raw = "value"
                var computed: Int { 0 }
                static func make() -> Encounter { .leave }
            }
            """
        let declaration = try DeclarationParser.parse(source)
        #expect(declaration.kind == .enum && declaration.modifiers == ["indirect"])
        #expect(declaration.cases.map(\.name) == ["orderCoffee", "wantToTalkToManager", "leave", "pair", "raw"])
        #expect(declaration.cases[1].associatedValues.map(\.label) == ["complaint"])
        #expect(declaration.cases[3].associatedValues.map(\.label) == [nil, "label"])
        #expect(declaration.cases[3].associatedValues[1].type == .optional(.array(.named("Double", genericArguments: []))))
        #expect(declaration.cases[2].associatedValues.isEmpty)
        #expect(declaration.properties.isEmpty)
    }

    @Test func qualifiedAndGenericTypes() throws {
        let declaration = try DeclarationParser.parse("""
            struct S {
                var a: Foundation.Decimal
                var b: Array<Outer.Inner>
                var c: [String: [Int]]
                var d: (Int, String)
                var e: (Int) -> Void
                var f: Set<String>
                var g: any Error
                var h: Int??
            }
            """)
        #expect(declaration.properties.map(\.type) == [
            .named("Foundation.Decimal", genericArguments: []),
            .array(.named("Outer.Inner", genericArguments: [])),
            .dictionary(.named("String", genericArguments: []), .array(.named("Int", genericArguments: []))),
            .tuple([.named("Int", genericArguments: []), .named("String", genericArguments: [])]),
            .function,
            .named("Set", genericArguments: [.named("String", genericArguments: [])]),
            .opaque,
            .optional(.optional(.named("Int", genericArguments: []))),
        ])
    }

    @Test func errorsPointAtTheOffendingText() throws {
        let cases: [(String, String, String)] = [
            ("struct S {\n    var inferred = 3\n}", "inferred", "type annotation"),
            ("struct S {\n    var (a, b): (Int, Int)\n}", "(a, b)", "tuple patterns"),
            ("struct S {\n    #if DEBUG\n    var a: Int\n    #endif\n}", "#if", "#if"),
            ("struct S {\n    var a: Int\n", "", "expected '}'"),
            ("func notAType() {}", "func", "expected a struct or enum"),
            ("struct S {\n    var a: [Int\n}", "}", "expected ']'"),
        ]
        for (source, needle, message) in cases {
            #expect {
                try DeclarationParser.parse(source)
            } throws: { error in
                guard let error = error as? MacroError else { return false }
                let expected = needle.isEmpty ? source.utf8.count : offset(of: needle, in: source)
                return error.offset == expected && error.message.contains(message)
            }
        }
    }

    @Test func attributeArgumentsKeepTheirSourceText() throws {
        let attribute = try DeclarationParser.parseAttribute(#"@Guide(description: "a, b", .anyOf(["x", "y"]), /a,b/)"#)
        #expect(attribute.arguments?.map(\.expression) == [#""a, b""#, #".anyOf(["x", "y"])"#, "/a,b/"])
        let bare = try DeclarationParser.parseAttribute("@Generable")
        #expect(bare.name == "Generable" && bare.arguments == nil)
        let qualified = try DeclarationParser.parseAttribute("@FoundationModels.Generable()")
        #expect(qualified.name == "Generable" && qualified.arguments?.isEmpty == true)
    }
}
