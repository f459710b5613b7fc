import Foundation

/// Builds a GGUF v3 file: metadata and a tensor table up front, tensor data streamed in.
///
/// Tensor data is never gathered in memory: ``write(to:tensorData:)`` writes the header, then
/// calls `tensorData` once per tensor, in order, handing it a `sink` to push that tensor's bytes
/// through in as many pieces as it likes. Offsets and alignment padding are computed by the
/// writer; each tensor starts at a multiple of `alignment` from the start of the data section.
///
/// ```swift
/// var writer = GGUFWriter()
/// writer.setMetadata("general.architecture", .string("llama"))
/// writer.addTensor(name: "w", dimensions: [32, 2], type: .q8_0, byteCount: 68)
/// try writer.write(to: url) { index, tensor, sink in
///     try weights[index].withUnsafeBytes { try sink($0) }
/// }
/// ```
///
/// On-disk choices:
/// - Always writes version 3.
/// - An empty array is written with element type `string` (GGUF requires an element type and
///   an empty array has no element to take it from; most arrays in practice are of strings).
///   Reading it back yields `.array([])`, which loses nothing.
/// - When `alignment` is not 32, the writer records `general.alignment` as a `uint32`.
/// - Every tensor's data is followed by zero padding up to the alignment, so the file ends on
///   an aligned offset.
public struct GGUFWriter {
    /// The data alignment, a power of two.
    public let alignment: Int
    private var entries: [(key: String, value: GGUFValue)] = []
    private var keyPositions: [String: Int] = [:]
    private var pendingTensors: [(name: String, dimensions: [Int], type: GGMLType, byteCount: Int)] = []

    /// Creates an empty writer.
    ///
    /// - Parameter alignment: Alignment of the data section and of every tensor in it.
    /// - Precondition: `alignment` is a positive power of two.
    public init(alignment: Int = 32) {
        precondition(alignment > 0 && alignment & (alignment - 1) == 0,
                     "GGUFWriter alignment must be a positive power of two, got \(alignment)")
        self.alignment = alignment
        if alignment != GGUFParser.defaultAlignment {
            setMetadata("general.alignment", .uint32(UInt32(truncatingIfNeeded: alignment)))
        }
    }

    /// The metadata set so far, in insertion order.
    public var metadata: GGUFMetadata { GGUFMetadata(entries) }

    /// Sets `key` to `value`. A new key goes at the end; an existing key keeps its position and
    /// takes the new value.
    public mutating func setMetadata(_ key: String, _ value: GGUFValue) {
        if let position = keyPositions[key] {
            entries[position].value = value
        } else {
            keyPositions[key] = entries.count
            entries.append((key, value))
        }
    }

    /// Sets every entry of `metadata`, in its order (for copying a file's metadata).
    public mutating func setMetadata(contentsOf metadata: GGUFMetadata) {
        for key in metadata.keys { setMetadata(key, metadata[key]!) }
    }

    /// Appends a tensor to the table. Shapes and sizes are checked by ``write(to:tensorData:)``,
    /// which throws if `byteCount` disagrees with what `dimensions` and `type` imply.
    ///
    /// - Parameters:
    ///   - name: Unique tensor name.
    ///   - dimensions: Sizes, innermost (row length) first; 1 to 4 of them.
    ///   - type: Element type.
    ///   - byteCount: Bytes of data the tensor will be given.
    public mutating func addTensor(name: String, dimensions: [Int], type: GGMLType, byteCount: Int) {
        pendingTensors.append((name, dimensions, type, byteCount))
    }

