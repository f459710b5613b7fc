import Foundation
import Testing
import PocketKernels  // SplitMix64, so every fuzz run sees the same cases
@testable import PocketGGUF


/// Mutates SmolLM2's header and checks that every case either parses or throws a
/// `GGUFError`: byte flips, huge values written over u64 counts/lengths/dimensions/offsets, and
/// truncations.
///
/// Parsing the real header (49k tokens, 49k merges) takes ~28 ms in a debug build, too slow for
/// 10,000 cases, so most cases run on a condensed copy of it: the same keys, values and tensor
/// table, with each array cut to its first 16 elements (~17 KB). A few hundred cases also run on
/// the real header. Cases mutate one buffer in place and restore it, and the parser reads a
/// prefix of it for truncations, so no case copies the ~100 MB the tensor table needs.
@Suite("Fuzzing the header", .enabled(if: TestPaths.hasSmolLM2, "SmolLM2, the small test model, is absent: run Weights/fetch"))
struct FuzzTests {
    /// A header, zero tensor data after it, and the offsets of its u64 fields.
    final class Corpus {
        let seed: [UInt8]
        let u64Fields: [Int]
        let buffer: UnsafeMutableRawBufferPointer

        init(header: [UInt8], totalSize: Int) {
            seed = header
            u64Fields = FuzzTests.u64FieldOffsets(header)
            buffer = .allocate(byteCount: totalSize, alignment: 64)
            buffer.initializeMemory(as: UInt8.self, repeating: 0)
            buffer.copyBytes(from: header)
        }
        deinit { buffer.deallocate() }

        /// Parses the first `length` bytes; `true` if it parsed, `false` if it threw GGUFError.
        func parse(length: Int) -> Bool {
            var parser = GGUFParser(UnsafeRawBufferPointer(rebasing: buffer[0 ..< length]))
            do {
                _ = try parser.parse()  // typed throws: anything thrown is a GGUFError
                return true
            } catch {
                return false
            }
        }

        /// Runs `count` mutated cases; returns how many parsed.
        func run(count: Int, rng: inout SplitMix64) -> Int {
            var parsed = 0
            let hugeValues: [UInt64] = [.max, 1 << 63, UInt64(Int.max), 1 << 32, 1 << 40, UInt64(UInt32.max), 0]
            for _ in 0 ..< count {
                var touched: [Int] = []
                var length = buffer.count
                switch rng.next() % 4 {
                case 0:  // flip 1...8 random bytes
                    for _ in 0 ... rng.next() % 8 {
                        let at = Int(rng.next() % UInt64(seed.count))
                        buffer[at] ^= UInt8(truncatingIfNeeded: rng.next() % 255 + 1)
                        touched.append(at)
                    }
                case 1:  // overwrite a count / length / dimension / offset with a huge value
                    let at = u64Fields[Int(rng.next() % UInt64(u64Fields.count))]
                    let value = rng.next() % 3 == 0 ? rng.next() : hugeValues[Int(rng.next() % UInt64(hugeValues.count))]
                    withUnsafeBytes(of: value.littleEndian) { buffer.baseAddress!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: 8) }
                    touched.append(contentsOf: at ..< at + 8)
                case 2:  // truncate anywhere in the header, or anywhere at all
                    length = Int(rng.next() % UInt64(rng.next() % 2 == 0 ? seed.count : buffer.count))
                default:  // overwrite 8 bytes at a random place with a huge value, and truncate
                    let at = Int(rng.next() % UInt64(seed.count - 8))
                    withUnsafeBytes(of: hugeValues[Int(rng.next() % 3)]) { buffer.baseAddress!.advanced(by: at).copyMemory(from: $0.baseAddress!, byteCount: 8) }
                    touched.append(contentsOf: at ..< at + 8)
                    length = Int(rng.next() % UInt64(buffer.count))
                }
                if parse(length: length) { parsed += 1 }
                for at in touched { buffer[at] = seed[at] }
            }
            return parsed
        }
    }

    /// Offsets of every u64 field (counts, string lengths, array counts, dimensions, tensor
    /// offsets) in a valid header, found by walking it independently of the parser.
    static func u64FieldOffsets(_ h: [UInt8]) -> [Int] {
        var at = 0
        var fields: [Int] = []
        func u32() -> UInt32 { defer { at += 4 }; return h[at ..< at + 4].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
        func u64() -> UInt64 { fields.append(at); defer { at += 8 }; return h[at ..< at + 8].reversed().reduce(0) { $0 << 8 | UInt64($1) } }
        func string() { at += Int(u64()) }
        func value(_ type: UInt32) {
            switch type {
            case 0, 1, 7: at += 1
            case 2, 3: at += 2
            case 4, 5, 6: at += 4
            case 8: string()
            case 9: let element = u32(); for _ in 0 ..< u64() { value(element) }
            default: at += 8
            }
        }
        at = 8
        let tensors = u64(), keys = u64()
        for _ in 0 ..< keys { string(); value(u32()) }
        for _ in 0 ..< tensors {
            string()
            for _ in 0 ..< u32() { _ = u64() }
            at += 4
            _ = u64()
        }
        return fields
    }

    /// SmolLM2's header with every array cut to its first 16 elements, and the size
    /// a file with that header and the model's tensor table needs.
    static func condensedHeader(of file: GGUFFile) throws -> (header: [UInt8], totalSize: Int) {
        func condense(_ value: GGUFValue) -> GGUFValue {
            if case .array(let elements) = value { return .array(elements.prefix(16).map(condense)) }
            return value
        }
        var writer = GGUFWriter(alignment: file.alignment)
        for key in file.metadata.keys { writer.setMetadata(key, condense(file.metadata[key]!)) }
        for tensor in file.tensors {
            writer.addTensor(name: tensor.name, dimensions: tensor.dimensions, type: tensor.type, byteCount: tensor.byteCount)
        }
        let header = try writer.headerBytes()
        let tensors = try writer.tensorInfos()
        let dataOffset = GGUFWriter.align(header.count, file.alignment)
        let end = tensors.map { dataOffset + $0.offset + $0.byteCount }.max() ?? dataOffset
        return (header, end)
    }

    @Test func mutatedHeaders() throws {
        let file = try GGUFFile(contentsOf: TestPaths.smolLM2)
        var rng = SplitMix64(seed: 0x5EED_6675_6600_0001)
        let start = ContinuousClock.now

        let condensed = try Self.condensedHeader(of: file)
        let small = Corpus(header: condensed.header, totalSize: condensed.totalSize)
        #expect(small.parse(length: small.buffer.count), "the condensed header must parse unmutated")
        #expect(small.u64Fields.count > 1000)
        let parsedSmall = small.run(count: 12_000, rng: &rng)

        let real = Corpus(header: Array(file.rawBytes.prefix(file.dataOffset)), totalSize: file.byteCount)
        #expect(real.parse(length: real.buffer.count), "the real header must parse unmutated")
        let parsedReal = real.run(count: 300, rng: &rng)

        let elapsed = ContinuousClock.now - start
        print("fuzz: 12000 condensed cases (\(parsedSmall) parsed), 300 real-header cases (\(parsedReal) parsed) in \(elapsed)")
        // Some mutations (flips inside string bytes, values) leave a valid file; most do not.
        #expect(parsedSmall > 0 && parsedSmall < 12_000)
        #expect(elapsed < .seconds(60))
    }
}
