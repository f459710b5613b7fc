import PocketGGUF
import PocketKernels
import Testing

/// Every format's scalar decoder against `gguf.quants.dequantize`, bit for bit.
@Suite struct DequantizeTests {
    static let types = BlockFormats.all.map { $0.type }

    @Test(arguments: types)
    func matchesReferenceBitForBit(type: GGMLType) throws {
        let format = try #require(BlockFormats.format(for: type))
        let (fixture, blocks, expected) = try DequantFixtures.load(type)
        try #require(blocks.count == fixture.blocks * format.bytesPerBlock, "\(fixture.blocksFile) size")
        try #require(expected.count == fixture.blocks * format.weightsPerBlock, "\(fixture.expectedFile) size")

        // Decode from an odd address (blocks need no alignment) into a buffer with a guard tail.
        let tail = 8
        var decoded = [Float](repeating: .infinity, count: expected.count + tail)
        let shifted = [0] + blocks
        shifted.withUnsafeBytes { source in
            format.dequantize(source.baseAddress! + 1, blocks: fixture.blocks, into: &decoded)
        }
        #expect(decoded[expected.count...].allSatisfy { $0 == .infinity }, "wrote past the last block")

        // Bit patterns, so NaN payloads and signed zeros must match too.
        var mismatches = 0
        var examples: [String] = []
        for i in 0..<expected.count where decoded[i].bitPattern != expected[i].bitPattern {
            mismatches += 1
            if examples.count < 5 {
                examples.append(
                    "weight \(i) (block \(i / format.weightsPerBlock)): got \(decoded[i]) "
                        + "0x\(String(decoded[i].bitPattern, radix: 16)), expected \(expected[i]) "
                        + "0x\(String(expected[i].bitPattern, radix: 16))")
            }
        }
        #expect(mismatches == 0, "\(mismatches) of \(expected.count) differ, first: \(examples)")
    }

    @Test(arguments: types)
    func blockAtATimeMatchesWholeRun(type: GGMLType) throws {
        let format = try #require(BlockFormats.format(for: type))
        let (fixture, blocks, _) = try DequantFixtures.load(type)
        let count = min(fixture.blocks, 16)
        var whole = [Float](repeating: 0, count: count * format.weightsPerBlock)
        var single = whole
        blocks.withUnsafeBytes { source in
            format.dequantize(source.baseAddress!, blocks: count, into: &whole)
            single.withUnsafeMutableBufferPointer { out in
                for b in 0..<count {
                    format.dequantize(
                        source.baseAddress! + b * format.bytesPerBlock, blocks: 1,
                        into: out.baseAddress! + b * format.weightsPerBlock)
                }
            }
        }
        #expect(whole.map(\.bitPattern) == single.map(\.bitPattern))
    }

    @Test func fixturesCoverExactlyTheTable() throws {
        let fixtureTypes = try DequantFixtures.index().map(\.type).sorted()
        let tableTypes = Self.types.map(\.rawValue).sorted()
        #expect(fixtureTypes == tableTypes, "rerun Fixtures/make_dequant_fixtures.py after changing the table")
    }

    @Test func f16FixtureIsExhaustiveAndHasSpecialValues() throws {
        let (_, blocks, expected) = try DequantFixtures.load(.f16)
        #expect(blocks.count == 2 * 65536)
        #expect(expected.contains { $0.isSubnormal } == false, "fp16 subnormals are normal in fp32")
        #expect(expected.contains(.infinity) && expected.contains(-.infinity))
        #expect(expected.contains { $0.isSignalingNaN } && expected.contains { $0.isNaN && !$0.isSignalingNaN })
        #expect(expected.contains(Float(Float16.leastNonzeroMagnitude)))
    }
}
