import Foundation
import Testing
@testable import PocketGrammar

/// Random schemas (seeded) must import and compile, or fail with a GrammarError: never trap or
/// hang. Those that compile are walked at random, and every complete document a walk produces
/// must be accepted again from scratch.
@Suite struct SchemaFuzzTests {
    struct Generator {
        var rng: SeededRandom
        mutating func pick<T>(_ items: [T]) -> T { items[Int(rng.next() % UInt64(items.count))] }
        mutating func chance(_ percent: UInt64) -> Bool { rng.next() % 100 < percent }

        static let numbers = ["0", "1", "-3", "2.5", "1e30", "-1e300", "9223372036854776000", String(repeating: "7", count: 40), "1e-7"]
        static let patterns = [#"^[a-z]+$"#, #"\d"#, "^x", "y$", "(a|b)*c", "[^\"]{0,3}", #"\w+@\w+"#, "^$|^z+$", "é+", "a{2,5}", "(?:ab)?", "((("]

        mutating func schema(depth: Int) -> String {
            if depth > 3 || chance(15) { return pick(["true", "{}", #"{"type":"string"}"#, #"{"type":"integer"}"#, ##"{"$ref":"#/$defs/D"}"##, "false"]) }
            var parts: [String] = []
            let types = ["object", "array", "string", "integer", "number", "boolean", "null"]
            if chance(70) { parts.append(chance(80) ? #""type":"\#(pick(types))""# : #""type":["\#(pick(types))","\#(pick(types))"]"#) }
            if chance(30) {
                var props: [String] = []
                for i in 0..<Int(rng.next() % 4) { props.append(#""p\#(i)":\#(schema(depth: depth + 1))"#) }
                parts.append(#""properties":{\#(props.joined(separator: ","))}"#)
            }
            if chance(25) { parts.append(#""required":["p0"\#(chance(50) ? #","q""# : "")]"#) }
            if chance(20) { parts.append(#""additionalProperties":\#(schema(depth: depth + 1))"#) }
            if chance(10) { parts.append(#""patternProperties":{"\#(pick(Self.patterns))":\#(schema(depth: depth + 1))}"#) }
            if chance(20) { parts.append(#""items":\#(schema(depth: depth + 1))"#) }
            if chance(10) { parts.append(#""prefixItems":[\#(schema(depth: depth + 1))]"#) }
            if chance(15) { parts.append(#""minItems":\#(pick(["0", "1", "3"])),"maxItems":\#(pick(["0", "2", "1e20"]))"#) }
            if chance(20) { parts.append(#""minimum":\#(pick(Self.numbers))"#) }
            if chance(20) { parts.append(#""maximum":\#(pick(Self.numbers))"#) }
            if chance(10) { parts.append(#""exclusiveMinimum":\#(pick(Self.numbers + ["true"]))"#) }
            if chance(10) { parts.append(#""multipleOf":\#(pick(["1", "3", "0.5", "0", "1e20"]))"#) }
            if chance(15) { parts.append(#""pattern":"\#(pick(Self.patterns).replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\""))""#) }
            if chance(10) { parts.append(#""format":"\#(pick(JSONSchemaFormats.names + ["iri", "int32"]))""#) }
            if chance(15) { parts.append(#""minLength":\#(pick(["0", "2", "5000", "1e12"])),"maxLength":\#(pick(["1", "4", "100"]))"#) }
            if chance(15) { parts.append(#""enum":[\#(pick(["1", #""a""#, "null", "true"])),\#(pick(["[1]", #"{"k":2}"#, "2.5", #""b""#]))]"#) }
            if chance(8) { parts.append(#""const":\#(pick(["0", #""c""#, "false", "{}"]))"#) }
            for key in ["anyOf", "oneOf", "allOf"] where chance(12) {
                parts.append(#""\#(key)":[\#(schema(depth: depth + 1)),\#(schema(depth: depth + 1))]"#)
            }
            if chance(8) { parts.append(#""not":\#(schema(depth: depth + 1))"#) }
            if chance(5) { parts.append(#""dependentRequired":{"p0":["p1"]}"#) }
            if chance(5) { parts.append(#""uniqueItems":\#(pick(["true", "false"]))"#) }
            if chance(10) { parts.append(#""x-note":{"ignored":true},"title":"t""#) }
            return "{" + parts.joined(separator: ",") + "}"
        }

        mutating func document() -> String {
            var body = schema(depth: 0)
            while !body.hasPrefix("{") { body = schema(depth: 0) }
            let definitions: [String] = [
                ##"{"type":"integer"}"##, ##"{"anyOf":[{"$ref":"#/$defs/D"}]}"##, ##"{"type":"array","items":{"$ref":"#/$defs/D"}}"##,
                ##"{"type":"object","properties":{"d":{"$ref":"#/$defs/D"}},"required":["d"]}"##, ##"{"$ref":"#/$defs/D"}"##,
            ]
            let definition = pick(definitions)
            let separator = body.count <= 2 ? "" : ","
            return String(body.dropLast()) + separator + ##""$defs":{"D":"## + definition + "}}"
        }
    }

    @Test func randomSchemasNeverTrapOrHang() throws {
        var generator = Generator(rng: SeededRandom(seed: 14))
        var compiled = 0, refused = 0, walked = 0
        let clock = ContinuousClock()
        let started = clock.now
        for i in 0..<600 {
            let text = generator.document()
            let one = clock.now
            let grammar: CompiledGrammar
            do {
                grammar = try CompiledGrammar(JSONSchemaImport.schema(fromJSON: text))
            } catch {
                refused += 1
                continue
            }
            compiled += 1
            if let document = randomWalk(grammar, SyntheticVocabulary.vocabulary, seed: UInt64(i), limit: 120), document != "<<did not finish>>", !document.isEmpty {
                walked += 1
                #expect(grammar.accepts(Array(document.utf8)), "schema \(text): walk produced \(document), rejected from scratch")
            }
            #expect(clock.now - one < .seconds(5), "schema \(i) took \(clock.now - one): \(text)")
        }
        #expect(compiled > 100 && refused > 50, "\(compiled) compiled, \(refused) refused: the generator should exercise both")
        #expect(walked > 50)
        #expect(clock.now - started < .seconds(40))
    }
}
