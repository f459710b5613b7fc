import Foundation

// GGUF byte layout (little-endian), versions 2 and 3:
//
//   magic          4 bytes  "GGUF"
//   version        u32      2 or 3
//   tensor_count   u64
//   metadata_count u64
//   metadata       metadata_count × { key: string, type: u32, value }
//   tensor infos   tensor_count × { name: string, n_dims: u32, dims: n_dims × u64,
//                                   type: u32 (ggml_type), offset: u64 }
//   padding        to a multiple of `general.alignment` (default 32)
//   tensor data    each tensor at data_start + offset, offsets multiples of the alignment
//
//   string = u64 length + UTF-8 bytes; value types 0…12 = u8 i8 u16 i16 u32 i32 f32 bool
//   string array u64 i64 f64; array = element type u32 + count u64 + elements.

/// A GGUF model file: its metadata, tensor table and (memory-mapped) tensor data.
///
/// Opening a file maps it read-only and parses the header; tensor data is never copied —
/// ``bytes(of:)`` returns a view into the mapping, valid for the lifetime of the `GGUFFile`.
/// Everything read from the header is checked against the file's length; a malformed file
/// throws a ``GGUFError`` naming the problem and the byte offset.
///
/// ```swift
/// let file = try GGUFFile(contentsOf: URL(fileURLWithPath: "model.gguf"))
/// print(file.architecture ?? "?", file.tensors.count)
/// let q = file.tensor(named: "blk.0.attn_q.weight")!
/// let raw = file.bytes(of: q)   // UnsafeRawBufferPointer into the mapping
/// ```
public final class GGUFFile: @unchecked Sendable {
    /// The format version (2 or 3).
    public let version: UInt32
    /// Key/value metadata in file order.
    public let metadata: GGUFMetadata
    /// The tensor table in file order.
    public let tensors: [GGUFTensorInfo]
    /// Alignment of the tensor data (`general.alignment`, default 32).
    public let alignment: Int
    /// Absolute offset of the tensor data section.
    public let dataOffset: Int
    /// Size of the file in bytes.
    public let byteCount: Int

    private let storage: Storage
    private let index: [String: Int]

    /// Arrays nested deeper than this are rejected (GGUF files in practice nest at most once).
    static let maximumNesting = 8
    /// Tensors with more dimensions than this are rejected (ggml supports four).
    static let maximumDimensions = 4

    /// Memory-maps and parses the file at `url`.
    ///
    /// - Throws: ``GGUFError`` with kind `.io` when the file cannot be opened or mapped, or any
    ///   other kind when its contents are malformed.
    public convenience init(contentsOf url: URL) throws(GGUFError) {
        try self.init(storage: Storage(mapping: url))
    }

    /// Parses a GGUF file held in memory (the bytes are copied into an owned buffer).
    public convenience init(data: Data) throws(GGUFError) {
        try self.init(storage: Storage(copying: data))
    }

