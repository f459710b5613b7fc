import Foundation
import Testing

/// `pocket generate --schema`: a value of the schema, its forced text (keys, punctuation)
/// evaluated without sampling, and within `-n` tokens.
@Suite(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"), .serialized)
struct GenerateSchemaTests {
    static let schema = #"{"type":"object","properties":{"name":{"type":"string","maxLength":20},"color":{"enum":["black","white","orange"]},"age":{"type":"integer","minimum":0,"maximum":20}},"required":["name","color","age"],"additionalProperties":false}"#

    @Test func theValueFollowsTheSchema() throws {
        let schema = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-generate-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: schema) }
        try Data(Self.schema.utf8).write(to: schema)
        let result = try runPocket(["generate", "--model", smolLM2URL.path, "--greedy", "-n", "60", "--schema", schema.path,
                                    "A cat, described as JSON:"])
        #expect(result.status == 0, "\(result.errors)")
        let text = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let value = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text)")
        #expect(Set(value.keys) == ["name", "color", "age"])
        #expect(["black", "white", "orange"].contains(value["color"] as? String ?? ""))
        #expect((0...20).contains(value["age"] as? Int ?? -1))
    }

    /// A limit shorter than the value stops it there, forced text included.
    @Test func theTokenLimitHolds() throws {
        let schema = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-generate-\(UUID()).json")
        defer { try? FileManager.default.removeItem(at: schema) }
        try Data(Self.schema.utf8).write(to: schema)
        let result = try runPocket(["generate", "--model", smolLM2URL.path, "--greedy", "-n", "3", "--schema", schema.path,
                                    "A cat, described as JSON:"])
        #expect(result.errors.contains("3 tokens") || result.status != 0, "\(result.errors)")
        // At most three tokens: `{"` and a few key bytes at the very most.
        #expect(result.output.utf8.count <= 12, "\(result.output)")
    }
}
