/// Parses the header of a GGUF file: everything before the tensor data section.
///
/// The byte layout it reads (all integers little-endian, no padding between fields):
///
/// ```text
/// offset  size  field
/// 0       4     magic "GGUF" (0x47 0x47 0x55 0x46)
/// 4       4     version: u32, 2 or 3 (v1 used u32 counts and is rejected)
/// 8       8     tensor_count: u64
/// 16      8     metadata_kv_count: u64
/// 24      ...   metadata_kv_count × key-value:
///                 key:   string = u64 byte length + UTF-8 bytes (no NUL)
///                 type:  u32 value type (0 u8, 1 i8, 2 u16, 3 i16, 4 u32, 5 i32, 6 f32, 7 bool,
///                        8 string, 9 array, 10 u64, 11 i64, 12 f64)
///                 value: fixed-size number / 1-byte bool / string /
///                        array = u32 element type + u64 count + count values of that type
///         ...   tensor_count × tensor info:
///                 name:    string
///                 n_dims:  u32 (1...4)
///                 dims:    n_dims × u64, innermost (ne0, row length) first
///                 type:    u32 ggml_type (GGMLType)
///                 offset:  u64, relative to the data section, a multiple of the alignment
///         ...   zero padding up to a multiple of the alignment (general.alignment, default 32)
/// data    ...   tensor data section; tensor i occupies [data + offset_i, data + offset_i + size_i)
/// ```
///
/// Every read goes through ``ByteReader``, which fails softly; this type turns each failure
/// into one ``GGUFError`` with the absolute offset and the field being read. Counts read from
/// the file are checked against the bytes that remain before anything is allocated for them,
/// so a corrupt count can never cause an allocation larger than the file itself warrants.
struct GGUFParser {
    /// Deepest nesting of arrays accepted (an array of arrays is depth 2).
    static let maximumArrayDepth = 8
    /// The alignment GGUF uses when `general.alignment` is absent.
    static let defaultAlignment = 32

    private var reader: ByteReader
    private var fileSize: Int { reader.buffer.count }

    /// What the header says.
    struct Header {
        var version: UInt32
        var metadata: GGUFMetadata
        var tensors: [GGUFTensorInfo]
        var alignment: Int
        var dataOffset: Int
    }

    init(_ buffer: UnsafeRawBufferPointer) {
        reader = ByteReader(buffer)
    }

    /// Parses and validates the whole header, including that every tensor's data lies inside
    /// the file without overlapping another.
    mutating func parse() throws(GGUFError) -> Header {
        let magic: UInt32 = try read("the magic")
        guard magic == 0x4655_4747 else {  // "GGUF" read as a little-endian u32
            throw GGUFError(.badMagic, offset: 0,
                            "bad magic at offset 0: expected \"GGUF\" (47 47 55 46), found \(hex(magic))")
        }
        let version: UInt32 = try read("the version")
        guard version == 2 || version == 3 else {
            let message: String
            if version == 1 {
                message = "unsupported version 1 at offset 4: GGUF v1 (32-bit counts) is obsolete; expected 2 or 3"
            } else if version.byteSwapped == 2 || version.byteSwapped == 3 {
                message = "unsupported version at offset 4: the file is big-endian (v\(version.byteSwapped)); only little-endian is supported"
            } else {
                message = "unsupported version \(version) at offset 4: expected 2 or 3"
            }
            throw GGUFError(.unsupportedVersion, offset: 4, message)
        }
        let tensorCount = try readCount("tensor count", minimumItemSize: 8 + 4 + 8 + 4 + 8)
        let keyCount = try readCount("metadata key count", minimumItemSize: 8 + 4 + 1)

        var pairs: [(key: String, value: GGUFValue)] = []
        pairs.reserveCapacity(keyCount)
        var seenKeys = Set<String>()
        for _ in 0 ..< keyCount {
            let keyOffset = reader.offset
            let key = try readString("metadata key")
            guard seenKeys.insert(key).inserted else {
                throw GGUFError(.duplicateKey, offset: keyOffset, "duplicate metadata key '\(key)' at offset \(keyOffset)")
            }
            let type = try readValueType("value type of '\(key)'")
            let value = try readValue(type, key: key, depth: 0)
            pairs.append((key, value))
        }
        let metadata = GGUFMetadata(pairs)
        let alignment = try Self.alignment(in: metadata)

        var tensors: [GGUFTensorInfo] = []
        tensors.reserveCapacity(tensorCount)
        var seenNames = Set<String>()
        for _ in 0 ..< tensorCount {
            let infoOffset = reader.offset
            let tensor = try readTensorInfo(alignment: alignment)
            guard seenNames.insert(tensor.name).inserted else {
                throw GGUFError(.duplicateTensor, offset: infoOffset,
                                "duplicate tensor name '\(tensor.name)' at offset \(infoOffset)")
            }
            tensors.append(tensor)
        }

        let dataOffset = reader.alignedOffset(alignment)
        try checkDataRanges(tensors, dataOffset: dataOffset)
        return Header(version: version, metadata: metadata, tensors: tensors, alignment: alignment, dataOffset: dataOffset)
    }

