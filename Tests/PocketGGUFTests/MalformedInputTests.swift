import Foundation
import Testing
@testable import PocketGGUF

/// Each kind of malformed input yields a typed error naming the problem and the byte offset.
@Suite("Malformed GGUF input")
struct MalformedInputTests {
    /// A valid file: one string key and one 32-element f32 tensor.
    static func validFile(tensorOffset: UInt64 = 0, dims: [UInt64] = [32], type: UInt32 = 0) -> [UInt8] {
        var b = ByteBuilder()
        b.header(tensors: 1, keys: 1)
        b.keyString("general.architecture", "llama")
        b.tensor("w", dims: dims, type: type, offset: tensorOffset)
        b.pad(to: 32)
        b.raw([UInt8](repeating: 7, count: 128))
        return b.bytes
    }

    /// A file whose only key has the given type number and raw value bytes.
    static func fileWithValue(type: UInt32, _ value: (inout ByteBuilder) -> Void) -> [UInt8] {
        var b = ByteBuilder()
        b.header(tensors: 0, keys: 1)
        b.string("k"); b.u32(type)
        value(&b)
        return b.bytes
    }

    /// A file whose only tensor has the given raw description.
    static func fileWithTensor(name: [UInt8] = Array("w".utf8), dims: [UInt64], type: UInt32, offset: UInt64 = 0, data: Int = 4096) -> [UInt8] {
        var b = ByteBuilder()
        b.header(tensors: 1, keys: 0)
        b.rawString(name); b.u32(UInt32(dims.count)); dims.forEach { b.u64($0) }; b.u32(type); b.u64(offset)
        b.pad(to: 32)
        b.raw([UInt8](repeating: 0, count: data))
        return b.bytes
    }

    @Test func validBaseline() throws {
        let file = try GGUFFile(data: Data(Self.validFile()))
        #expect(file.tensors.first?.byteCount == 128)
    }

    @Test func badMagic() {
        var bytes = Self.validFile()
        bytes[3] = 0x58
        let error = parseError(bytes)
        #expect(error?.kind == .badMagic)
        #expect(error?.offset == 0)
        #expect(error?.description.contains("47 47 55 58") == true)
    }

    @Test func emptyAndTinyInput() {
        #expect(parseError([]) == GGUFError.truncated(need: 4, at: 0, fileSize: 0, what: "the magic"))
        #expect(parseError([0x47, 0x47])?.kind == .truncated)
    }

    @Test(arguments: [(UInt32(1), "v1"), (0, "expected 2 or 3"), (4, "expected 2 or 3"), (0x0300_0000, "big-endian")])
    func unsupportedVersion(version: UInt32, mentions: String) throws {
        var b = ByteBuilder()
        b.header(version: version, tensors: 0, keys: 0)
        let error = try #require(parseError(b.bytes))
        #expect(error.kind == .unsupportedVersion)
        #expect(error.offset == 4)
        #expect(error.description.contains(mentions))
    }

    @Test func truncatedHeaderMessage() throws {
        let error = try #require(parseError(Array(Self.validFile().prefix(12))))
        #expect(error.kind == .truncated)
        #expect(error.offset == 8)
        #expect(error.description == "GGUF: truncated file: need 8 bytes at offset 8 for tensor count, file has 12")
    }

    /// Every proper prefix of a valid file fails with a typed error, never a crash.
    @Test func everyTruncationFails() {
        let bytes = Self.validFile()
        for length in 0 ..< bytes.count {
            let error = parseError(Array(bytes.prefix(length)))
            #expect(error != nil, "prefix of \(length) bytes parsed")
            #expect([.truncated, .absurdCount, .outOfBounds].contains(error?.kind), "prefix \(length): \(String(describing: error))")
        }
    }

    @Test func absurdCounts() throws {
        var b = ByteBuilder()
        b.header(tensors: UInt64.max, keys: 0)
        var error = try #require(parseError(b.bytes))
        #expect(error.kind == .absurdCount && error.offset == 8)

        b = ByteBuilder()
        b.header(tensors: 0, keys: 1 << 40)
        error = try #require(parseError(b.bytes + [UInt8](repeating: 0, count: 100)))
        #expect(error.kind == .absurdCount && error.offset == 16)

        // An array of u64 claiming more elements than the bytes left could hold.
        error = try #require(parseError(Self.fileWithValue(type: 9) { b in b.u32(10); b.u64(1_000_000); b.u64(1) }))
        #expect(error.kind == .absurdCount && error.offset == 24 + 9 + 4 + 4)
    }

