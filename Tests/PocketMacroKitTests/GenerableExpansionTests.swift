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
            (#"@Generable(name: "x") struct S { var a: Int }"#, "name:", "only a description"),
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
