import Foundation
import Testing
@testable import PocketGGUF

/// Files built byte by byte from the spec (not with GGUFWriter), covering every value type,
/// nested arrays, both supported versions and a non-default alignment.
@Suite("Hand-built GGUF files")
struct HandBuiltFileTests {
    /// Every one of the 13 value types, a nested array and an empty array.
    static func allTypesFile(version: UInt32, alignment: UInt32?) -> [UInt8] {
        var b = ByteBuilder()
        b.header(version: version, tensors: 2, keys: alignment == nil ? 16 : 17)
        b.string("t.u8"); b.u32(0); b.u8(200)
        b.string("t.i8"); b.u32(1); b.int(Int8(-100))
        b.string("t.u16"); b.u32(2); b.int(UInt16(60000))
        b.string("t.i16"); b.u32(3); b.int(Int16(-30000))
        b.string("t.u32"); b.u32(4); b.u32(4_000_000_000)
        b.string("t.i32"); b.u32(5); b.int(Int32(-2_000_000_000))
        b.string("t.f32"); b.u32(6); b.u32(Float(1.5).bitPattern)
        b.string("t.bool"); b.u32(7); b.u8(1)
        b.string("t.str"); b.u32(8); b.string("héllo ✓")
        b.string("t.u64"); b.u32(10); b.u64(UInt64.max)
        b.string("t.i64"); b.u32(11); b.int(Int64.min)
        b.string("t.f64"); b.u32(12); b.u64(Double(-0.25).bitPattern)
        // [[1, 2], [3]] as an array (9) of arrays of int16 (3).
        b.string("t.nested"); b.u32(9); b.u32(9); b.u64(2)
        b.u32(3); b.u64(2); b.int(Int16(1)); b.int(Int16(2))
        b.u32(3); b.u64(1); b.int(Int16(3))
        b.string("t.strings"); b.u32(9); b.u32(8); b.u64(2); b.string("a"); b.string("")
        b.string("t.empty"); b.u32(9); b.u32(6); b.u64(0)
        b.string("t.floats"); b.u32(9); b.u32(6); b.u64(2); b.u32(Float(0.5).bitPattern); b.u32(Float(-2).bitPattern)
        if let alignment { b.keyU32("general.alignment", alignment) }
        let align = Int(alignment ?? 32)
        // A 4x2 f32 matrix and a 32-element q8_0 row.
        b.tensor("m", dims: [4, 2], type: 0, offset: 0)
        b.tensor("q", dims: [32], type: 8, offset: UInt64(align))  // 32 bytes of f32 padded to align
        b.pad(to: align)
        for i in 0 ..< 8 { b.u32(Float(i).bitPattern) }
        b.pad(to: align)
        b.raw((0 ..< 34).map { UInt8($0) })
        return b.bytes
    }

    @Test(arguments: [(UInt32(2), UInt32?.none), (3, nil), (3, 64), (2, 128)])
    func everyValueType(version: UInt32, alignment: UInt32?) throws {
        let file = try GGUFFile(data: Data(Self.allTypesFile(version: version, alignment: alignment)))
        let m = file.metadata
        #expect(file.version == version)
        #expect(file.alignment == Int(alignment ?? 32))
        #expect(m["t.u8"] == .uint8(200))
        #expect(m["t.i8"] == .int8(-100))
        #expect(m["t.u16"] == .uint16(60000))
        #expect(m["t.i16"] == .int16(-30000))
        #expect(m["t.u32"] == .uint32(4_000_000_000))
        #expect(m["t.i32"] == .int32(-2_000_000_000))
        #expect(m["t.f32"] == .float32(1.5))
        #expect(m["t.bool"] == .bool(true))
        #expect(m["t.str"] == .string("héllo ✓"))
        #expect(m["t.u64"] == .uint64(.max))
        #expect(m["t.i64"] == .int64(.min))
        #expect(m["t.f64"] == .float64(-0.25))
        #expect(m["t.nested"] == .array([.array([.int16(1), .int16(2)]), .array([.int16(3)])]))
        #expect(m.strings("t.strings") == ["a", ""])
        #expect(m["t.empty"] == .array([]))
        #expect(m.floats("t.floats") == [0.5, -2])
        #expect(Array(m.keys.prefix(3)) == ["t.u8", "t.i8", "t.u16"])

        // Accessors: integers convert across widths, out-of-range u64 does not fit Int.
        #expect(m.integer("t.u32") == 4_000_000_000)
        #expect(m.integer("t.u64") == nil)
        #expect(m.integer("t.i64") == Int(Int64.min))
        #expect(m.float("t.u16") == 60000)
        #expect(m.string("t.u8") == nil)
        #expect(m.integers("t.strings") == nil)

        let align = Int(alignment ?? 32)
        #expect(file.dataOffset % align == 0)
        let matrix = try #require(file.tensor(named: "m"))
        #expect(matrix.dimensions == [4, 2] && matrix.type == .f32 && matrix.rowCount == 2)
        let values = file.bytes(of: matrix).withMemoryRebound(to: Float.self) { Array($0) }
        #expect(values == (0 ..< 8).map(Float.init))
        let q = try #require(file.tensor(named: "q"))
        #expect(q.type == .q8_0 && q.byteCount == 34 && q.offset == align)
        #expect(Array(file.bytes(of: q)) == (0 ..< 34).map { UInt8($0) })
    }

    @Test func noTensorsNoData() throws {
        var b = ByteBuilder()
        b.header(tensors: 0, keys: 1)
        b.keyString("general.architecture", "llama")
        let file = try GGUFFile(data: b.data)
        #expect(file.tensors.isEmpty)
        #expect(file.architecture == "llama")
    }

    @Test func mapsFromDisk() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-gguf-handbuilt-\(UUID()).gguf")
        defer { try? FileManager.default.removeItem(at: url) }
        let bytes = Self.allTypesFile(version: 3, alignment: nil)
        try Data(bytes).write(to: url)
        let mapped = try GGUFFile(contentsOf: url)
        let copied = try GGUFFile(data: Data(bytes))
        #expect(mapped.tensors == copied.tensors)
        #expect(mapped.metadata.keys == copied.metadata.keys)
        #expect(Array(mapped.bytes(of: mapped.tensors[1])) == Array(copied.bytes(of: copied.tensors[1])))
    }
}
