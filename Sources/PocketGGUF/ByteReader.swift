/// A little-endian cursor over a byte buffer, in the style of swift-nio's `ByteBuffer` reads.
///
/// Every read is bounds-checked and fails softly: it returns `nil` and leaves the cursor where
/// it was. The GGUF parser turns a `nil` into one ``GGUFError`` carrying the offset, so no read
/// can step outside the buffer. Reads use `loadUnaligned`, because GGUF fields are packed with
/// no alignment at all, and never overlay Swift structs on the bytes.
struct ByteReader {
    /// The whole file (or the part of it being parsed).
    let buffer: UnsafeRawBufferPointer
    /// Absolute offset of the next byte to read.
    private(set) var offset: Int = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    /// Bytes left after the cursor.
    var remaining: Int { buffer.count - offset }

    /// Reads a little-endian integer and advances past it, or returns `nil` if too few bytes remain.
    @inline(__always)
    mutating func readInteger<T: FixedWidthInteger>(as: T.Type = T.self) -> T? {
        let size = MemoryLayout<T>.size
        guard size <= remaining, let base = buffer.baseAddress else { return nil }
        let value = T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
        offset += size
        return value
    }

    /// Returns the next `count` bytes (a view into the buffer, not a copy) and advances past
    /// them, or returns `nil` if fewer remain.
    mutating func readBytes(count: Int) -> UnsafeRawBufferPointer? {
        guard count >= 0, count <= remaining else { return nil }
        let slice = UnsafeRawBufferPointer(rebasing: buffer[offset ..< offset + count])
        offset += count
        return slice
    }

    /// The cursor offset rounded up to the next multiple of `alignment` (a power of two);
    /// `Int.max` on overflow. May lie past the end of the buffer.
    func alignedOffset(_ alignment: Int) -> Int {
        let (padded, overflow) = offset.addingReportingOverflow(alignment - 1)
        return overflow ? Int.max : padded & ~(alignment - 1)
    }
}
