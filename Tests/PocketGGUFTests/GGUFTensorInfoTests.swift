import Testing
@testable import PocketGGUF

@Suite("GGUFTensorInfo")
struct GGUFTensorInfoTests {
    @Test func sizes() {
        let t = GGUFTensorInfo(name: "w", dimensions: [64, 3, 2], type: .q8_0, offset: 0)
        #expect(t.elementCount == 384)
        #expect(t.rowCount == 6)
        #expect(t.byteCount == 6 * 2 * 34)
    }

    @Test func invalidShapes() {
        #expect(GGUFTensorInfo.byteCount(dimensions: [], type: .f32) == nil)
        #expect(GGUFTensorInfo.byteCount(dimensions: [1, 1, 1, 1, 1], type: .f32) == nil)
        #expect(GGUFTensorInfo.byteCount(dimensions: [4, 0], type: .f32) == nil)
        #expect(GGUFTensorInfo.byteCount(dimensions: [4, -1], type: .f32) == nil)
        #expect(GGUFTensorInfo.byteCount(dimensions: [48], type: .q4_0) == nil)
        #expect(GGUFTensorInfo.byteCount(dimensions: [1 << 31, 1 << 31, 1 << 2], type: .f32) == nil)  // bytes overflow
        #expect(GGUFTensorInfo.byteCount(dimensions: [256, 2], type: .q6_K) == 420)
    }
}
