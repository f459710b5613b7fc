import Testing
@testable import PocketGGUF

/// GGMLType's on-disk numbers, names and sizes against gguf-py's table (Fixtures/ggml_types.json).
@Suite("GGMLType")
struct GGMLTypeTests {
    @Test func matchesGGUFPy() throws {
        let table = try #require(try JSON.load("ggml_types.json").array)
        let byNumber = Dictionary(uniqueKeysWithValues: table.map { ($0["type"]!.int!, $0) })
        for type in GGMLType.allCases {
            let entry = try #require(byNumber[Int(type.rawValue)], "gguf-py does not know \(type)")
            #expect(entry["name"]?.string == type.name.lowercased())
            #expect(entry["block_size"]?.int == type.blockSize, "\(type)")
            if type == .q8_1 {
                // gguf-py still lists the old 40-byte block (two f32 scales); ggml's block_q8_1
                // has two f16 scales and 32 int8: 36 bytes. Q8_1 is an activation format that
                // never appears in files.
                #expect(type.typeSize == 2 * 2 + 32)
            } else {
                #expect(entry["type_size"]?.int == type.typeSize, "\(type)")
            }
        }
    }

    @Test func byteCountOfRows() {
        #expect(GGMLType.q4_1.byteCount(elements: 64) == 40)
        #expect(GGMLType.q4_1.byteCount(elements: 63) == nil)
        #expect(GGMLType.f32.byteCount(elements: 3) == 12)
        #expect(GGMLType.q2_K.byteCount(elements: Int.max / 2) == nil)
    }
}
