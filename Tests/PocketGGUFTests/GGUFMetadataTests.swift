import Testing
@testable import PocketGGUF

@Suite("GGUFMetadata")
struct GGUFMetadataTests {
    let metadata = GGUFMetadata([
        ("name", .string("pocket")),
        ("layers", .uint32(30)),
        ("eps", .float32(1e-5)),
        ("flag", .bool(true)),
        ("tokens", .array([.string("a"), .string("b")])),
        ("ids", .array([.int32(1), .uint64(2)])),
        ("mixed", .array([.int32(1), .string("x")])),
    ])

    @Test func orderAndLookup() {
        #expect(metadata.keys == ["name", "layers", "eps", "flag", "tokens", "ids", "mixed"])
        #expect(metadata.count == 7)
        #expect(metadata["layers"] == .uint32(30))
        #expect(metadata["absent"] == nil)
    }

    @Test func repeatedKeyKeepsFirstPositionLastValue() {
        let m = GGUFMetadata([("a", .uint8(1)), ("b", .uint8(2)), ("a", .uint8(3))])
        #expect(m.keys == ["a", "b"])
        #expect(m["a"] == .uint8(3))
    }

    @Test func optionalAccessors() {
        #expect(metadata.string("name") == "pocket")
        #expect(metadata.integer("layers") == 30)
        #expect(metadata.float("eps") == Double(Float(1e-5)))
        #expect(metadata.float("layers") == 30)
        #expect(metadata.bool("flag") == true)
        #expect(metadata.strings("tokens") == ["a", "b"])
        #expect(metadata.integers("ids") == [1, 2])
        #expect(metadata.floats("ids") == [1, 2])
        #expect(metadata.strings("mixed") == nil)
        #expect(metadata.strings("name") == nil)
        #expect(metadata.integer("name") == nil)
    }

    @Test func requiredAccessors() throws {
        #expect(try metadata.requiredString("name") == "pocket")
        #expect(try metadata.requiredInteger("layers") == 30)
        #expect(try metadata.requiredFloat("eps") == Double(Float(1e-5)))
        #expect(throws: GGUFError(.missingKey, "missing metadata key 'nope' (expected an integer)")) {
            try metadata.requiredInteger("nope")
        }
        #expect(throws: GGUFError(.wrongType, "metadata key 'layers' is uint32 30, expected a string")) {
            try metadata.requiredString("layers")
        }
        do {
            _ = try metadata.requiredFloat("name")
        } catch {
            #expect(error.description == "GGUF: metadata key 'name' is string \"pocket\", expected a number")
        }
    }

    /// A present key of the wrong type is an error, never silently absent.
    @Test func optionalAccessorsRejectWrongTypes() throws {
        let m = GGUFMetadata([
            ("n", .uint32(7)), ("huge", .uint64(1 << 63)), ("text", .string("4096")), ("flag", .bool(true)),
            ("ids", .array([.int32(1), .int32(2)])), ("mixed", .array([.int32(1), .string("x")])),
        ])
        #expect(try m.optionalInteger("n") == 7)
        #expect(try m.optionalInteger("absent") == nil)
        #expect(try m.optionalIntegers("ids") == [1, 2])
        #expect(try m.optionalBool("flag") == true)
        #expect(throws: GGUFError(.wrongType, "metadata key 'huge' is uint64 9223372036854775808, expected an integer that fits Int")) {
            try m.optionalInteger("huge")
        }
        #expect(throws: GGUFError(.wrongType, "metadata key 'text' is string \"4096\", expected an integer that fits Int")) {
            try m.optionalInteger("text")
        }
        #expect(throws: GGUFError.self) { try m.optionalBool("n") }
        #expect(throws: GGUFError.self) { try m.optionalString("flag") }
        #expect(throws: GGUFError.self) { try m.optionalFloat("text") }
        #expect(throws: GGUFError(.wrongType, "metadata key 'mixed' is array of 2 int32, expected an array of integers")) {
            try m.optionalIntegers("mixed")
        }
        #expect(throws: GGUFError.self) { try m.optionalStrings("ids") }
    }
}
