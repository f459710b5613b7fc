#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Where ``GGUFWriter`` sends bytes.
protocol ByteOutput: AnyObject {
    /// Bytes written so far.
    var position: Int { get }
    /// Appends `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws
}

extension ByteOutput {
    /// Appends zeros until the position is a multiple of `alignment` (a power of two).
    func pad(to alignment: Int) throws {
        let padding = GGUFWriter.align(position, alignment) - position
        guard padding > 0 else { return }
        try [UInt8](repeating: 0, count: padding).withUnsafeBytes { try write($0) }
    }
}

/// An in-memory ``ByteOutput``.
final class MemoryOutput: ByteOutput {
    private(set) var data = Data()
    var position: Int { data.count }
    func write(_ bytes: UnsafeRawBufferPointer) { data.append(contentsOf: bytes) }
}

/// A write-only file with a small buffer, for ``GGUFWriter``: small writes (header fields,
/// padding) are batched; large ones go straight to the file without an extra copy.
final class FileOutput: ByteOutput {
    private var fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private let bufferLimit = 1 << 16
    /// Bytes written so far (flushed or buffered).
    private(set) var position = 0

    /// Creates (or truncates) the file at `path`.
    init(path: String) throws(GGUFError) {
        fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        self.path = path
        guard fd >= 0 else {
            throw GGUFError(.ioError, "writer: cannot create '\(path)': \(String(cString: strerror(errno)))")
        }
        buffer.reserveCapacity(bufferLimit)
    }

    deinit {
        if fd >= 0 { _ = systemClose(fd) }
    }

    /// Appends `bytes`.
    func write(_ bytes: UnsafeRawBufferPointer) throws {
        position += bytes.count
        if buffer.count + bytes.count <= bufferLimit {
            buffer.append(contentsOf: bytes)
            return
        }
        try flush()
        try writeAll(bytes)
    }

    /// Flushes and closes the file; further calls do nothing.
    func close() throws {
        guard fd >= 0 else { return }
        try flush()
        let result = systemClose(fd)
        fd = -1
        guard result == 0 else {
            throw GGUFError(.ioError, "writer: cannot close '\(path)': \(String(cString: strerror(errno)))")
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try buffer.withUnsafeBytes { try writeAll($0) }
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeAll(_ bytes: UnsafeRawBufferPointer) throws {
        guard var next = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let written = systemWrite(fd, next, left)
            if written < 0 {
                if errno == EINTR { continue }
                throw GGUFError(.ioError, "writer: cannot write '\(path)': \(String(cString: strerror(errno)))")
            }
            next += written
            left -= written
        }
    }
}

// The class has methods named `close` and `write`; these reach the C functions unambiguously.
@inline(__always) private func systemClose(_ fd: Int32) -> Int32 { close(fd) }
@inline(__always) private func systemWrite(_ fd: Int32, _ p: UnsafeRawPointer, _ n: Int) -> Int { write(fd, p, n) }
