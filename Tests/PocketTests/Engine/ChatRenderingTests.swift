import Foundation
import PocketGrammar
import PocketTokenizer
@testable import Pocket
import Testing

/// Tool-call grammars lowered straight from the tools' `GenerationSchema`s.
@Suite struct ChatRenderingTests {
    typealias V = ScriptedVocabulary

    enum First { @Generable struct Place { var city: String } }
    enum Second { @Generable struct Place { var zip: Int } }
    @Generable struct FirstArguments { var place: First.Place }
    @Generable struct SecondArguments { var place: Second.Place }

    static func definition(_ name: String, _ schema: GenerationSchema) throws -> RenderedToolDefinition {
        RenderedToolDefinition(Transcript.ToolDefinition(name: name, description: name, parameters: schema))
    }

    static func grammar(native: Bool) throws -> CompiledGrammar {
        let template = native ? V.nativeTemplate : ChatTemplate(template: "{{ '<|im_start|>' }}")
        let rendering = ChatRendering(template: template, tokenizer: V.tokenizer)
        let tools = [try definition("a", FirstArguments.generationSchema), try definition("b", SecondArguments.generationSchema)]
        return try CompiledGrammar(try rendering.callSchema(tools), whitespace: TransformerContext.callWhitespace)
    }

    /// Two tools whose argument types share a definition name each keep their own.
    @Test func eachToolKeepsItsOwnDefinitions() throws {
        let grammar = try Self.grammar(native: true)
        #expect(grammar.accepts(Array(#"{"name":"a","arguments":{"place":{"city":"X"}}}"#.utf8)))
        #expect(grammar.accepts(Array(#"{"name":"b","arguments":{"place":{"zip":7}}}"#.utf8)))
        #expect(!grammar.accepts(Array(#"{"name":"a","arguments":{"place":{"zip":7}}}"#.utf8)))
        #expect(!grammar.accepts(Array(#"{"name":"c","arguments":{"place":{"zip":7}}}"#.utf8)))
    }

    @Test func callsAcceptJSONWhitespace() throws {
        let grammar = try Self.grammar(native: true)
        #expect(grammar.accepts(Array("{\n  \"name\": \"b\",\n  \"arguments\": {\n    \"place\": { \"zip\": 7 }\n  }\n}".utf8)))
    }

    @Test func pocketsFormatIsAnArrayOfCalls() throws {
        let grammar = try Self.grammar(native: false)
        #expect(grammar.accepts(Array(#"[{"name":"a","arguments":{"place":{"city":"X"}}},{"name":"b","arguments":{"place":{"zip":7}}}]"#.utf8)))
        #expect(!grammar.accepts(Array("[]".utf8)))
        #expect(!grammar.accepts(Array(#"{"name":"a","arguments":{"place":{"city":"X"}}}"#.utf8)))
    }
}
