import Foundation
import Testing
@testable import PocketGrammar

/// Compiles a JSON Schema and checks documents against it byte by byte.
struct SchemaProbe {
    let grammar: CompiledGrammar

    init(_ schema: String, patterns: JSONSchemaImport.PatternMatching = .search) throws {
        grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: schema, patterns: patterns))
    }

    func accepts(_ document: String) -> Bool { grammar.accepts(Array(document.utf8)) }

    /// Records an issue for every valid document rejected and every invalid one accepted.
    func check(valid: [String], invalid: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        for d in valid where !accepts(d) { Issue.record("valid document rejected: \(d)", sourceLocation: sourceLocation) }
        for d in invalid where accepts(d) { Issue.record("invalid document accepted: \(d)", sourceLocation: sourceLocation) }
    }
}

/// Checks that importing `schema` fails with an error whose description names `keyword` and `path`.
func expectRefusal(_ schema: String, naming keyword: String, at path: String, sourceLocation: SourceLocation = #_sourceLocation) {
    do {
        _ = try JSONSchemaImport.schema(fromJSON: schema)
        Issue.record("imported, expected an error naming \(keyword)", sourceLocation: sourceLocation)
    } catch {
        let text = error.description
        #expect(text.contains(keyword) && text.contains(path), "\(text)", sourceLocation: sourceLocation)
    }
}