    /// The tensor table with the offsets the writer will use.
    ///
    /// - Throws: ``GGUFError`` (`absurdDimensions`, `invalidValue`, `duplicateTensor`) if a
    ///   tensor's shape is invalid or its byte count does not match its shape and type.
    public func tensorInfos() throws(GGUFError) -> [GGUFTensorInfo] {
        var infos: [GGUFTensorInfo] = []
        infos.reserveCapacity(pendingTensors.count)
        var names = Set<String>()
        var offset = 0
        for tensor in pendingTensors {
            guard names.insert(tensor.name).inserted else {
                throw GGUFError(.duplicateTensor, "writer: duplicate tensor name '\(tensor.name)'")
            }
            guard let size = GGUFTensorInfo.byteCount(dimensions: tensor.dimensions, type: tensor.type) else {
                throw GGUFError(.absurdDimensions,
                                "writer: tensor '\(tensor.name)' has invalid dimensions \(tensor.dimensions) for type \(tensor.type)")
            }
            guard size == tensor.byteCount else {
                throw GGUFError(.invalidValue,
                                "writer: tensor '\(tensor.name)' declares \(tensor.byteCount) bytes, but \(tensor.dimensions) of \(tensor.type) take \(size)")
            }
            infos.append(GGUFTensorInfo(name: tensor.name, dimensions: tensor.dimensions, type: tensor.type, offset: offset))
            offset = Self.align(offset + size, alignment)
        }
        return infos
    }

    /// The encoded header (magic through the tensor table, without the padding after it).
    ///
    /// - Throws: ``GGUFError`` if a value cannot be encoded (mixed-type or too deeply nested
    ///   array, inconsistent `general.alignment`) or a tensor is invalid.
    public func headerBytes() throws(GGUFError) -> [UInt8] {
        try headerBytes(tensors: tensorInfos())
    }

    /// Writes the file: header, padding, then each tensor's data (from `tensorData`) followed
    /// by padding. Writes to a temporary file beside `url` and renames it into place, so a
    /// failure never leaves a partial file at `url`.
    ///
    /// - Parameters:
    ///   - url: Destination file URL; replaced if it exists.
    ///   - tensorData: Called once per tensor, in table order, with its index, its final info
    ///     (offset included) and a `sink`. It must pass exactly `tensor.byteCount` bytes to
    ///     `sink`, in one or more calls.
    /// - Throws: ``GGUFError`` for invalid metadata or tensors, a wrong number of bytes, or an
    ///   I/O failure; any error `tensorData` throws is passed through.
    public func write(
        to url: URL,
        tensorData: (_ index: Int, _ tensor: GGUFTensorInfo, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        let tensors = try tensorInfos()
        let header = try headerBytes(tensors: tensors)
        let temporary = Self.temporaryPath(for: url)
        let output = try FileOutput(path: temporary)
        do {
            try emit(header: header, tensors: tensors, to: output, tensorData: tensorData)
            try output.close()
            guard rename(temporary, url.path) == 0 else {
                throw GGUFError(.ioError, "writer: cannot rename '\(temporary)' to '\(url.path)': \(String(cString: strerror(errno)))")
            }
        } catch {
            try? output.close()
            unlink(temporary)
            throw error
        }
    }

    /// Checks, writing nothing, that ``write(to:tensorData:)`` can put a file at `url`: the
    /// temporary file it writes beside `url` is created and removed again, and `url` must not
    /// be a folder. A long job (quantizing a model) calls it first, to fail in a moment rather
    /// than at its end.
    ///
    /// - Throws: ``GGUFError`` (`.ioError`) naming the path and the system's reason.
    public static func checkDestination(_ url: URL) throws(GGUFError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            throw GGUFError(.ioError, "writer: '\(url.path)' is a folder")
        }
        let temporary = temporaryPath(for: url)
        let output = try FileOutput(path: temporary)
        try? output.close()
        unlink(temporary)
    }

    /// Where ``write(to:tensorData:)`` writes before renaming: beside `url`, so the rename
    /// stays on one file system.
    static func temporaryPath(for url: URL) -> String { url.path + ".partial-\(ProcessInfo.processInfo.processIdentifier)" }

