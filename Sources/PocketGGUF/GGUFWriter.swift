import Foundation

/// Writes GGUF version 3 files: metadata, a tensor table, and tensor data streamed in order.
///
/// ```swift
/// var writer = GGUFWriter()
/// writer.setMetadata("general.architecture", .string("llama"))
/// writer.addTensor(name: "output_norm.weight", dimensions: [576], type: .f32, byteCount: 576 * 4)
/// try writer.write(to: url) { index, tensor, sink in
///     try weights.withUnsafeBytes { try sink($0) }
/// }
/// ```
///
/// Tensor data is requested one tensor at a time, so a multi-gigabyte file never has to be
/// held in memory. Offsets are laid out with ``alignment`` padding, which is also recorded as
/// `general.alignment` when it differs from GGUF's default of 32. An empty array is written
/// with element type `uint8` (GGUF needs some element type; readers see an empty array).
public struct GGUFWriter {
    /// Alignment of every tensor's data.
    public let alignment: Int
    private var metadataKeys: [String] = []
    private var metadataValues: [String: GGUFValue] = [:]
    /// Tensors in the order they will be written.
    public private(set) var tensors: [GGUFTensorInfo] = []
    private var dataSize = 0

    /// Creates an empty writer.
    ///
    /// - Precondition: `alignment` is a power of two.
    public init(alignment: Int = 32) {
        precondition(alignment > 0 && alignment & (alignment - 1) == 0, "alignment must be a power of two")
        self.alignment = alignment
        if alignment != 32 { setMetadata("general.alignment", .uint32(UInt32(alignment))) }
    }

    /// Sets a metadata value; a new key goes last, an existing key keeps its place.
    public mutating func setMetadata(_ key: String, _ value: GGUFValue) {
        if metadataValues.updateValue(value, forKey: key) == nil { metadataKeys.append(key) }
    }

    /// Appends a tensor to the table; its data is supplied later by ``write(to:tensorData:)``.
    ///
    /// - Precondition: `byteCount` matches the shape and type.
    public mutating func addTensor(name: String, dimensions: [Int], type: GGMLType, byteCount: Int) {
        let info = GGUFTensorInfo(name: name, dimensions: dimensions, type: type, offset: dataSize)
        precondition(info.byteCount == byteCount, "tensor \(name): \(byteCount) bytes do not match \(dimensions) \(type)")
        tensors.append(info)
        dataSize += (byteCount + alignment - 1) / alignment * alignment
    }

    /// Writes the file, asking `tensorData` for each tensor's bytes in table order.
    ///
    /// - Parameter tensorData: Called once per tensor with its index, description and a sink;
    ///   it must pass exactly `tensor.byteCount` bytes to the sink, in one or more calls.
    /// - Throws: `CocoaError` for I/O failures, ``GGUFError`` when a tensor's data has the
    ///   wrong size, or whatever `tensorData` throws. A partial file is removed.
    public func write(
        to url: URL,
        tensorData: (_ index: Int, _ tensor: GGUFTensorInfo, _ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void
    ) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        let handle = try FileHandle(forWritingTo: url)
        var completed = false
        defer {
            try? handle.close()
            if !completed { try? FileManager.default.removeItem(at: url) }
        }
        var header = headerBytes()
        header.append(contentsOf: [UInt8](repeating: 0, count: padding(header.count)))
        try handle.write(contentsOf: header)

        var buffer = Data()
        for (index, tensor) in tensors.enumerated() {
            var written = 0
            try tensorData(index, tensor) { chunk in
                buffer.append(contentsOf: chunk)
                written += chunk.count
                if buffer.count >= 1 << 24 {
                    try handle.write(contentsOf: buffer)
                    buffer.removeAll(keepingCapacity: true)
                }
            }
            guard written == tensor.byteCount else {
                throw GGUFError(.truncated, "tensor '\(tensor.name)': \(written) bytes supplied, \(tensor.byteCount) expected")
            }
            buffer.append(contentsOf: [UInt8](repeating: 0, count: padding(tensor.byteCount)))
        }
        try handle.write(contentsOf: buffer)
        completed = true
    }

    private func padding(_ count: Int) -> Int { (alignment - count % alignment) % alignment }

    /// Magic, version, counts, metadata and tensor table.
    func headerBytes() -> [UInt8] {
        var out: [UInt8] = Array("GGUF".utf8)
        out.appendLittleEndian(UInt32(3))
        out.appendLittleEndian(UInt64(tensors.count))
        out.appendLittleEndian(UInt64(metadataKeys.count))
        for key in metadataKeys {
            out.appendString(key)
            let value = metadataValues[key]!
            out.appendLittleEndian(value.typeCode)
            out.appendValue(value)
        }
        for tensor in tensors {
            out.appendString(tensor.name)
            out.appendLittleEndian(UInt32(tensor.dimensions.count))
            for d in tensor.dimensions { out.appendLittleEndian(UInt64(d)) }
            out.appendLittleEndian(tensor.type.rawValue)
            out.appendLittleEndian(UInt64(tensor.offset))
        }
        return out
    }
}

extension [UInt8] {
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    fileprivate mutating func appendString(_ s: String) {
        appendLittleEndian(UInt64(s.utf8.count))
        append(contentsOf: s.utf8)
    }

    fileprivate mutating func appendValue(_ value: GGUFValue) {
        switch value {
        case .uint8(let v): appendLittleEndian(v)
        case .int8(let v): appendLittleEndian(v)
        case .uint16(let v): appendLittleEndian(v)
        case .int16(let v): appendLittleEndian(v)
        case .uint32(let v): appendLittleEndian(v)
        case .int32(let v): appendLittleEndian(v)
        case .uint64(let v): appendLittleEndian(v)
        case .int64(let v): appendLittleEndian(v)
        case .float32(let v): appendLittleEndian(v.bitPattern)
        case .float64(let v): appendLittleEndian(v.bitPattern)
        case .bool(let v): append(v ? 1 : 0)
        case .string(let s): appendString(s)
        case .array(let elements):
            appendLittleEndian(elements.first?.typeCode ?? 0)
            appendLittleEndian(UInt64(elements.count))
            for element in elements { appendValue(element) }
        }
    }
}
