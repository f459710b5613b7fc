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
    /// The default model (a git-ignored symlink that may be absent).
    static let defaultModel = packageRoot.appendingPathComponent("Weights/SmolLM2-135M-Instruct.Q4_1.gguf")
    /// Whether the default model is present; suites that need it are disabled otherwise.
    static var hasDefaultModel: Bool { FileManager.default.fileExists(atPath: defaultModel.path) }
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