    @Test func hugeStringLength() throws {
        var b = ByteBuilder()
        b.header(tensors: 0, keys: 1)
        b.u64(UInt64.max)  // key length
        let error = try #require(parseError(b.bytes + [UInt8](repeating: 0x61, count: 20)))
        #expect(error.kind == .truncated)
        #expect(error.offset == 32)
        #expect(error.message.contains("need 18446744073709551615 bytes"))

        let valueError = try #require(parseError(Self.fileWithValue(type: 8) { b in b.u64(1 << 62); b.raw([1, 2, 3]) }))
        #expect(valueError.kind == .truncated && valueError.offset == 24 + 9 + 4 + 8)
    }

    @Test func unknownValueType() throws {
        let error = try #require(parseError(Self.fileWithValue(type: 13) { b in b.u64(0) }))
        #expect(error.kind == .unknownValueType && error.offset == 24 + 9)
        let elementError = try #require(parseError(Self.fileWithValue(type: 9) { b in b.u32(99); b.u64(0) }))
        #expect(elementError.kind == .unknownValueType && elementError.offset == 24 + 9 + 4)
    }

    @Test func badBool() throws {
        let error = try #require(parseError(Self.fileWithValue(type: 7) { b in b.u8(2) }))
        #expect(error.kind == .invalidValue && error.offset == 24 + 9 + 4)
    }

