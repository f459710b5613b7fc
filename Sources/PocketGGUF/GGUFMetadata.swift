/// The key/value metadata of a GGUF file, in file order.
///
/// ```swift
/// let layers = file.metadata.integer("llama.block_count")      // Int?
/// let name = try file.metadata.requiredString("general.architecture")
/// ```
public struct GGUFMetadata: Sendable {
    /// Keys in the order the file lists them.
    public let keys: [String]
    private let values: [String: GGUFValue]

    /// Creates metadata from ordered pairs; later duplicates are the caller's responsibility.
    public init(_ pairs: [(String, GGUFValue)]) {
        keys = pairs.map(\.0)
        values = Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// The value for `key`, if present.
    public subscript(key: String) -> GGUFValue? { values[key] }

    /// The string at `key`, if present and a string.
    public func string(_ key: String) -> String? { values[key]?.stringValue }
    /// The integer at `key`, if present and an integer that fits in `Int`.
    public func integer(_ key: String) -> Int? { values[key]?.integerValue }
    /// The number at `key`, if present and a float or integer.
    public func float(_ key: String) -> Double? { values[key]?.floatValue }
    /// The Boolean at `key`, if present and a Boolean.
    public func bool(_ key: String) -> Bool? { values[key]?.boolValue }

    /// The array of strings at `key`, if present and every element is a string.
    public func strings(_ key: String) -> [String]? {
        guard let array = values[key]?.arrayValue else { return nil }
        var result: [String] = []
        result.reserveCapacity(array.count)
        for element in array {
            guard let s = element.stringValue else { return nil }
            result.append(s)
        }
        return result
    }

    /// The array of integers at `key`, if present and every element is an integer.
    public func integers(_ key: String) -> [Int]? {
        guard let array = values[key]?.arrayValue else { return nil }
        var result: [Int] = []
        result.reserveCapacity(array.count)
        for element in array {
            guard let i = element.integerValue else { return nil }
            result.append(i)
        }
        return result
    }

    /// The array of numbers at `key`, if present and every element is a number.
    public func floats(_ key: String) -> [Double]? {
        guard let array = values[key]?.arrayValue else { return nil }
        var result: [Double] = []
        for element in array {
            guard let f = element.floatValue else { return nil }
            result.append(f)
        }
        return result
    }

    /// The string at `key`; throws when it is absent or not a string.
    public func requiredString(_ key: String) throws(GGUFError) -> String {
        try required(key, "a string") { $0.stringValue }
    }

    /// The integer at `key`; throws when it is absent or not an integer.
    public func requiredInteger(_ key: String) throws(GGUFError) -> Int {
        try required(key, "an integer") { $0.integerValue }
    }

    /// The number at `key`; throws when it is absent or not a number.
    public func requiredFloat(_ key: String) throws(GGUFError) -> Double {
        try required(key, "a number") { $0.floatValue }
    }

    private func required<T>(_ key: String, _ expected: String, _ read: (GGUFValue) -> T?) throws(GGUFError) -> T {
        guard let value = values[key] else { throw GGUFError(.missingKey, "missing metadata key '\(key)'") }
        guard let result = read(value) else {
            throw GGUFError(.wrongType, "metadata key '\(key)' should be \(expected), found \(value.typeName)")
        }
        return result
    }
}

extension GGUFValue {
    /// The GGUF name of this value's type (`uint32`, `string`, `array`…).
    public var typeName: String {
        ["uint8", "int8", "uint16", "int16", "uint32", "int32", "float32", "bool", "string", "array",
         "uint64", "int64", "float64"][Int(typeCode)]
    }
}
