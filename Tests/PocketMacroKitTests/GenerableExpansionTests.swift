import PocketMacroKit
import Testing

@Suite struct GenerableExpansionTests {
    @Test func structMembersFollowDeclarationOrder() throws {
        let expansion = try GenerableExpansion(declarationSource: """
            @Generable(description: "A cat")
            struct Cat {
                @Guide(description: "Age", .range(0...20)) var age: Int
                var `default`: String?
                let fixed = 1
            }
            """)
        let members = expansion.memberDeclarations()
        #expect(members.contains(#"GenerationSchema(type: Self.self, description: "A cat", properties: ["#))
        #expect(members.contains(#"GenerationSchema.Property(name: "age", description: "Age", type: Int.self, guides: [.range(0...20)])"#))
        #expect(members.contains(#"GenerationSchema.Property(name: "default", type: String?.self)"#))
        #expect(!members.contains("fixed"))
        #expect(members.contains("var `default`: String.PartiallyGenerated?"))
        let schemaAge = try #require(offset(of: "\"age\"", in: members))
        let schemaDefault = try #require(offset(of: "\"default\"", in: members))
        #expect(schemaAge < schemaDefault)
        let ext = expansion.extensionDeclaration(extendedType: "Outer.Cat", addConformance: true)
        #expect(ext.hasPrefix("extension Outer.Cat: Generable {"))
        #expect(ext.contains(#"self.`default` = try content.value(forProperty: "default")"#))
        #expect(!expansion.extensionDeclaration(extendedType: "Cat", addConformance: false).contains(": Generable"))
    }

    @Test func publicTypesGetPublicMembers() throws {
        let expansion = try GenerableExpansion(declarationSource: "public struct P { public var a: Int }")
        let members = expansion.memberDeclarations()
        #expect(members.contains("public nonisolated static var generationSchema"))
        #expect(members.contains("public nonisolated var generatedContent"))
        #expect(members.contains("public struct PartiallyGenerated"))
        #expect(members.contains("public var a: Int.PartiallyGenerated?"))
        #expect(expansion.extensionDeclaration(extendedType: "P", addConformance: true).contains("public nonisolated init"))
        let internalMembers = try GenerableExpansion(declarationSource: "struct P { var a: Int }").memberDeclarations()
        #expect(!internalMembers.contains("public"))
    }

    @Test func enumsWithoutValuesAreStringChoices() throws {
        let members = try GenerableExpansion(declarationSource: "enum Kind { case a, b\n case `c` }").memberDeclarations()
        #expect(members.contains(#"anyOf: ["a", "b", "c"]"#))
    }

    @Test func enumsWithValuesUseCases() throws {
        let expansion = try GenerableExpansion(declarationSource: """
            enum E {
                case one(String)
                case two(label: Int, [Double])
                case three
            }
            """)
        let members = expansion.memberDeclarations()
        #expect(members.contains(#"GenerationSchema.EnumCase(name: "one", type: String.self)"#))
        #expect(members.contains(#"GenerationSchema.EnumCase(name: "two", properties: [GenerationSchema.Property(name: "label", type: Int.self), GenerationSchema.Property(name: "_1", type: [Double].self)])"#))
        #expect(members.contains(#"GenerationSchema.EnumCase(name: "three")"#))
        let ext = expansion.extensionDeclaration(extendedType: "E", addConformance: true)
        #expect(ext.contains(#"self = .two(label: try payload.value(forProperty: "label"), try payload.value(forProperty: "_1"))"#))
    }

    /// `representNilExplicitlyInGeneratedContent: true`: the schema gets the flag and a `nil`
    /// optional property is written as its own content (`null`), not left out.
    @Test func representNilExplicitlyWritesOptionalsAsTheirContent() throws {
        let expansion = try GenerableExpansion(declarationSource: """
            @Generable(description: "A novel", representNilExplicitlyInGeneratedContent: true)
            struct Novel {
                var title: String
                @Guide(description: "Subtitle") var subtitle: String?
                var `default`: [Int]?
            }
            """)
        #expect(expansion.representsNilExplicitly)
        let members = expansion.memberDeclarations()
        #expect(members.contains(
            #"GenerationSchema(type: Self.self, description: "A novel", representNilExplicitlyInGeneratedContent: true, properties: ["#))
        #expect(members.contains(#"GenerationSchema.Property(name: "subtitle", description: "Subtitle", type: String?.self)"#))
        #expect(members.contains(#""title": self.title,"#))
        #expect(members.contains(#""subtitle": self.subtitle.generatedContent,"#))
        #expect(members.contains(#""default": self.`default`.generatedContent,"#))
        #expect(!members.contains(".renamed("))
        // Reading accepts a missing key and null alike: the optional read is unchanged.
        let ext = expansion.extensionDeclaration(extendedType: "Novel", addConformance: true)
        #expect(ext.contains(#"self.subtitle = try content.value(forProperty: "subtitle")"#))
    }

