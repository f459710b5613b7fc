import Testing
@testable import PocketGGUF

@Suite("GGUFError")
struct GGUFErrorTests {
    @Test func descriptions() {
        #expect(GGUFError.truncated(need: 8, at: 1234, fileSize: 1236, what: "tensor count").description
            == "GGUF: truncated file: need 8 bytes at offset 1234 for tensor count, file has 1236")
        #expect(GGUFError(.duplicateTensor, offset: 40, "duplicate tensor name 'w'").description
            == "GGUF: duplicate tensor name 'w' (at offset 40)")
        #expect(GGUFError(.missingKey, "missing metadata key 'k'").description == "GGUF: missing metadata key 'k'")
    }

    @Test func equality() {
        #expect(GGUFError(.truncated, offset: 1, "x") == GGUFError(.truncated, offset: 1, "x"))
        #expect(GGUFError(.truncated, offset: 1, "x") != GGUFError(.truncated, offset: 2, "x"))
    }

    @Test func kindsAreDistinctAndNamed() {
        let kinds = GGUFError.Kind.allCases
        #expect(kinds.count == 19)
        #expect(Set(kinds).count == kinds.count)
        #expect(Set(kinds.map(\.description)).count == kinds.count)
        #expect(GGUFError.Kind.truncated.description == "truncated")
        #expect(GGUFError.Kind.truncated != .outOfBounds)
    }
}
