import Foundation
import Testing
@testable import PocketGGUF

/// A fixed file description used to check the writer against an independent reader: the fixture
/// script reads `Fixtures/writer_sample.gguf` (these exact bytes, written by the tests on request
/// and not committed) with `gguf.GGUFReader` and records what it saw, with the file's CRC-32, in
/// `Fixtures/writer_sample.json`.
enum WriterSample {
    static let metadata: [(String, GGUFValue)] = [
        ("general.architecture", .string("llama")),
        ("general.name", .string("pocket writer sample ✓")),
        ("s.u8", .uint8(250)), ("s.i8", .int8(-5)), ("s.u16", .uint16(65000)), ("s.i16", .int16(-32000)),
        ("s.u32", .uint32(3_000_000_000)), ("s.i32", .int32(-7)), ("s.u64", .uint64(1 << 40)),
        ("s.i64", .int64(-(1 << 40))), ("s.f32", .float32(0.125)), ("s.f64", .float64(2.5)),
        ("s.bool", .bool(true)),
        ("a.strings", .array([.string("<s>"), .string("é"), .string("")])),
        ("a.floats", .array([.float32(1), .float32(-0.5)])),
        ("a.ints", .array([.int32(1), .int32(-2), .int32(3)])),
        ("a.empty", .array([])),
        ("a.nested", .array([.array([.uint8(1), .uint8(2)]), .array([.uint8(3)])])),
    ]
    static let tensors: [(name: String, dimensions: [Int], type: GGMLType)] = [
        ("t.f32", [4, 3], .f32), ("t.q8_0", [64, 2], .q8_0), ("t.q4_1", [32], .q4_1), ("t.f16", [8], .f16),
    ]
    static func byte(_ index: Int, ofTensor tensor: Int) -> UInt8 { UInt8(truncatingIfNeeded: index &* 7 &+ tensor) }

    static func writer(alignment: Int = 32) -> GGUFWriter {
        var writer = GGUFWriter(alignment: alignment)
        for (key, value) in metadata { writer.setMetadata(key, value) }
        for t in tensors {
            writer.addTensor(name: t.name, dimensions: t.dimensions, type: t.type,
                             byteCount: GGUFTensorInfo.byteCount(dimensions: t.dimensions, type: t.type)!)
        }
        return writer
    }

    /// Writes the sample, streaming each tensor in chunks of at most 5 bytes.
    static func write(_ writer: GGUFWriter, to url: URL) throws {
        try writer.write(to: url) { index, tensor, sink in
            let bytes = (0 ..< tensor.byteCount).map { byte($0, ofTensor: index) }
            var start = 0
            while start < bytes.count {
                let end = min(start + 5, bytes.count)
                try bytes[start ..< end].withUnsafeBytes { try sink($0) }
                start = end
            }
        }
    }
}