    /// Without the flag, or with `false`, nothing changes: `nil` properties are left out.
    @Test func representNilFalseIsTheDefault() throws {
        for attribute in ["@Generable", "@Generable(representNilExplicitlyInGeneratedContent: false)", #"@Generable(description: "d")"#] {
            let expansion = try GenerableExpansion(declarationSource: "\(attribute)\nstruct S { var a: Int?\n var b: Int }")
            #expect(!expansion.representsNilExplicitly, "\(attribute)")
            let members = expansion.memberDeclarations()
            #expect(!members.contains("representNilExplicitlyInGeneratedContent"), "\(attribute)")
            #expect(members.contains(#""a": self.a,"#), "\(attribute)")
            #expect(!members.contains("generatedContent,"), "\(attribute)")
        }
    }

    /// `@Generable(name:)` renames the schema of structs, plain enums and enums with values.
    @Test func nameRenamesTheSchema() throws {
        let book = try GenerableExpansion(declarationSource: """
            @Generable(name: "Book", description: "A novel", representNilExplicitlyInGeneratedContent: true)
            struct Novel { var title: String? }
            """).memberDeclarations()
        #expect(book.contains(#"GenerationSchema(type: Self.self, description: "A novel", representNilExplicitlyInGeneratedContent: true, properties: ["#))
        #expect(book.contains(#"    ]).renamed("Book")"#))
        let kind = try GenerableExpansion(declarationSource: #"@Generable(name: "Genre") enum Kind { case a, b }"#).memberDeclarations()
        #expect(kind.contains(#"GenerationSchema(type: Self.self, description: nil, anyOf: ["a", "b"]).renamed("Genre")"#))
        let event = try GenerableExpansion(declarationSource: #"@Generable(name: "Happening") enum E { case a(Int) }"#).memberDeclarations()
        #expect(event.contains(#"    ]).renamed("Happening")"#))
    }

    /// In an enum, the flag reaches the schema and the optional values of labeled payloads.
    @Test func representNilExplicitlyAppliesToEnumPayloads() throws {
        let members = try GenerableExpansion(declarationSource: """
            @Generable(representNilExplicitlyInGeneratedContent: true)
            enum Event {
                case meeting(title: String, room: String?)
                case note(String?)
                case holiday
            }
            """).memberDeclarations()
        #expect(members.contains("GenerationSchema(type: Self.self, description: nil, representNilExplicitlyInGeneratedContent: true, cases: ["))
        #expect(members.contains(#"GeneratedContent(properties: ["meeting": GeneratedContent(properties: ["title": value0, "room": value1.generatedContent])])"#))
        #expect(members.contains(#"GeneratedContent(properties: ["note": value0])"#))
        let plain = try GenerableExpansion(declarationSource: "enum Event { case meeting(title: String, room: String?) }").memberDeclarations()
        #expect(plain.contains(#"GeneratedContent(properties: ["title": value0, "room": value1])"#))
    }

    /// Each unsupported construct is an error at the construct, never a wrong schema.
    @Test func unsupportedDeclarationsAreDiagnosedWhereTheyAre() throws {
        let cases: [(String, String, String)] = [
            ("struct S { var t: [String: Int] }", "[String", "dictionaries"),
            ("struct S { var t: (Int, Int) }", "(Int", "tuples"),
            ("struct S { var f: () -> Void }", "()", "closures"),
            ("struct S { var s: Set<String> }", "Set", "generic type"),
            ("struct S { var o: [Int?] }", "[Int?]", "optionals"),
            ("struct S { var o: Int?? }", "Int??", "optionals"),
            ("struct S { var a: any Codable }", "any", "'some' and 'any'"),
            ("struct S<T> { var a: T }", "<T>", "generic"),
            ("class C { var a: Int = 0 }", "C {", "structs and enums"),
            ("protocol P { var a: Int { get } }", "P {", "structs and enums"),
            ("enum E {}", "E {", "at least one case"),
            ("enum E { case a((Int, Int)) }", "(Int, Int)", "tuples"),
            ("struct S { var n = 5 }", "n =", "type annotation"),
            (#"struct S { @Guide(descripton: "typo") var a: Int }"#, "descripton", "no argument labeled"),
            (#"@Generable(title: "x") struct S { var a: Int }"#, "title:", "takes name:, description: and representNil"),
            ("@Generable(representNilExplicitlyInGeneratedContent: isOn) struct S { var a: Int? }", "representNil", "literal true or false"),
            ("@Generable(representNilExplicitlyInGeneratedContent: !false) struct S { var a: Int? }", "representNil", "literal true or false"),
        ]
        for (source, needle, message) in cases {
            #expect {
                try GenerableExpansion(declarationSource: source)
            } throws: { error in
                guard let error = error as? MacroError else { return false }
                return error.offset == offset(of: needle, in: source) && error.message.contains(message)
            }
        }
    }
}
