import Testing
@testable import PocketGGUF

@Suite("ByteReader")
struct ByteReaderTests {
    @Test func littleEndianUnalignedReads() {
        let bytes: [UInt8] = [0xAA, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0xFF]
        bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            #expect(reader.readInteger(as: UInt8.self) == 0xAA)
            #expect(reader.readInteger(as: UInt64.self) == 0x0807_0605_0403_0201)  // at offset 1
            #expect(reader.offset == 9)
            #expect(reader.readInteger(as: Int8.self) == -1)
            #expect(reader.remaining == 0)
        }
    }

    @Test func shortReadsFailSoftlyWithoutMoving() {
        let bytes: [UInt8] = [1, 2, 3]
        bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            #expect(reader.readInteger(as: UInt32.self) == nil)
            #expect(reader.offset == 0)
            #expect(reader.readBytes(count: 4) == nil)
            #expect(reader.readBytes(count: -1) == nil)
            #expect(reader.readBytes(count: 2).map(Array.init) == [1, 2])
            #expect(reader.readInteger(as: UInt16.self) == nil)
            #expect(reader.offset == 2)
            #expect(reader.alignedOffset(32) == 32)
        }
    }

    @Test func emptyBuffer() {
        var reader = ByteReader(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(reader.readInteger(as: UInt8.self) == nil)
        #expect(reader.readBytes(count: 0)?.count == 0)
    }
}