    // MARK: - Fields

    private mutating func read<T: FixedWidthInteger>(_ what: @autoclosure () -> String, as: T.Type = T.self) throws(GGUFError) -> T {
        guard let value: T = reader.readInteger() else {
            throw .truncated(need: UInt64(MemoryLayout<T>.size), at: reader.offset, fileSize: fileSize, what: what())
        }
        return value
    }

    /// Reads a u64 count and checks that `count` items of at least `minimumItemSize` bytes
    /// each fit in what remains of the file.
    private mutating func readCount(_ what: String, minimumItemSize: Int) throws(GGUFError) -> Int {
        let offset = reader.offset
        let raw: UInt64 = try read(what)
        let fitting = UInt64(reader.remaining / minimumItemSize)
        guard raw <= fitting else {
            throw GGUFError(.absurdCount, offset: offset,
                            "absurd \(what) \(raw) at offset \(offset): at most \(fitting) fit in the \(reader.remaining) bytes that remain")
        }
        return Int(raw)
    }

    private mutating func readString(_ what: @autoclosure () -> String) throws(GGUFError) -> String {
        let lengthOffset = reader.offset
        let length: UInt64 = try read("length of \(what())")
        guard length <= UInt64(reader.remaining), let bytes = reader.readBytes(count: Int(length)) else {
            throw .truncated(need: length, at: reader.offset, fileSize: fileSize, what: "\(what()) (length read at offset \(lengthOffset))")
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw GGUFError(.invalidUTF8, offset: lengthOffset + 8,
                            "invalid UTF-8 in \(what()) at offset \(lengthOffset + 8) (\(length) bytes)")
        }
        return string
    }

    private mutating func readValueType(_ what: @autoclosure () -> String) throws(GGUFError) -> GGUFValueType {
        let offset = reader.offset
        let raw: UInt32 = try read(what())
        guard let type = GGUFValueType(rawValue: raw) else {
            throw GGUFError(.unknownValueType, offset: offset,
                            "unknown \(what()) \(raw) at offset \(offset): expected 0...12")
        }
        return type
    }

    private mutating func readValue(_ type: GGUFValueType, key: String, depth: Int) throws(GGUFError) -> GGUFValue {
        switch type {
        case .uint8: return .uint8(try read("value of '\(key)'"))
        case .int8: return .int8(try read("value of '\(key)'"))
        case .uint16: return .uint16(try read("value of '\(key)'"))
        case .int16: return .int16(try read("value of '\(key)'"))
        case .uint32: return .uint32(try read("value of '\(key)'"))
        case .int32: return .int32(try read("value of '\(key)'"))
        case .uint64: return .uint64(try read("value of '\(key)'"))
        case .int64: return .int64(try read("value of '\(key)'"))
        case .float32: return .float32(Float(bitPattern: try read("value of '\(key)'")))
        case .float64: return .float64(Double(bitPattern: try read("value of '\(key)'")))
        case .bool:
            let offset = reader.offset
            let byte: UInt8 = try read("value of '\(key)'")
            guard byte <= 1 else {
                throw GGUFError(.invalidValue, offset: offset, "bool value of '\(key)' at offset \(offset) is \(byte), expected 0 or 1")
            }
            return .bool(byte == 1)
        case .string: return .string(try readString("value of '\(key)'"))
        case .array:
            let offset = reader.offset
            guard depth < Self.maximumArrayDepth else {
                throw GGUFError(.nestingTooDeep, offset: offset,
                                "arrays nested more than \(Self.maximumArrayDepth) deep in '\(key)' at offset \(offset)")
            }
            let elementType = try readValueType("array element type of '\(key)'")
            let count = try readCount("element count of array '\(key)'", minimumItemSize: elementType.minimumSize)
            var elements: [GGUFValue] = []
            elements.reserveCapacity(count)
            for _ in 0 ..< count {
                elements.append(try readValue(elementType, key: key, depth: depth + 1))
            }
            return .array(elements)
        }
    }

