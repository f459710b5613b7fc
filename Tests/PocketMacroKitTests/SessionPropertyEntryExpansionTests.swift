import PocketMacroKit
import Testing

/// `@SessionPropertyEntry`'s two roles on the declarations Apple's documentation writes, and
/// its errors.
@Suite struct SessionPropertyEntryExpansionTests {
    @Test func aPropertyBecomesAKeyAndAccessors() throws {
        let expansion = try SessionPropertyEntryExpansion(declarationSource: #"@SessionPropertyEntry var tone: String = "calm""#)
        #expect(expansion.name == "tone" && expansion.type == "String" && expansion.defaultValue == #""calm""#)
        #expect(expansion.keyDeclaration == """
            private struct __Key_tone: SessionPropertyKey {
                static var defaultValue: String { "calm" }
            }
            """)
        #expect(expansion.accessors == """
            get { self[__Key_tone.self] }
            set { self[__Key_tone.self] = newValue }
            """)
    }

    @Test func typesWithBracketsAndDefaultsWithOperators() throws {
        let dictionary = try SessionPropertyEntryExpansion(
            declarationSource: "@SessionPropertyEntry public var limits: [String: Int] = [\"a\": 1 + 2]")
        #expect(dictionary.type == "[String: Int]" && dictionary.defaultValue == "[\"a\": 1 + 2]")
        let generic = try SessionPropertyEntryExpansion(
            declarationSource: "@SessionPropertyEntry\n    var picked: Set<Int>? = nil")
        #expect(generic.name == "picked" && generic.type == "Set<Int>?" && generic.defaultValue == "nil")
        let closure = try SessionPropertyEntryExpansion(
            declarationSource: "@SessionPropertyEntry var score: (Int) -> Bool = { $0 > 3 }")
        #expect(closure.type == "(Int) -> Bool" && closure.defaultValue == "{ $0 > 3 }")
    }

    @Test func declarationsItCannotExpandAreErrors() {
        func message(_ source: String) -> String? {
            do {
                _ = try SessionPropertyEntryExpansion(declarationSource: source)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(message("@SessionPropertyEntry let tone: String = \"calm\"")?.contains("needs a `var`") == true)
        #expect(message("@SessionPropertyEntry var tone = \"calm\"")?.contains("needs the property's type") == true)
        #expect(message("@SessionPropertyEntry var tone: String")?.contains("needs a default value") == true)
        #expect(message("@SessionPropertyEntry func tone() {}")?.contains("applies to a property") == true)
    }

    @Test func theHandlerExpandsBothRolesAndReportsErrorsOnce() {
        let handler = PluginMessageHandler()
        let source = "@SessionPropertyEntry var isExamMode: Bool = false"
        let peer = handler.expand(macro: "SessionPropertyEntryMacro", role: "peer", declarationSource: source, extendedType: nil, conformances: nil)
        #expect(peer.source?.contains("private struct __Key_isExamMode: SessionPropertyKey") == true && peer.errors.isEmpty)
        let accessor = handler.expand(macro: "SessionPropertyEntryMacro", role: "accessor", declarationSource: source, extendedType: nil, conformances: nil)
        #expect(accessor.source?.contains("get { self[__Key_isExamMode.self] }") == true)
        let bad = "@SessionPropertyEntry var isExamMode = false"
        #expect(handler.expand(macro: "SessionPropertyEntryMacro", role: "peer", declarationSource: bad, extendedType: nil, conformances: nil).errors.count == 1)
        #expect(handler.expand(macro: "SessionPropertyEntryMacro", role: "accessor", declarationSource: bad, extendedType: nil, conformances: nil).errors.isEmpty)
    }
}
