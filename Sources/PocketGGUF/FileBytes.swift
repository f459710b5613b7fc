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
    /// The path is stat'ed before it is opened: opening a named pipe for reading would block
    /// until a writer appears, and a device or directory cannot be mapped as a model. The open
    /// itself is non-blocking and the descriptor is checked again, in case the path changed
    /// in between.
    ///
    /// - Throws: ``GGUFError`` of kind `notRegularFile` for a named pipe, directory, device or
    ///   socket, `ioError` if the file cannot be stat'ed, opened or mapped, or `truncated` for
    ///   an empty file.
    init(mapping url: URL) throws(GGUFError) {
        let path = url.path
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw GGUFError(.ioError, "cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        try Self.requireRegularFile(info, path: path)
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            throw GGUFError(.ioError, "cannot open '\(path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        guard fstat(fd, &info) == 0 else {
            throw GGUFError(.ioError, "cannot stat '\(path)': \(String(cString: strerror(errno)))")
        }
        try Self.requireRegularFile(info, path: path)
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

    /// Throws `notRegularFile`, naming what `path` is, unless `info` describes a regular file.
    private static func requireRegularFile(_ info: stat, path: String) throws(GGUFError) {
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFIFO: kind = "a named pipe (FIFO)"
        case S_IFDIR: kind = "a directory"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        case S_IFSOCK: kind = "a socket"
        default: kind = "not a regular file"
        }
        throw GGUFError(.notRegularFile, "'\(path)' is \(kind), expected a regular GGUF file")
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

    /// Drops the resident pages that lie wholly inside `range` from the mapping
    /// (`MADV_DONTNEED`): they stop counting towards the process's memory, and a later read
    /// faults them in again from the file. The range is also marked as read at random
    /// (`MADV_RANDOM`, its own mapping region), so that faults on neighbouring data do not map
    /// its pages back around them. Nothing happens for a heap copy, whose bytes would be lost.
    func releasePages(_ range: UnsafeRawBufferPointer) {
        guard isMapped, let start = range.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let first = (Int(bitPattern: start) + page - 1) / page * page
        let end = (Int(bitPattern: start) + range.count) / page * page
        guard end > first, let address = UnsafeMutableRawPointer(bitPattern: first) else { return }
        madvise(address, end - first, MADV_DONTNEED)
        madvise(address, end - first, MADV_RANDOM)
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
