import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The bytes of a GGUF file: a read-only memory mapping, or an owned copy for in-memory data.
final class Storage: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
    private let release: () -> Void

    /// Maps the file read-only. Pages are loaded on first touch, so opening is fast and the
    /// weights are shared with the page cache rather than copied.
    init(mapping url: URL) throws(GGUFError) {
        let descriptor = open(url.path, O_RDONLY)
        guard descriptor >= 0 else {
            throw GGUFError(.io, "cannot open \(url.path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else {
            throw GGUFError(.io, "cannot stat \(url.path): \(String(cString: strerror(errno)))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw GGUFError(.io, "\(url.path) is not a regular file") }
        let size = Int(info.st_size)
        guard size > 0 else {
            throw GGUFError(.truncated, at: 0, "\(url.path) is empty")
        }
        guard let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED else {
            throw GGUFError(.io, "cannot map \(url.path): \(String(cString: strerror(errno)))")
        }
        bytes = UnsafeRawBufferPointer(start: address, count: size)
        release = { munmap(address, size) }
    }

    /// Copies `data` into an owned, 64-byte-aligned buffer.
    init(copying data: Data) {
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: max(data.count, 1), alignment: 64)
        data.withUnsafeBytes { if let base = $0.baseAddress { buffer.copyMemory(from: base, byteCount: data.count) } }
        bytes = UnsafeRawBufferPointer(start: buffer, count: data.count)
        release = { buffer.deallocate() }
    }

    deinit { release() }
}
