import Foundation
@testable import PocketGGUF

/// Paths computed from this file's location, so tests run from any working directory.
enum TestPaths {
    /// The package root: three levels up from `Tests/PocketGGUFTests/TestSupport.swift`.
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// `Tests/PocketGGUFTests/Fixtures`.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures")
    /// SmolLM2-135M-Instruct, the small test model (a git-ignored symlink that may be absent).
    static let smolLM2 = packageRoot.appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
    /// Whether SmolLM2 is present; suites that need it are disabled otherwise.
    static var hasSmolLM2: Bool { FileManager.default.fileExists(atPath: smolLM2.path) }
}

/// A JSON value decoded from a fixture, loosely typed.
enum JSON: Decodable, Equatable {
    case null, bool(Bool), number(Double), string(String), array([JSON]), object([String: JSON])

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSON].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSON].self)) }
    }

    subscript(key: String) -> JSON? { if case .object(let o) = self { o[key] } else { nil } }
    var int: Int? { if case .number(let n) = self { Int(exactly: n) } else { nil } }
    var double: Double? { if case .number(let n) = self { n } else { nil } }
    var string: String? { if case .string(let s) = self { s } else { nil } }
    var array: [JSON]? { if case .array(let a) = self { a } else { nil } }

    static func load(_ name: String) throws -> JSON {
        try JSONDecoder().decode(JSON.self, from: Data(contentsOf: TestPaths.fixtures.appendingPathComponent(name)))
    }
}

/// Converts a metadata value to the JSON the fixture script writes for it, for comparison.
func jsonScalar(_ value: GGUFValue) -> JSON? {
    switch value {
    case .string(let s): .string(s)
    case .bool(let b): .bool(b)
    case .float32(let f): .number(Double(f))
    case .float64(let d): .number(d)
    case .array: nil
    default: value.integerValue.map { .number(Double($0)) }
    }
}

/// Builds GGUF bytes by hand, field by field, independently of `GGUFWriter`, so reader tests do
/// not depend on the writer. Type numbers are spelled out from the GGUF spec.
struct ByteBuilder {
    var bytes: [UInt8] = []
    var count: Int { bytes.count }
    var data: Data { Data(bytes) }

    mutating func int<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }
    mutating func u8(_ v: UInt8) { int(v) }
    mutating func u32(_ v: UInt32) { int(v) }
    mutating func u64(_ v: UInt64) { int(v) }
    mutating func raw(_ v: [UInt8]) { bytes.append(contentsOf: v) }
    /// A GGUF string: u64 length, then the bytes.
    mutating func string(_ s: String) { rawString(Array(s.utf8)) }
    mutating func rawString(_ b: [UInt8]) { u64(UInt64(b.count)); raw(b) }
    /// Magic, version, tensor count, key count.
    mutating func header(version: UInt32 = 3, tensors: UInt64, keys: UInt64) {
        raw([0x47, 0x47, 0x55, 0x46]); u32(version); u64(tensors); u64(keys)
    }
    /// A key with a u32 value (type 4).
    mutating func keyU32(_ key: String, _ value: UInt32) { string(key); u32(4); u32(value) }
    /// A key with a string value (type 8).
    mutating func keyString(_ key: String, _ value: String) { string(key); u32(8); string(value) }
    /// A tensor info.
    mutating func tensor(_ name: String, dims: [UInt64], type: UInt32, offset: UInt64) {
        string(name); u32(UInt32(dims.count)); dims.forEach { u64($0) }; u32(type); u64(offset)
    }
    mutating func pad(to alignment: Int) {
        while bytes.count % alignment != 0 { bytes.append(0) }
    }
}

/// Parses `bytes` expecting a failure, and returns the error (or `nil` if it parsed).
func parseError(_ bytes: [UInt8]) -> GGUFError? {
    do {
        _ = try GGUFFile(data: Data(bytes))
        return nil
    } catch {
        return error
    }
}
