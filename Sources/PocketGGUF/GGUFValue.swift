/// A metadata value of a GGUF file.
///
/// GGUF stores thirteen value types; arrays hold values of a single element type and may nest.
/// The typed accessors (``stringValue``, ``integerValue``…) return `nil` for a value of another
/// kind, so callers can read metadata without switching over every case.
public enum GGUFValue: Sendable, Equatable {
    case uint8(UInt8), int8(Int8), uint16(UInt16), int16(Int16), uint32(UInt32), int32(Int32)
    case uint64(UInt64), int64(Int64), float32(Float), float64(Double), bool(Bool), string(String)
    /// An array; every element has the same type (GGUF stores that type once).
    case array([GGUFValue])

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { s } else { nil }
    }

    /// The value as an `Int`, if this is an integer that fits.
    public var integerValue: Int? {
        switch self {
        case .uint8(let v): Int(v)
        case .int8(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint64(let v): Int(exactly: v)
        case .int64(let v): Int(v)
        default: nil
        }
    }

    /// The value as a `Double`, if this is a float or an integer.
    public var floatValue: Double? {
        switch self {
        case .float32(let v): Double(v)
        case .float64(let v): v
        case .uint64(let v): Double(v)
        default: integerValue.map(Double.init)
        }
    }

    /// The Boolean, if this is a Boolean.
    public var boolValue: Bool? {
        if case .bool(let b) = self { b } else { nil }
    }

    /// The elements, if this is an array.
    public var arrayValue: [GGUFValue]? {
        if case .array(let a) = self { a } else { nil }
    }

    /// The on-disk type number of this value (`gguf_type`).
    public var typeCode: UInt32 {
        switch self {
        case .uint8: 0
        case .int8: 1
        case .uint16: 2
        case .int16: 3
        case .uint32: 4
        case .int32: 5
        case .float32: 6
        case .bool: 7
        case .string: 8
        case .array: 9
        case .uint64: 10
        case .int64: 11
        case .float64: 12
        }
    }
}
