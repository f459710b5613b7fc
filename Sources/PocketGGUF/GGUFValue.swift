/// A metadata value of a GGUF file.
///
/// GGUF defines 13 value types: ten fixed-width numbers, `bool`, `string` and `array`. An array
/// holds values of a single element type (possibly arrays themselves). The accessors return
/// `nil` rather than trapping when the value has another type.
///
/// ```swift
/// let layers = file.metadata["llama.block_count"]?.integerValue   // 30
/// ```
public enum GGUFValue: Sendable, Equatable {
    /// GGUF type 0.
    case uint8(UInt8)
    /// GGUF type 1.
    case int8(Int8)
    /// GGUF type 2.
    case uint16(UInt16)
    /// GGUF type 3.
    case int16(Int16)
    /// GGUF type 4.
    case uint32(UInt32)
    /// GGUF type 5.
    case int32(Int32)
    /// GGUF type 10.
    case uint64(UInt64)
    /// GGUF type 11.
    case int64(Int64)
    /// GGUF type 6.
    case float32(Float)
    /// GGUF type 12.
    case float64(Double)
    /// GGUF type 7 (one byte, 0 or 1).
    case bool(Bool)
    /// GGUF type 8 (UTF-8, length-prefixed, not NUL-terminated).
    case string(String)
    /// GGUF type 9: values of one element type.
    case array([GGUFValue])

    /// The string, if this is a `.string`.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// Any integer case whose value fits in `Int`; `nil` for other cases or out-of-range values.
    public var integerValue: Int? {
        switch self {
        case .uint8(let v): Int(v)
        case .int8(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        case .int64(let v): Int(exactly: v)
        default: nil
        }
    }

    /// A `.float32` or `.float64` as `Double`; integers are converted (rounding if huge).
    public var floatValue: Double? {
        switch self {
        case .float32(let v): Double(v)
        case .float64(let v): v
        case .uint64(let v): Double(v)
        case .int64(let v): Double(v)
        default: integerValue.map(Double.init)
        }
    }

    /// The flag, if this is a `.bool`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an `.array`.
    public var arrayValue: [GGUFValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The type and a short rendering of the value, for error messages: `uint64 9223372036854775808`,
    /// `string "4096"`, `array of 3 uint32`.
    public var summary: String {
        switch self {
        case .uint8(let v): "uint8 \(v)"
        case .int8(let v): "int8 \(v)"
        case .uint16(let v): "uint16 \(v)"
        case .int16(let v): "int16 \(v)"
        case .uint32(let v): "uint32 \(v)"
        case .int32(let v): "int32 \(v)"
        case .uint64(let v): "uint64 \(v)"
        case .int64(let v): "int64 \(v)"
        case .float32(let v): "float32 \(v)"
        case .float64(let v): "float64 \(v)"
        case .bool(let v): "bool \(v)"
        case .string(let v): "string " + (v.count > 40 ? String(v.prefix(40)).debugDescription + "…" : v.debugDescription)
        case .array(let elements):
            "array of \(elements.count)" + (elements.first.map { " \($0.valueType)" } ?? "")
        }
    }

    /// The on-disk type of this value, as the GGUF type number.
    public var valueType: GGUFValueType {
        switch self {
        case .uint8: .uint8
        case .int8: .int8
        case .uint16: .uint16
        case .int16: .int16
        case .uint32: .uint32
        case .int32: .int32
        case .uint64: .uint64
        case .int64: .int64
        case .float32: .float32
        case .float64: .float64
        case .bool: .bool
        case .string: .string
        case .array: .array
        }
    }
}

/// The type tag GGUF writes before every metadata value (and array element type).
///
/// Raw values are the on-disk numbers (`gguf_metadata_value_type`); they are frozen.
public enum GGUFValueType: UInt32, Sendable, CaseIterable, CustomStringConvertible {
    /// 0
    case uint8 = 0
    /// 1
    case int8 = 1
    /// 2
    case uint16 = 2
    /// 3
    case int16 = 3
    /// 4
    case uint32 = 4
    /// 5
    case int32 = 5
    /// 6
    case float32 = 6
    /// 7
    case bool = 7
    /// 8
    case string = 8
    /// 9
    case array = 9
    /// 10
    case uint64 = 10
    /// 11
    case int64 = 11
    /// 12
    case float64 = 12

    /// Bytes one value of this type occupies on disk, or `nil` for `string` and `array`,
    /// whose sizes vary.
    public var fixedSize: Int? {
        switch self {
        case .uint8, .int8, .bool: 1
        case .uint16, .int16: 2
        case .uint32, .int32, .float32: 4
        case .uint64, .int64, .float64: 8
        case .string, .array: nil
        }
    }

    /// The fewest bytes one value can take on disk: its fixed size, 8 for a string (the length)
    /// and 12 for an array (element type + count). Used to reject counts that cannot fit.
    var minimumSize: Int {
        switch self {
        case .string: 8
        case .array: 12
        default: fixedSize!
        }
    }

    /// The lowercase name used in error messages (`"uint32"`, `"string"`).
    public var description: String {
        switch self {
        case .uint8: "uint8"
        case .int8: "int8"
        case .uint16: "uint16"
        case .int16: "int16"
        case .uint32: "uint32"
        case .int32: "int32"
        case .float32: "float32"
        case .bool: "bool"
        case .string: "string"
        case .array: "array"
        case .uint64: "uint64"
        case .int64: "int64"
        case .float64: "float64"
        }
    }
}