    /// The whole file in memory, for tests and small synthetic models; same layout and checks
    /// as ``write(to:tensorData:)``. Feed the result to ``GGUFFile/init(data:)``.
    ///
    /// - Throws: ``GGUFError`` for invalid metadata, tensors or data lengths; any error
    ///   `tensorData` throws is passed through.
    public func encoded(
        tensorData: (_ index: Int, _ tensor: GGUFTensorInfo, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws -> Data {
        let tensors = try tensorInfos()
        let output = MemoryOutput()
        try emit(header: headerBytes(tensors: tensors), tensors: tensors, to: output, tensorData: tensorData)
        return output.data
    }

    /// Header, padding, then each tensor's data and padding, checking each tensor's length.
    private func emit(
        header: [UInt8], tensors: [GGUFTensorInfo], to output: some ByteOutput,
        tensorData: (_ index: Int, _ tensor: GGUFTensorInfo, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        try header.withUnsafeBytes { try output.write($0) }
        try output.pad(to: alignment)
        for (index, tensor) in tensors.enumerated() {
            var written = 0
            try tensorData(index, tensor) { chunk in
                written += chunk.count
                guard written <= tensor.byteCount else {
                    throw GGUFError(.invalidValue, "writer: tensor '\(tensor.name)' was given more than its \(tensor.byteCount) bytes")
                }
                try output.write(chunk)
            }
            guard written == tensor.byteCount else {
                throw GGUFError(.invalidValue, "writer: tensor '\(tensor.name)' was given \(written) bytes, expected \(tensor.byteCount)")
            }
            try output.pad(to: alignment)
        }
    }

    // MARK: - Encoding

    private func headerBytes(tensors: [GGUFTensorInfo]) throws(GGUFError) -> [UInt8] {
        if let declared = keyPositions["general.alignment"].map({ entries[$0].value }) {
            guard declared.integerValue == alignment, declared.valueType == .uint32 else {
                throw GGUFError(.misaligned, "writer: general.alignment is \(declared), but the writer aligns to \(alignment) (a uint32)")
            }
        }
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        out.append(contentsOf: Array("GGUF".utf8))
        append(UInt32(3), to: &out)
        append(UInt64(tensors.count), to: &out)
        append(UInt64(entries.count), to: &out)
        for (key, value) in entries {
            append(string: key, to: &out)
            append(value.valueType.rawValue, to: &out)
            try append(value: value, key: key, depth: 0, to: &out)
        }
        for tensor in tensors {
            append(string: tensor.name, to: &out)
            append(UInt32(tensor.dimensions.count), to: &out)
            for dimension in tensor.dimensions { append(UInt64(dimension), to: &out) }
            append(tensor.type.rawValue, to: &out)
            append(UInt64(tensor.offset), to: &out)
        }
        return out
    }

    private func append(value: GGUFValue, key: String, depth: Int, to out: inout [UInt8]) throws(GGUFError) {
        switch value {
        case .uint8(let v): append(v, to: &out)
        case .int8(let v): append(v, to: &out)
        case .uint16(let v): append(v, to: &out)
        case .int16(let v): append(v, to: &out)
        case .uint32(let v): append(v, to: &out)
        case .int32(let v): append(v, to: &out)
        case .uint64(let v): append(v, to: &out)
        case .int64(let v): append(v, to: &out)
        case .float32(let v): append(v.bitPattern, to: &out)
        case .float64(let v): append(v.bitPattern, to: &out)
        case .bool(let v): append(UInt8(v ? 1 : 0), to: &out)
        case .string(let v): append(string: v, to: &out)
        case .array(let elements):
            guard depth < GGUFParser.maximumArrayDepth else {
                throw GGUFError(.nestingTooDeep, "writer: '\(key)' nests arrays more than \(GGUFParser.maximumArrayDepth) deep")
            }
            let elementType = elements.first?.valueType ?? .string
            guard elements.allSatisfy({ $0.valueType == elementType }) else {
                throw GGUFError(.invalidValue, "writer: array '\(key)' mixes element types; GGUF arrays hold one type")
            }
            append(elementType.rawValue, to: &out)
            append(UInt64(elements.count), to: &out)
            for element in elements { try append(value: element, key: key, depth: depth + 1, to: &out) }
        }
    }

    private func append<T: FixedWidthInteger>(_ value: T, to out: inout [UInt8]) {
        withUnsafeBytes(of: value.littleEndian) { out.append(contentsOf: $0) }
    }

    private func append(string: String, to out: inout [UInt8]) {
        let utf8 = Array(string.utf8)
        append(UInt64(utf8.count), to: &out)
        out.append(contentsOf: utf8)
    }

    static func align(_ offset: Int, _ alignment: Int) -> Int {
        (offset + alignment - 1) & ~(alignment - 1)
    }
}