    @Test func nestingDepthLimit() throws {
        func nested(_ depth: Int) -> [UInt8] {
            Self.fileWithValue(type: 9) { b in
                for _ in 1 ..< depth { b.u32(9); b.u64(1) }
                b.u32(0); b.u64(1); b.u8(42)
            }
        }
        let file = try GGUFFile(data: Data(nested(GGUFParser.maximumArrayDepth)))
        var value = try #require(file.metadata["k"])
        for _ in 1 ..< GGUFParser.maximumArrayDepth { value = try #require(value.arrayValue?.first) }
        #expect(value == .array([.uint8(42)]))
        let error = try #require(parseError(nested(GGUFParser.maximumArrayDepth + 1)))
        #expect(error.kind == .nestingTooDeep)
    }

    @Test func unknownTensorType() throws {
        for type: UInt32 in [4, 5, 31, 36, 1000] {  // 4, 5 and 31...33 were retired from ggml
            let error = try #require(parseError(Self.fileWithTensor(dims: [32], type: type)))
            #expect(error.kind == .unknownTensorType, "\(type)")
            #expect(error.offset == 24 + 9 + 4 + 8, "\(type)")
            #expect(error.message.contains("\(type)"))
        }
    }

    @Test(arguments: [
        [UInt64](),                      // no dimensions
        [1, 1, 1, 1, 1],                 // more than 4
        [32, 0],                         // zero
        [UInt64(bitPattern: -32)],       // negative as a signed number
        [1 << 32, 1 << 32, 1 << 32],     // element count overflows
    ])
    func absurdDimensions(dims: [UInt64]) throws {
        let error = try #require(parseError(Self.fileWithTensor(dims: dims, type: 0)))
        #expect(error.kind == .absurdDimensions)
        #expect(error.offset != nil)
    }

    @Test func rowNotWholeBlocks() throws {
        let error = try #require(parseError(Self.fileWithTensor(dims: [33, 2], type: 8)))  // q8_0 blocks of 32
        #expect(error.kind == .absurdDimensions && error.offset == 24 + 9)
        #expect(error.message.contains("block size 32"))
    }

    @Test func invalidUTF8() throws {
        var b = ByteBuilder()
        b.header(tensors: 0, keys: 1)
        b.rawString([0x6B, 0xFF]); b.u32(0); b.u8(0)
        var error = try #require(parseError(b.bytes))
        #expect(error.kind == .invalidUTF8 && error.offset == 32)

        error = try #require(parseError(Self.fileWithValue(type: 8) { b in b.rawString([0xC3, 0x28]) }))
        #expect(error.kind == .invalidUTF8 && error.offset == 24 + 9 + 4 + 8)

        error = try #require(parseError(Self.fileWithTensor(name: [0xED, 0xA0, 0x80], dims: [1], type: 0)))
        #expect(error.kind == .invalidUTF8 && error.offset == 32)
    }

    @Test func duplicates() throws {
        var b = ByteBuilder()
        b.header(tensors: 0, keys: 2)
        b.keyU32("a", 1); b.keyU32("a", 2)
        var error = try #require(parseError(b.bytes))
        #expect(error.kind == .duplicateKey && error.offset == 24 + 9 + 4 + 4)

        b = ByteBuilder()
        b.header(tensors: 2, keys: 0)
        b.tensor("w", dims: [8], type: 0, offset: 0)
        b.tensor("w", dims: [8], type: 0, offset: 32)
        b.pad(to: 32); b.raw([UInt8](repeating: 0, count: 64))
        error = try #require(parseError(b.bytes))
        #expect(error.kind == .duplicateTensor)
    }

    @Test func alignment() throws {
        var error = try #require(parseError(Self.validFile(tensorOffset: 16)))
        #expect(error.kind == .misaligned && error.offset != nil)

        for bad: UInt32 in [0, 3, 48] {
            var b = ByteBuilder()
            b.header(tensors: 0, keys: 1)
            b.keyU32("general.alignment", bad)
            error = try #require(parseError(b.bytes))
            #expect(error.kind == .misaligned, "\(bad)")
        }
    }

    @Test func tensorDataOutOfBounds() throws {
        // Offset beyond the file, a size that runs past its end, and an offset that overflows.
        for (offset, dims) in [(UInt64(4096), [UInt64(32)]), (0, [64]), (UInt64(Int.max) & ~31, [32])] {
            let error = try #require(parseError(Self.validFile(tensorOffset: offset, dims: dims)))
            #expect(error.kind == .outOfBounds, "\(offset) \(dims)")
            #expect(error.message.contains("past the end"))
        }
        let huge = try #require(parseError(Self.validFile(tensorOffset: UInt64.max & ~31)))
        #expect(huge.kind == .outOfBounds)
        // The data section itself cut short.
        let cut = Array(Self.validFile().dropLast(1))
        #expect(parseError(cut)?.kind == .outOfBounds)
    }

    @Test func overlappingTensors() throws {
        var b = ByteBuilder()
        b.header(tensors: 2, keys: 0)
        b.tensor("a", dims: [16], type: 0, offset: 0)
        b.tensor("b", dims: [16], type: 0, offset: 32)
        b.pad(to: 32); b.raw([UInt8](repeating: 0, count: 128))
        let error = try #require(parseError(b.bytes))
        #expect(error.kind == .overlappingTensors)
        #expect(error.message.contains("'a'") && error.message.contains("'b'"))
    }

    @Test func ioErrors() throws {
        #expect(throws: GGUFError.self) { try GGUFFile(contentsOf: URL(fileURLWithPath: "/nonexistent/x.gguf")) }
        do {
            _ = try GGUFFile(contentsOf: URL(fileURLWithPath: "/nonexistent/x.gguf"))
        } catch {
            #expect(error.kind == .ioError && error.message.contains("/nonexistent/x.gguf"))
        }
        do {
            _ = try GGUFFile(contentsOf: FileManager.default.temporaryDirectory)
            Issue.record("a directory parsed")
        } catch {
            #expect(error.kind == .notRegularFile && error.message.contains("a directory"))
        }
        do {
            _ = try GGUFFile(contentsOf: URL(fileURLWithPath: "/dev/null"))
            Issue.record("a device parsed")
        } catch {
            #expect(error.kind == .notRegularFile && error.message.contains("a character device"))
        }
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-gguf-empty-\(UUID()).gguf")
        try Data().write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        do {
            _ = try GGUFFile(contentsOf: empty)
            Issue.record("an empty file parsed")
        } catch {
            #expect(error.kind == .truncated)
        }
    }

    /// Opening a named pipe for reading blocks until a writer appears: the reader must refuse
    /// it without opening. Should it block anyway, a writer opened after 3 s releases it, so
    /// the test fails (on time and kind) instead of hanging.
    @Test func namedPipeIsRejectedWithoutBlocking() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pocket-fifo-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("model.gguf").path
        try #require(mkfifo(fifo, 0o600) == 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 3) {
            // Succeeds only while a reader is blocked in open(); then releases it.
            let fd = open(fifo, O_WRONLY | O_NONBLOCK)
            if fd >= 0 { close(fd) }
        }
        let started = ContinuousClock.now
        do {
            _ = try GGUFFile(contentsOf: URL(fileURLWithPath: fifo))
            Issue.record("a named pipe parsed")
        } catch {
            #expect(error.kind == .notRegularFile)
            #expect(error.message.contains("named pipe") && error.message.contains(fifo), "\(error)")
        }
        #expect(ContinuousClock.now - started < .seconds(2))
    }
}
