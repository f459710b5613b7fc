import Foundation

/// A parsed GGUF file: its metadata, its tensor table, and zero-copy access to tensor data.
///
/// Opening a file memory-maps it read-only and parses the header (see `GGUFParser` for the
/// byte layout); weights are never copied. Everything the header says is validated before
/// `init` returns, so ``bytes(of:)`` can hand out views into the mapping without further checks.
///
/// ```swift
/// let file = try GGUFFile(contentsOf: URL(fileURLWithPath: "model.gguf"))
/// print(file.architecture ?? "?", file.tensors.count)
/// let embeddings = file.tensor(named: "token_embd.weight")!
/// let raw = file.bytes(of: embeddings)   // valid while `file` is alive
/// ```
public final class GGUFFile: @unchecked Sendable {
    // @unchecked: every stored property is immutable after init, and the mapped bytes are
    // read-only, so instances can be shared across threads.

    /// The format version (2 or 3).
    public let version: UInt32
    /// The key-value metadata, in file order.
    public let metadata: GGUFMetadata
    /// The tensor table, in file order.
    public let tensors: [GGUFTensorInfo]
    /// The data alignment: `general.alignment`, or 32 when absent.
    public let alignment: Int
    /// Absolute offset of the tensor data section (the end of the header, rounded up to the
    /// alignment). In a file without tensors this may lie past ``byteCount``, since the final
    /// padding is then often omitted.
    public let dataOffset: Int
    /// Size of the whole file in bytes.
    public let byteCount: Int

    private let storage: FileBytes
    private let tensorIndex: [String: Int]

    /// Memory-maps the file at `url` (`PROT_READ`, `MAP_PRIVATE`) and parses its header.
    ///
    /// - Parameter url: A local file URL.
    /// - Throws: ``GGUFError``: `notRegularFile` for a named pipe, directory, device or socket
    ///   (checked before opening, so a pipe never blocks); `ioError` if the file cannot be
    ///   opened or mapped; otherwise the
    ///   first problem found in the header, with its byte offset.
    /// - Complexity: O(header size); tensor data is not touched.
    public convenience init(contentsOf url: URL) throws(GGUFError) {
        try self.init(storage: FileBytes(mapping: url))
    }

    /// Copies `data` into an owned buffer and parses it. Meant for tests, fuzzing and files
    /// built in memory; use ``init(contentsOf:)`` for models.
    ///
    /// - Throws: ``GGUFError`` describing the first problem found, with its byte offset.
    public convenience init(data: Data) throws(GGUFError) {
        try self.init(storage: FileBytes(copying: data))
    }

    private init(storage: FileBytes) throws(GGUFError) {
        var parser = GGUFParser(storage.buffer)
        let header = try parser.parse()
        self.storage = storage
        version = header.version
        metadata = header.metadata
        tensors = header.tensors
        alignment = header.alignment
        dataOffset = header.dataOffset
        byteCount = storage.buffer.count
        var index: [String: Int] = [:]
        index.reserveCapacity(tensors.count)
        for (position, tensor) in tensors.enumerated() { index[tensor.name] = position }
        tensorIndex = index
    }

    /// The value of `general.architecture` (`"llama"`), if present.
    public var architecture: String? { metadata.string("general.architecture") }

    /// The tensor called `name`, or `nil`.
    ///
    /// - Complexity: O(1) on average.
    public func tensor(named name: String) -> GGUFTensorInfo? {
        tensorIndex[name].map { tensors[$0] }
    }

    /// The raw bytes of `tensor`'s data: a view into the mapping (no copy), valid as long as
    /// this file object is alive.
    ///
    /// - Parameter tensor: One of this file's ``tensors``.
    /// - Precondition: `tensor`'s data lies inside this file (always true for this file's own
    ///   tensors, which were validated at load).
    public func bytes(of tensor: GGUFTensorInfo) -> UnsafeRawBufferPointer {
        let start = dataOffset + tensor.offset
        precondition(tensor.offset >= 0 && start <= byteCount && tensor.byteCount <= byteCount - start,
                     "tensor '\(tensor.name)' does not lie inside this GGUF file")
        return UnsafeRawBufferPointer(rebasing: storage.buffer[start ..< start + tensor.byteCount])
    }

    /// Releases the memory of the pages wholly inside `bytes` (a range of this file's bytes)
    /// when the file is mapped: for data that was copied elsewhere (repacked weights) and is
    /// rarely read again. The bytes stay valid; reading them faults the pages in again.
    public func releasePages(of bytes: UnsafeRawBufferPointer) {
        storage.releasePages(bytes)
    }

    /// The whole file's bytes (header included), valid as long as this file object is alive.
    public var rawBytes: UnsafeRawBufferPointer { storage.buffer }
}
