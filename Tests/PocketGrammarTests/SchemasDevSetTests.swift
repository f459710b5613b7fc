import Foundation
import Testing
@testable import PocketGrammar

/// The JSON Schema development set (MaskBench/JSONSchemaBench) in `../shared/golden/schemas-dev`:
/// at least 95% of the schemas compile, every valid instance is accepted and every invalid one
/// rejected; the schemas refused are the exceptions listed in docs/grammar.md. Grammar only
/// (instances are checked byte by byte), so it stays fast. Skipped when the set is absent.
@Suite struct SchemasDevSetTests {
    static let directory = TestModel.packageRoot.appendingPathComponent("../shared/golden/schemas-dev")
    static var isPresent: Bool { FileManager.default.fileExists(atPath: directory.path) }

    /// Schemas refused on purpose, with the reason (docs/grammar.md lists them too).
    static let exceptions: [String: String] = [
        "Github_hard---o69430.json": "`$` inside a repeated group: `(…($|\\/))*`",
        "Github_hard---o76580.json": "oneOf branches that may overlap and cannot be kept apart without negation",
        "Github_trivial---o25751.json": "oneOf branches that may overlap and cannot be kept apart without negation",
        "Github_trivial---o25761.json": "oneOf branches that may overlap and cannot be kept apart without negation",
    ]

    @Test(.enabled(if: isPresent, "needs ../shared/golden/schemas-dev"))
    func devSetCompilesAndEnforcesExactly() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).filter { $0.hasSuffix(".json") }.sorted()
        var compiled = 0
        var refused: [String] = []
        for file in files {
            let data = try Data(contentsOf: Self.directory.appendingPathComponent(file))
            // Pocket's own parser keeps key order: properties are generated in schema order.
            let entry = try JSONValue.parse(Array(data))
            let grammar: CompiledGrammar
            do { grammar = try CompiledGrammar(JSONSchemaImport.schema(from: entry["schema"]!)) } catch {
                refused.append(file)
                #expect(Self.exceptions[file] != nil, "\(file) refused and not a listed exception: \(error)")
                continue
            }
            compiled += 1
            guard case .array(let cases)? = entry["cases"] else { Issue.record("\(file): no cases"); continue }
            for instance in cases {
                guard case .string(let json)? = instance["json"], case .bool(let valid)? = instance["valid"] else { continue }
                #expect(grammar.accepts(Array(json.utf8)) == valid, "\(file): \(valid ? "valid" : "invalid") instance \(json.prefix(200))")
            }
        }
        #expect(Double(compiled) >= 0.95 * Double(files.count), "\(compiled)/\(files.count) compiled")
        #expect(files.count >= 300)
    }
}
