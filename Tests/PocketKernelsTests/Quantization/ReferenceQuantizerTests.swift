import Foundation
import PocketGGUF
import Testing
@testable import PocketKernels

/// One format's entry in `Fixtures/quant/index.json`, written by
/// `Fixtures/make_quant_fixtures.py` from `gguf.quants.quantize`.
struct QuantFixture: Decodable, Sendable, CustomTestStringConvertible {
    let name: String
    let type: UInt32
    let blocks: Int
    let inputFile: String
    let expectedFile: String
    var testDescription: String { name }

    private struct Index: Decodable { let formats: [QuantFixture] }

    static func directory() throws -> URL {
        guard let fixtures = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw FixtureError("the test bundle has no Fixtures directory")
        }
        return fixtures.appendingPathComponent("quant")
    }

    static func all() throws -> [QuantFixture] {
        let data = try Data(contentsOf: directory().appendingPathComponent("index.json"))
        return try JSONDecoder().decode(Index.self, from: data).formats
    }

    /// The fixture's input floats and the reference encoder's bytes.
    func load() throws -> (input: [Float], expected: [UInt8]) {
        let directory = try Self.directory()
        let raw = try Data(contentsOf: directory.appendingPathComponent(inputFile))
        let input = raw.withUnsafeBytes { bytes in
            (0..<raw.count / 4).map {
                Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self)))
            }
        }
        let expected = try [UInt8](Data(contentsOf: directory.appendingPathComponent(expectedFile)))
        return (input, expected)
    }
}

/// Encodes `input` with `format` into fresh bytes.
func encode(_ format: any QuantizableFormat.Type, _ input: [Float]) -> [UInt8] {
    let blocks = input.count / format.weightsPerBlock
    var bytes = [UInt8](repeating: 0xAA, count: blocks * format.bytesPerBlock)
    input.withUnsafeBufferPointer { x in
        bytes.withUnsafeMutableBytes { format.quantize(x.baseAddress!, blocks: blocks, into: $0.baseAddress!) }
    }
    return bytes
}

/// Decodes `bytes` with `format`.
func decode(_ format: any BlockFormat.Type, _ bytes: [UInt8]) -> [Float] {
    let blocks = bytes.count / format.bytesPerBlock
    var out = [Float](repeating: .nan, count: blocks * format.weightsPerBlock)
    bytes.withUnsafeBytes { raw in
        out.withUnsafeMutableBufferPointer { format.dequantize(raw.baseAddress!, blocks: blocks, into: $0.baseAddress!) }
    }
    return out
}

/// The encoders that have a reference in the `gguf` package reproduce its bytes exactly.
@Suite struct ReferenceQuantizerTests {
    @Test(arguments: try QuantFixture.all())
    func bytesMatchTheReferenceEncoder(_ fixture: QuantFixture) throws {
        let type = try #require(GGMLType(rawValue: fixture.type))
        let format = try #require(BlockFormats.encoder(for: type), "no encoder for \(type)")
        let (input, expected) = try fixture.load()
        #expect(input.count == fixture.blocks * format.weightsPerBlock)
        let ours = encode(format, input)
        #expect(ours.count == expected.count)
        let firstMismatch = zip(ours, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstMismatch == nil,
                "\(type): first differing byte \(firstMismatch ?? -1), in block \((firstMismatch ?? 0) / format.bytesPerBlock)")
    }

    @Test func everyReferenceFormatHasAFixture() throws {
        let covered = Set(try QuantFixture.all().map(\.type))
        for type in [GGMLType.q4_0, .q4_1, .q5_0, .q8_0] { #expect(covered.contains(type.rawValue), "\(type)") }
    }

    @Test func floatFormatsRoundTrip() {
        let x: [Float] = [0, -0.0, 1, -2.5, 65504, 1e-8, .infinity, 3.14159]
        #expect(decode(F32.self, encode(F32.self, x)).map(\.bitPattern) == x.map(\.bitPattern))
        let halves = decode(F16.self, encode(F16.self, x))
        #expect(halves == x.map { Float(Float16($0)) })
    }

    @Test func nonFiniteInputDoesNotTrap() {
        var x = [Float](repeating: 0.5, count: 256)
        x[3] = .nan; x[100] = .infinity; x[200] = -.infinity
        for format in BlockFormats.encoders {
            let bytes = encode(format, x)
            #expect(bytes.count == 256 / format.weightsPerBlock * format.bytesPerBlock)
        }
    }
}
