/// The key-value metadata of a GGUF file, in file order.
///
/// Three kinds of accessor:
/// - `string(_:)`, `integer(_:)`…: `nil` when the key is absent *or* has another type (for
///   display and probing).
/// - `optionalString(_:)`, `optionalInteger(_:)`…: `nil` only when the key is absent; a key that
///   is present with another type (or an integer that does not fit `Int`) throws, so a wrong
///   value never silently becomes a default.
/// - `requiredString(_:)`, `requiredInteger(_:)`…: throw when the key is absent as well.
///
/// The errors are ``GGUFError`` of kind `missingKey` or `wrongType`, naming the key, the value
/// found and the type expected.
///
/// ```swift
/// let layers = try file.metadata.requiredInteger("llama.block_count")
/// let context = try file.metadata.optionalInteger("llama.context_length") ?? 2048
/// ```
public struct GGUFMetadata: Sendable {
    /// Keys in the order they appear in the file.
    public private(set) var keys: [String]
    private var values: [String: GGUFValue]

    /// Creates metadata from key-value pairs, keeping their order. A repeated key keeps its
    /// first position and takes the last value.
    ///
    /// - Parameter pairs: The entries, in file order.
    public init(_ pairs: [(key: String, value: GGUFValue)] = []) {
        keys = []
        values = [:]
        keys.reserveCapacity(pairs.count)
        values.reserveCapacity(pairs.count)
        for (key, value) in pairs {
            if values.updateValue(value, forKey: key) == nil { keys.append(key) }
        }
    }

    /// Number of entries.
    public var count: Int { keys.count }

    /// The value stored under `key`, or `nil` if there is none.
    public subscript(key: String) -> GGUFValue? { values[key] }

    /// The string stored under `key`, or `nil` if it is absent or not a string.
    public func string(_ key: String) -> String? { values[key]?.stringValue }

    /// The integer stored under `key` (any integer type that fits `Int`), or `nil`.
    public func integer(_ key: String) -> Int? { values[key]?.integerValue }

    /// The number stored under `key` (a float, or an integer converted), or `nil`.
    public func float(_ key: String) -> Double? { values[key]?.floatValue }

    /// The flag stored under `key`, or `nil` if it is absent or not a bool.
    public func bool(_ key: String) -> Bool? { values[key]?.boolValue }

    /// The array of strings stored under `key`, or `nil` if absent, not an array, or an element
    /// is not a string.
    public func strings(_ key: String) -> [String]? { elements(key) { $0.stringValue } }

    /// The array of integers stored under `key`, or `nil` if absent, not an array, or an element
    /// is not an integer that fits `Int`.
    public func integers(_ key: String) -> [Int]? { elements(key) { $0.integerValue } }

    /// The array of numbers stored under `key`, or `nil` if absent, not an array, or an element
    /// is not a number.
    public func floats(_ key: String) -> [Double]? { elements(key) { $0.floatValue } }

    /// The string stored under `key`.
    ///
    /// - Throws: ``GGUFError`` of kind `missingKey` or `wrongType`.
    public func requiredString(_ key: String) throws(GGUFError) -> String {
        try required(key, expected: "a string") { $0.stringValue }
    }

    /// The integer stored under `key` (any integer type that fits `Int`).
    ///
    /// - Throws: ``GGUFError`` of kind `missingKey` or `wrongType`.
    public func requiredInteger(_ key: String) throws(GGUFError) -> Int {
        try required(key, expected: "an integer") { $0.integerValue }
    }

    /// The number stored under `key` (a float, or an integer converted).
    ///
    /// - Throws: ``GGUFError`` of kind `missingKey` or `wrongType`.
    public func requiredFloat(_ key: String) throws(GGUFError) -> Double {
        try required(key, expected: "a number") { $0.floatValue }
    }

    /// The string stored under `key`, or `nil` if the key is absent.
    ///
    /// - Throws: ``GGUFError`` of kind `wrongType` if the key holds something else.
    public func optionalString(_ key: String) throws(GGUFError) -> String? {
        try optional(key, expected: "a string") { $0.stringValue }
    }

    /// The integer stored under `key` (any integer type whose value fits `Int`), or `nil` if
    /// the key is absent.
    ///
    /// - Throws: ``GGUFError`` of kind `wrongType` if the key holds a non-integer or an integer
    ///   that does not fit `Int` (such as a `uint64` of 2^63).
    public func optionalInteger(_ key: String) throws(GGUFError) -> Int? {
        try optional(key, expected: "an integer that fits Int") { $0.integerValue }
    }

    /// The number stored under `key` (a float, or an integer converted), or `nil` if the key
    /// is absent.
    ///
    /// - Throws: ``GGUFError`` of kind `wrongType` if the key holds something else.
    public func optionalFloat(_ key: String) throws(GGUFError) -> Double? {
        try optional(key, expected: "a number") { $0.floatValue }
    }

    /// The flag stored under `key`, or `nil` if the key is absent.
    ///
    /// - Throws: ``GGUFError`` of kind `wrongType` if the key holds something else.
    public func optionalBool(_ key: String) throws(GGUFError) -> Bool? {
        try optional(key, expected: "a bool") { $0.boolValue }
    }

    /// The array of strings stored under `key`, or `nil` if the key is absent.
    ///
    /// - Throws: ``GGUFError`` of kind `wrongType` if the key holds something else or an element
    ///   is not a string.
    public func optionalStrings(_ key: String) throws(GGUFError) -> [String]? {
        guard values[key] != nil else { return nil }
        guard let result = strings(key) else { throw wrongType(key, expected: "an array of strings") }
        return result
    }

    /// The array of integers stored under `key`, or `nil` if the key is absent.
    ///
    /// - Throws: ``GGUFError`` of kind `wrongType` if the key holds something else or an element
    ///   is not an integer that fits `Int`.
    public func optionalIntegers(_ key: String) throws(GGUFError) -> [Int]? {
        guard values[key] != nil else { return nil }
        guard let result = integers(key) else { throw wrongType(key, expected: "an array of integers") }
        return result
    }

    private func optional<T>(_ key: String, expected: String, _ convert: (GGUFValue) -> T?) throws(GGUFError) -> T? {
        guard let value = values[key] else { return nil }
        guard let converted = convert(value) else { throw wrongType(key, expected: expected) }
        return converted
    }

    private func wrongType(_ key: String, expected: String) -> GGUFError {
        GGUFError(.wrongType, "metadata key '\(key)' is \(values[key]?.summary ?? "absent"), expected \(expected)")
    }

    private func elements<T>(_ key: String, _ convert: (GGUFValue) -> T?) -> [T]? {
        guard let array = values[key]?.arrayValue else { return nil }
        var result: [T] = []
        result.reserveCapacity(array.count)
        for element in array {
            guard let converted = convert(element) else { return nil }
            result.append(converted)
        }
        return result
    }

    private func required<T>(
        _ key: String, expected: String, _ convert: (GGUFValue) -> T?
    ) throws(GGUFError) -> T {
        guard let value = values[key] else {
            throw GGUFError(.missingKey, "missing metadata key '\(key)' (expected \(expected))")
        }
        guard let converted = convert(value) else { throw wrongType(key, expected: expected) }
        return converted
    }
}