    private init(storage: Storage) throws(GGUFError) {
        self.storage = storage
        let bytes = storage.bytes
        byteCount = bytes.count
        var reader = ByteReader(bytes)

        try reader.require(4, "the magic number")
        guard bytes.loadUnaligned(as: UInt32.self) == UInt32(littleEndian: 0x4655_4747) else {
            throw GGUFError(.badMagic, at: 0, "not a GGUF file: the first bytes are not 'GGUF'")
        }
        _ = try reader.read(UInt32.self, "magic")
        let versionOffset = reader.offset
        version = try reader.read(UInt32.self, "the version")
        guard version == 2 || version == 3 else {
            throw GGUFError(.unsupportedVersion, at: versionOffset,
                            "unsupported GGUF version \(version) (Pocket reads versions 2 and 3)")
        }
        // Each tensor info needs at least 8 + 4 + 8 + 4 + 8 bytes; each key/value at least 8 + 4 + 1.
        let tensorCount = try reader.readCount("tensor count", atMost: reader.remaining / 32)
        let metadataCount = try reader.readCount("metadata count", atMost: reader.remaining / 13)

        var pairs: [(String, GGUFValue)] = []
        pairs.reserveCapacity(metadataCount)
        var seenKeys = Set<String>()
        for i in 0..<metadataCount {
            let keyOffset = reader.offset
            let key = try reader.readString("metadata key #\(i)")
            guard seenKeys.insert(key).inserted else {
                throw GGUFError(.duplicate, at: keyOffset, "metadata key '\(key)' appears twice")
            }
            let typeOffset = reader.offset
            let type = try reader.read(UInt32.self, "type of '\(key)'")
            let value = try Self.readValue(type: type, typeOffset: typeOffset, &reader, key: key, depth: 0)
            pairs.append((key, value))
        }
        metadata = GGUFMetadata(pairs)

        var alignment = 32
        if let value = metadata["general.alignment"] {
            guard let a = value.integerValue, a > 0, a <= 1 << 20, a & (a - 1) == 0 else {
                throw GGUFError(.misaligned, "general.alignment must be a power of two up to 1 MiB, found \(value)")
            }
            alignment = a
        }
        self.alignment = alignment

        var tensors: [GGUFTensorInfo] = []
        tensors.reserveCapacity(tensorCount)
        var index: [String: Int] = [:]
        for i in 0..<tensorCount {
            let start = reader.offset
            let name = try reader.readString("name of tensor #\(i)")
            guard index[name] == nil else {
                throw GGUFError(.duplicate, at: start, "tensor '\(name)' appears twice")
            }
            let dimsOffset = reader.offset
            let rank = Int(try reader.read(UInt32.self, "dimension count of '\(name)'"))
            guard (1...Self.maximumDimensions).contains(rank) else {
                throw GGUFError(.absurdDimensions, at: dimsOffset,
                                "tensor '\(name)' has \(rank) dimensions (1 to \(Self.maximumDimensions) supported)")
            }
            var dimensions: [Int] = []
            var elements = 1
            for d in 0..<rank {
                let raw = try reader.read(UInt64.self, "dimension \(d) of '\(name)'")
                let (product, overflow) = elements.multipliedReportingOverflow(by: Int(clamping: raw))
                guard raw >= 1, raw <= UInt64(Int32.max), !overflow, product <= Int(Int32.max) * 64 else {
                    throw GGUFError(.absurdDimensions, at: dimsOffset,
                                    "tensor '\(name)' has an impossible dimension \(raw)")
                }
                elements = product
                dimensions.append(Int(raw))
            }
            let typeOffset = reader.offset
            let rawType = try reader.read(UInt32.self, "type of '\(name)'")
            guard let type = GGMLType(rawValue: rawType) else {
                throw GGUFError(.unknownTensorType, at: typeOffset, "tensor '\(name)' has unknown type number \(rawType)")
            }
            guard dimensions[0] % type.blockSize == 0 else {
                throw GGUFError(.absurdDimensions, at: dimsOffset,
                                "tensor '\(name)': row length \(dimensions[0]) is not a multiple of the \(type) block size \(type.blockSize)")
            }
            let offsetOffset = reader.offset
            let offset = try reader.read(UInt64.self, "data offset of '\(name)'")
            guard offset <= UInt64(Int.max / 2) else {
                throw GGUFError(.outOfBounds, at: offsetOffset, "tensor '\(name)' has data offset \(offset) beyond any file")
            }
            guard Int(offset) % alignment == 0 else {
                throw GGUFError(.misaligned, at: offsetOffset,
                                "tensor '\(name)' data offset \(offset) is not a multiple of the alignment \(alignment)")
            }
            index[name] = tensors.count
            tensors.append(GGUFTensorInfo(name: name, dimensions: dimensions, type: type, offset: Int(offset)))
        }

        let dataOffset = (reader.offset + alignment - 1) / alignment * alignment
        for tensor in tensors {
            let (end, overflow) = (dataOffset + tensor.offset).addingReportingOverflow(tensor.byteCount)
            guard !overflow, end <= byteCount else {
                throw GGUFError(.outOfBounds, at: dataOffset + tensor.offset,
                                "tensor '\(tensor.name)' (\(tensor.byteCount) bytes at data offset \(tensor.offset)) extends past the end of the file (\(byteCount) bytes)")
            }
        }
        self.dataOffset = dataOffset
        self.tensors = tensors
        self.index = index
    }