@Suite("GGUFWriter")
struct GGUFWriterTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-gguf-writer-\(UUID())")

    /// Creates this test's scratch directory; callers remove it with `defer`.
    func makeDirectory() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    @Test(arguments: [32, 64, 4096])
    func roundTrip(alignment: Int) throws {
        try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("round-trip-\(alignment).gguf")
        try WriterSample.write(WriterSample.writer(alignment: alignment), to: url)
        let file = try GGUFFile(contentsOf: url)
        #expect(file.version == 3)
        #expect(file.alignment == alignment)
        #expect(file.dataOffset % alignment == 0)
        #expect(file.byteCount % alignment == 0)
        let expectedKeys = WriterSample.metadata.map(\.0)
        #expect(file.metadata.keys == (alignment == 32 ? expectedKeys : ["general.alignment"] + expectedKeys))
        for (key, value) in WriterSample.metadata {
            #expect(file.metadata[key] == value, "\(key)")
        }
        #expect(file.tensors.map(\.name) == WriterSample.tensors.map(\.name))
        for (index, (tensor, expected)) in zip(file.tensors, WriterSample.tensors).enumerated() {
            #expect(tensor.dimensions == expected.dimensions && tensor.type == expected.type)
            #expect(tensor.offset % alignment == 0)
            #expect(Array(file.bytes(of: tensor)) == (0 ..< tensor.byteCount).map { WriterSample.byte($0, ofTensor: index) })
        }
    }

    @Test func iQuantTensorsLoad() throws {
        // Every i-quant and ternary type passes the reader's checks with ggml's block sizes
        // (written out here, independently of GGMLType's table).
        try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("iq.gguf")
        let types: [(GGMLType, weights: Int, bytes: Int)] = [
            (.iq4_nl, 32, 18), (.iq4_xs, 256, 136), (.iq2_xxs, 256, 66), (.iq2_xs, 256, 74), (.iq2_s, 256, 82),
            (.iq3_xxs, 256, 98), (.iq3_s, 256, 110), (.iq1_s, 256, 50), (.iq1_m, 256, 56), (.tq1_0, 256, 54),
            (.tq2_0, 256, 66),
        ]
        var writer = GGUFWriter()
        writer.setMetadata("general.architecture", .string("llama"))
        for (type, weights, _) in types {
            let dimensions = [2 * weights, 3]
            writer.addTensor(name: "t.\(type)", dimensions: dimensions, type: type,
                             byteCount: GGUFTensorInfo.byteCount(dimensions: dimensions, type: type)!)
        }
        try writer.write(to: url) { index, tensor, sink in
            try [UInt8](repeating: UInt8(index + 1), count: tensor.byteCount).withUnsafeBytes { try sink($0) }
        }
        let file = try GGUFFile(contentsOf: url)
        #expect(file.tensors.map(\.type) == types.map(\.0))
        #expect(file.tensors.map(\.byteCount) == types.map { 3 * 2 * $0.bytes })
        #expect(Array(file.bytes(of: file.tensors[1])) == [UInt8](repeating: 2, count: 3 * 2 * 136))
    }

    /// The writer's bytes are the file `gguf.GGUFReader` read, as recorded in writer_sample.json
    /// (its size and CRC-32, then everything the reader saw). To regenerate: run the tests with
    /// POCKET_REGENERATE_FIXTURES=1 (writes Fixtures/writer_sample.gguf, not committed), then the
    /// script.
    @Test func independentReaderAgrees() throws {
        try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        if ProcessInfo.processInfo.environment["POCKET_REGENERATE_FIXTURES"] == "1" {
            try WriterSample.write(WriterSample.writer(), to: TestPaths.fixtures.appendingPathComponent("writer_sample.gguf"))
        }
        let url = directory.appendingPathComponent("sample.gguf")
        try WriterSample.write(WriterSample.writer(), to: url)
        let bytes = try Data(contentsOf: url)

        let python = try JSON.load("writer_sample.json")
        #expect(python["file_size"]?.int == bytes.count)
        #expect(python["crc32"]?.int == Int(crc32(bytes)))
        #expect(python["version"]?.int == 3)
        #expect(python["alignment"]?.int == 32)
        let entries = try #require(python["metadata"]?.array)
        #expect(entries.map { $0["key"]!.string! } == WriterSample.metadata.map(\.0))
        for (entry, (key, value)) in zip(entries, WriterSample.metadata) {
            #expect(entry["type"]?.string == value.valueType.description, "\(key)")
            if let parts = entry["parts"]?.array {
                // Empty or nested array: compare gguf-py's split of the bytes with the spec's
                // layout (type, element type, count, elements); empty arrays are typed string.
                #expect(parts.map { $0.int! } == Self.specParts(value), "\(key)")
            } else if let elements = value.arrayValue {
                #expect(entry["count"]?.int == elements.count, "\(key)")
                #expect(entry["values"]?.array == elements.map { jsonScalar($0)! }, "\(key)")
            } else {
                #expect(entry["value"] == jsonScalar(value), "\(key)")
            }
        }
        let tensors = try #require(python["tensors"]?.array)
        #expect(tensors.count == WriterSample.tensors.count)
        for (index, (entry, expected)) in zip(tensors, WriterSample.tensors).enumerated() {
            #expect(entry["name"]?.string == expected.name)
            #expect(entry["dimensions"]?.array?.map { $0.int! } == expected.dimensions)
            #expect(entry["type"]?.int == Int(expected.type.rawValue))
            #expect(entry["first_bytes"]?.array?.map { UInt8($0.int!) } == (0 ..< 8).map { WriterSample.byte($0, ofTensor: index) })
        }
    }

    /// The numbers gguf-py's reader splits an array of integers (or of such arrays) into:
    /// value type 9, element type, count, then each element (an integer, or its own parts
    /// without the leading 9).
    static func specParts(_ value: GGUFValue, nested: Bool = false) -> [Int] {
        guard let elements = value.arrayValue else { return [value.integerValue!] }
        let elementType = Int((elements.first?.valueType ?? .string).rawValue)
        return (nested ? [] : [9]) + [elementType, elements.count] + elements.flatMap { specParts($0, nested: true) }
    }

    @Test func inMemoryEncodingMatchesFile() throws {
        let writer = WriterSample.writer()
        let data = try writer.encoded { index, tensor, sink in
            try (0 ..< tensor.byteCount).map { WriterSample.byte($0, ofTensor: index) }.withUnsafeBytes { try sink($0) }
        }
        try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("sample.gguf")
        try WriterSample.write(WriterSample.writer(), to: url)
        #expect(data == (try Data(contentsOf: url)))
        let file = try GGUFFile(data: data)
        #expect(file.tensors.count == WriterSample.tensors.count)
    }

    @Test func copiesMetadata() throws {
        let source = WriterSample.writer().metadata
        var writer = GGUFWriter()
        writer.setMetadata("first", .bool(false))
        writer.setMetadata(contentsOf: source)
        #expect(writer.metadata.keys == ["first"] + source.keys)
    }

    @Test func setMetadataReplacesInPlace() {
        var writer = GGUFWriter()
        writer.setMetadata("a", .uint8(1))
        writer.setMetadata("b", .uint8(2))
        writer.setMetadata("a", .string("x"))
        #expect(writer.metadata.keys == ["a", "b"])
        #expect(writer.metadata["a"] == .string("x"))
    }

    @Test func rejectsInvalidInput() throws {
        func error(_ configure: (inout GGUFWriter) -> Void) -> GGUFError? {
            var writer = GGUFWriter()
            configure(&writer)
            do { _ = try writer.headerBytes(); return nil } catch { return error }
        }
        #expect(error { $0.setMetadata("m", .array([.uint8(1), .int8(1)])) }?.kind == .invalidValue)
        #expect(error { $0.setMetadata("general.alignment", .uint32(64)) }?.kind == .misaligned)
        #expect(error { $0.setMetadata("general.alignment", .uint64(32)) }?.kind == .misaligned)
        #expect(error { $0.setMetadata("general.alignment", .uint32(32)) } == nil)
        var deep = GGUFValue.uint8(0)
        for _ in 0 ... GGUFParser.maximumArrayDepth { deep = .array([deep]) }
        let tooDeep = deep
        #expect(error { $0.setMetadata("deep", tooDeep) }?.kind == .nestingTooDeep)
        #expect(error { $0.addTensor(name: "t", dimensions: [33], type: .q8_0, byteCount: 34) }?.kind == .absurdDimensions)
        #expect(error { $0.addTensor(name: "t", dimensions: [32], type: .q8_0, byteCount: 32) }?.kind == .invalidValue)
        #expect(error {
            $0.addTensor(name: "t", dimensions: [8], type: .f32, byteCount: 32)
            $0.addTensor(name: "t", dimensions: [8], type: .f32, byteCount: 32)
        }?.kind == .duplicateTensor)
    }

    @Test(arguments: [31, 33])
    func wrongDataLengthLeavesNoFile(length: Int) throws {
        try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var writer = GGUFWriter()
        writer.addTensor(name: "t", dimensions: [8], type: .f32, byteCount: 32)
        let url = directory.appendingPathComponent("bad-\(length).gguf")
        do {
            try writer.write(to: url) { _, _, sink in
                try [UInt8](repeating: 1, count: length).withUnsafeBytes { try sink($0) }
            }
            Issue.record("wrote \(length) bytes for a 32-byte tensor")
        } catch let error as GGUFError {
            #expect(error.kind == .invalidValue)
        }
        #expect(!FileManager.default.fileExists(atPath: url.path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(leftovers.isEmpty, "\(leftovers)")
    }

    @Test func callerErrorsPassThrough() throws {
        try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        struct Stop: Error {}
        var writer = GGUFWriter()
        writer.addTensor(name: "t", dimensions: [8], type: .f32, byteCount: 32)
        let url = directory.appendingPathComponent("stop.gguf")
        #expect(throws: Stop.self) { try writer.write(to: url) { _, _, _ in throw Stop() } }
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test func ioErrorForUnwritablePath() throws {
        let writer = GGUFWriter()
        do {
            try writer.write(to: URL(fileURLWithPath: "/nonexistent-dir/x.gguf")) { _, _, _ in }
            Issue.record("wrote into a missing directory")
        } catch let error as GGUFError {
            #expect(error.kind == .ioError)
        }
    }

    /// `checkDestination` creates and removes the temporary file `write` would, leaving the
    /// folder as it was; a missing folder, or a folder at the path itself, is an I/O error that
    /// names the path.
    @Test func checkingADestinationWritesNothing() throws {
        try makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let url = directory.appendingPathComponent("checked.gguf")
        try GGUFWriter.checkDestination(url)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)

        for bad in [URL(fileURLWithPath: "/nonexistent-dir/x.gguf"), directory] {
            do {
                try GGUFWriter.checkDestination(bad)
                Issue.record("\(bad.path) passed the check")
            } catch {
                #expect(error.kind == .ioError)
                #expect(error.description.contains(bad.path), "\(error)")
            }
        }
    }
}

/// CRC-32 (IEEE, reflected, as Python's `zlib.crc32`), to identify a file by its bytes.
func crc32(_ bytes: Data) -> UInt32 {
    var crc: UInt32 = 0xFFFF_FFFF
    for byte in bytes {
        crc ^= UInt32(byte)
        for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
    }
    return ~crc
}
