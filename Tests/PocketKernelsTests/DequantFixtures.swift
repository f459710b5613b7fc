import Foundation
import PocketGGUF

/// One format's entry in `Fixtures/dequant/index.json`, written by
/// `Fixtures/make_dequant_fixtures.py` from `gguf.quants.dequantize`.
struct DequantFixture: Decodable, Sendable {
    /// GGUF type name (`q4_K`).
    let name: String
    /// GGUF type number.
    let type: UInt32
    /// Number of blocks in the blocks file.
    let blocks: Int
    /// Number of floats in the expected file.
    let weights: Int
    /// File of raw block bytes.
    let blocksFile: String
    /// File of the reference output, little-endian float32.
    let expectedFile: String
}

/// The dequantization fixtures: raw blocks and the `gguf` package's float32 output for them.
enum DequantFixtures {
    private struct Index: Decodable {
        let formats: [DequantFixture]
    }

    /// `Fixtures/dequant`, as copied into the test bundle.
    static func directory() throws -> URL {
        guard let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw FixtureError("the test bundle has no Fixtures directory")
        }
        return fixtures.appendingPathComponent("dequant")
    }

    /// Every fixture listed in `index.json`.
    static func index() throws -> [DequantFixture] {
        let data = try Data(contentsOf: directory().appendingPathComponent("index.json"))
        return try JSONDecoder().decode(Index.self, from: data).formats
    }

    /// The fixture for `type` with its raw blocks and expected floats.
    static func load(_ type: GGMLType) throws -> (fixture: DequantFixture, blocks: [UInt8], expected: [Float]) {
        guard let fixture = try index().first(where: { $0.type == type.rawValue }) else {
            throw FixtureError("no dequantization fixture for \(type); rerun make_dequant_fixtures.py")
        }
        let directory = try directory()
        let blocks = try [UInt8](Data(contentsOf: directory.appendingPathComponent(fixture.blocksFile)))
        let raw = try Data(contentsOf: directory.appendingPathComponent(fixture.expectedFile))
        guard raw.count == 4 * fixture.weights else {
            throw FixtureError("\(fixture.expectedFile) has \(raw.count) bytes, expected \(4 * fixture.weights)")
        }
        let expected = raw.withUnsafeBytes { bytes in
            (0..<fixture.weights).map {
                Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
            }
        }
        return (fixture, blocks, expected)
    }
}

/// A missing or malformed fixture file.
struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