    private mutating func readTensorInfo(alignment: Int) throws(GGUFError) -> GGUFTensorInfo {
        let name = try readString("tensor name")
        let dimsOffset = reader.offset
        let dimensionCount: UInt32 = try read("dimension count of '\(name)'")
        guard (1 ... 4).contains(dimensionCount) else {
            throw GGUFError(.absurdDimensions, offset: dimsOffset,
                            "tensor '\(name)' has \(dimensionCount) dimensions at offset \(dimsOffset): expected 1...4")
        }
        var dimensions: [Int] = []
        dimensions.reserveCapacity(Int(dimensionCount))
        for index in 0 ..< Int(dimensionCount) {
            let offset = reader.offset
            let raw: UInt64 = try read("dimension \(index) of '\(name)'")
            guard raw > 0, raw <= UInt64(Int.max) else {
                throw GGUFError(.absurdDimensions, offset: offset,
                                "tensor '\(name)' dimension \(index) is \(raw) at offset \(offset): expected 1...\(Int.max)")
            }
            dimensions.append(Int(raw))
        }
        let typeOffset = reader.offset
        let rawType: UInt32 = try read("type of '\(name)'")
        guard let type = GGMLType(rawValue: rawType) else {
            throw GGUFError(.unknownTensorType, offset: typeOffset,
                            "tensor '\(name)' has unknown type \(rawType) at offset \(typeOffset)")
        }
        guard GGUFTensorInfo.byteCount(dimensions: dimensions, type: type) != nil else {
            let reason = dimensions[0] % type.blockSize != 0
                ? "row length \(dimensions[0]) is not a multiple of the \(type) block size \(type.blockSize)"
                : "element or byte count overflows"
            throw GGUFError(.absurdDimensions, offset: dimsOffset,
                            "tensor '\(name)' of type \(type) has dimensions \(dimensions) at offset \(dimsOffset): \(reason)")
        }
        let offsetOffset = reader.offset
        let rawOffset: UInt64 = try read("data offset of '\(name)'")
        guard rawOffset <= UInt64(Int.max) else {
            throw GGUFError(.outOfBounds, offset: offsetOffset,
                            "tensor '\(name)' data offset \(rawOffset) at offset \(offsetOffset) is past the end of the file (\(fileSize) bytes)")
        }
        guard rawOffset % UInt64(alignment) == 0 else {
            throw GGUFError(.misaligned, offset: offsetOffset,
                            "tensor '\(name)' data offset \(rawOffset) at offset \(offsetOffset) is not a multiple of the alignment \(alignment)")
        }
        return GGUFTensorInfo(name: name, dimensions: dimensions, type: type, offset: Int(rawOffset))
    }

    // MARK: - Whole-file checks

    /// `general.alignment` if present (any integer type; must be a positive power of two),
    /// otherwise 32.
    private static func alignment(in metadata: GGUFMetadata) throws(GGUFError) -> Int {
        guard let value = metadata["general.alignment"] else { return defaultAlignment }
        guard let alignment = value.integerValue, alignment > 0, alignment & (alignment - 1) == 0 else {
            throw GGUFError(.misaligned, "general.alignment is \(value), expected a positive power of two")
        }
        return alignment
    }

    /// Every tensor's bytes must lie inside the file, and no two may overlap.
    private func checkDataRanges(_ tensors: [GGUFTensorInfo], dataOffset: Int) throws(GGUFError) {
        var ranges: [(start: Int, end: Int, index: Int)] = []
        ranges.reserveCapacity(tensors.count)
        for (index, tensor) in tensors.enumerated() {
            let (start, overflow1) = dataOffset.addingReportingOverflow(tensor.offset)
            let (end, overflow2) = start.addingReportingOverflow(tensor.byteCount)
            guard !overflow1, !overflow2, end <= fileSize else {
                throw GGUFError(.outOfBounds, offset: overflow1 ? nil : start,
                                "tensor '\(tensor.name)' data (\(tensor.byteCount) bytes at data offset \(tensor.offset), absolute \(overflow1 ? "overflow" : String(start))) runs past the end of the file (\(fileSize) bytes)")
            }
            ranges.append((start, end, index))
        }
        ranges.sort { $0.start < $1.start }
        for (previous, next) in zip(ranges, ranges.dropFirst()) where next.start < previous.end {
            throw GGUFError(.overlappingTensors, offset: next.start,
                            "tensors '\(tensors[previous.index].name)' and '\(tensors[next.index].name)' overlap at offset \(next.start)")
        }
    }

    private func hex(_ value: UInt32) -> String {
        withUnsafeBytes(of: value.littleEndian) { bytes in
            bytes.map { byte in
                let digits = String(byte, radix: 16)
                return byte < 16 ? "0" + digits : digits
            }.joined(separator: " ")
        }
    }
}