    /// Reads one metadata value of type number `type`.
    private static func readValue(
        type: UInt32, typeOffset: Int, _ r: inout ByteReader, key: String, depth: Int
    ) throws(GGUFError) -> GGUFValue {
        switch type {
        case 0: return .uint8(try r.read(UInt8.self, "value of '\(key)'"))
        case 1: return .int8(try r.read(Int8.self, "value of '\(key)'"))
        case 2: return .uint16(try r.read(UInt16.self, "value of '\(key)'"))
        case 3: return .int16(try r.read(Int16.self, "value of '\(key)'"))
        case 4: return .uint32(try r.read(UInt32.self, "value of '\(key)'"))
        case 5: return .int32(try r.read(Int32.self, "value of '\(key)'"))
        case 6: return .float32(try r.readFloat("value of '\(key)'"))
        case 7:
            let at = r.offset
            let byte = try r.read(UInt8.self, "value of '\(key)'")
            guard byte <= 1 else { throw GGUFError(.wrongType, at: at, "Boolean '\(key)' has byte value \(byte)") }
            return .bool(byte == 1)
        case 8: return .string(try r.readString("value of '\(key)'"))
        case 9:
            guard depth < maximumNesting else {
                throw GGUFError(.nestingTooDeep, at: typeOffset, "arrays in '\(key)' nest deeper than \(maximumNesting) levels")
            }
            let elementOffset = r.offset
            let elementType = try r.read(UInt32.self, "array element type of '\(key)'")
            guard let size = minimumSize(ofType: elementType) else {
                throw GGUFError(.unknownValueType, at: elementOffset, "array '\(key)' has unknown element type \(elementType)")
            }
            let count = try r.readCount("element count of '\(key)'", atMost: r.remaining / size)
            var elements: [GGUFValue] = []
            elements.reserveCapacity(count)
            for _ in 0..<count {
                elements.append(try readValue(type: elementType, typeOffset: elementOffset, &r, key: key, depth: depth + 1))
            }
            return .array(elements)
        case 10: return .uint64(try r.read(UInt64.self, "value of '\(key)'"))
        case 11: return .int64(try r.read(Int64.self, "value of '\(key)'"))
        case 12: return .float64(try r.readDouble("value of '\(key)'"))
        default:
            throw GGUFError(.unknownValueType, at: typeOffset, "metadata '\(key)' has unknown value type \(type)")
        }
    }

    /// Fewest bytes a value of a type can occupy (strings: the length; arrays: type + count).
    private static func minimumSize(ofType type: UInt32) -> Int? {
        switch type {
        case 0, 1, 7: 1
        case 2, 3: 2
        case 4, 5, 6: 4
        case 8, 10, 11, 12: 8
        case 9: 12
        default: nil
        }
    }

    /// The tensor called `name`, if the file has one.
    public func tensor(named name: String) -> GGUFTensorInfo? {
        index[name].map { tensors[$0] }
    }

    /// `general.architecture`, e.g. `"llama"`.
    public var architecture: String? { metadata.string("general.architecture") }

    /// The bytes of `tensor`, pointing into the mapped file (valid while this object lives).
    ///
    /// - Precondition: `tensor` comes from this file's ``tensors``.
    public func bytes(of tensor: GGUFTensorInfo) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: storage.bytes[(dataOffset + tensor.offset)..<(dataOffset + tensor.offset + tensor.byteCount)])
    }
}
