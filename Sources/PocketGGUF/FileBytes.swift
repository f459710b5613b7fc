#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Bytes that a ``GGUFFile`` reads from: either a read-only private mapping of a file, or an
/// owned heap copy (for `Data` input). Releases them when the last reference goes away.
final class FileBytes: @unchecked Sendable {
    /// The bytes. Immutable after init; safe to share across threads.
    let buffer: UnsafeRawBufferPointer
    private let isMapped: Bool

    /// Maps `url` with `PROT_READ` / `MAP_PRIVATE`. The file descriptor is closed right away;
    /// the mapping stays valid until deinit.
    ///
    /// - Throws: ``GGUFError`` of kind `ioError` if the file cannot be opened, stat'ed or
    ///   mapped, or `truncated` for an empty file.
    init(mapping url: URL) throws(GGUFError) {
        let path = url.path
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw GGUFError(.ioError, "cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw GGUFError(.ioError, "cannot stat '\(path)': \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw GGUFError(.ioError, "'\(path)' is not a regular file")
        }
        let size = Int(info.st_size)
        guard size > 0 else {
            throw GGUFError.truncated(need: 4, at: 0, fileSize: 0, what: "the magic")
        }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), address != MAP_FAILED else {
            throw GGUFError(.ioError, "cannot map '\(path)' (\(size) bytes): \(String(cString: strerror(errno)))")
        }
        buffer = UnsafeRawBufferPointer(start: address, count: size)
        isMapped = true
    }

    /// Copies `data` into a 64-byte-aligned heap buffer, so tensor data is as aligned as it
    /// would be in a mapping.
    init(copying data: Data) {
        let memory = UnsafeMutableRawPointer.allocate(byteCount: max(data.count, 1), alignment: 64)
        data.withUnsafeBytes { source in
            if let base = source.baseAddress { memory.copyMemory(from: base, byteCount: source.count) }
        }
        buffer = UnsafeRawBufferPointer(start: memory, count: data.count)
        isMapped = false
    }

    deinit {
        guard let base = buffer.baseAddress else { return }
        if isMapped {
            munmap(UnsafeMutableRawPointer(mutating: base), buffer.count)
        } else {
            base.deallocate()
        }
    }
}
