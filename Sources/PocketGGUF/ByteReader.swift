/// A bounds-checked little-endian cursor over a byte buffer.
///
/// Every read checks the remaining length first and throws a ``GGUFError`` naming the offset,
/// so a count or length read from a damaged file can never make the reader touch memory
/// outside the buffer or allocate more than the file could possibly hold.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    private(set) var offset: Int

    init(_ bytes: UnsafeRawBufferPointer, offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    var remaining: Int { bytes.count - offset }

    /// Fails unless `count` more bytes are available.
    func require(_ count: Int, _ what: @autoclosure () -> String) throws(GGUFError) {
        guard count >= 0, count <= remaining else {
            throw GGUFError(.truncated, at: offset,
                            "truncated file: \(what()) needs \(count) bytes, \(remaining) remain of \(bytes.count)")
        }
    }

    mutating func read<T: FixedWidthInteger>(_: T.Type, _ what: @autoclosure () -> String) throws(GGUFError) -> T {
        try require(MemoryLayout<T>.size, what())
        let value = T(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset += MemoryLayout<T>.size
        return value
    }

    mutating func readFloat(_ what: @autoclosure () -> String) throws(GGUFError) -> Float {
        Float(bitPattern: try read(UInt32.self, what()))
    }

    mutating func readDouble(_ what: @autoclosure () -> String) throws(GGUFError) -> Double {
        Double(bitPattern: try read(UInt64.self, what()))
    }

    /// A count stored as u64, checked to be at most `limit` (usually what the remaining bytes
    /// could hold) so nothing is allocated on an unchecked number.
    mutating func readCount(_ what: @autoclosure () -> String, atMost limit: Int) throws(GGUFError) -> Int {
        let start = offset
        let raw = try read(UInt64.self, what())
        guard raw <= UInt64(max(limit, 0)) else {
            throw GGUFError(.outOfBounds, at: start,
                            "\(what()) of \(raw) is impossible: at most \(limit) fit in the remaining \(remaining) bytes")
        }
        return Int(raw)
    }

    /// A GGUF string: u64 byte length, then UTF-8 bytes (no terminator).
    mutating func readString(_ what: @autoclosure () -> String) throws(GGUFError) -> String {
        let start = offset
        let length = try readCount("length of \(what())", atMost: remaining - 8)
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)])
        guard let string = String(validating: slice.bindMemory(to: UInt8.self), as: UTF8.self) else {
            throw GGUFError(.invalidUTF8, at: start, "\(what()) is not valid UTF-8")
        }
        offset += length
        return string
    }
}
