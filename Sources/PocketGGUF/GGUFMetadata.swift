/// The key-value metadata of a GGUF file, in file order.
///
/// Optional accessors return `nil` when a key is absent or has another type; the `required…`
/// variants throw a ``GGUFError`` naming the key and the expected type, for keys a model
/// cannot do without.
///
/// ```swift
/// let layers = try file.metadata.requiredInteger("llama.block_count")
/// let tokens = file.metadata.strings("tokenizer.ggml.tokens") ?? []
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
        guard let converted = convert(value) else {
            throw GGUFError(.wrongType, "metadata key '\(key)' is \(value.valueType), expected \(expected)")
        }
        return converted
    }
}
