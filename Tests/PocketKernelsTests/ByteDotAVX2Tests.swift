// The AVX2 byte products that do not exist on AVX-512 (ByteDot+AVX2.swift), at the extremes of
// their stated ranges, against plain integer arithmetic: a product that saturated 16 bits or
// lost a sign would differ here before it showed in a kernel.

#if POCKET_X86_KERNELS && !POCKET_512BIT_VECTORS
@testable import PocketKernels
import Testing

@Suite struct ByteDotAVX2Tests {
    /// Eight lanes of four bytes from `bytes` (lane j: bytes 4j…4j+3, little-endian).
    static func lanes(_ bytes: [UInt8]) -> SIMD8<UInt32> {
        SIMD8((0..<8).map { j in (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[4 * j + $1]) << (8 * $1) } })
    }

    /// Random bytes, with the extremes of the range forced into the first lanes.
    static func bytes(_ random: inout TestRandom, _ values: ClosedRange<Int>, extremes: [Int]) -> [UInt8] {
        (0..<32).map { i in UInt8(truncatingIfNeeded: i < extremes.count ? extremes[i] : Int.random(in: values, using: &random)) }
    }

    @Test func flippedWeightsMultiplyAsSigned() {
        var random = TestRandom(seed: 41)
        for round in 0..<200 {
            // Weights over the whole byte range, −128 included; activations within ±127.
            let extremes = round % 2 == 0 ? [-128, -128, 127, 127, -128, 0] : []
            let w = Self.bytes(&random, -128...127, extremes: extremes)
            let x = Self.bytes(&random, -127...127, extremes: round % 4 == 0 ? [127, -127, -127, 127, 127, 5] : [])
            let flipped = Self.lanes(w.map { $0 ^ 0x80 })
            let result = ByteDot.dot(SIMD8<Int32>(repeating: 7), flipped: flipped, Self.lanes(x))
            for j in 0..<8 {
                let expected = (0..<4).reduce(Int32(7)) { $0 + Int32(Int8(bitPattern: w[4 * j + $1])) * Int32(Int8(bitPattern: x[4 * j + $1])) }
                #expect(result[j] == expected, "round \(round) lane \(j)")
            }
        }
    }

    @Test func scaledSumsOfSmallWeightsAreExact() {
        var random = TestRandom(seed: 42)
        for round in 0..<200 {
            let all = round % 2 == 0
            let w = (0..<4).map { _ in Self.bytes(&random, 0...31, extremes: all ? Array(repeating: 31, count: 32) : []) }
            let x = (0..<4).map { _ in Self.bytes(&random, -128...127, extremes: all ? Array(repeating: 128, count: 32) : []) }
            // A multiplier per 16-bit half, up to the largest Q2_K scale and beyond.
            let m = SIMD8<UInt32>((0..<8).map { _ in UInt32.random(in: 0...255, using: &random) | UInt32.random(in: 0...255, using: &random) << 16 })
            let result = ByteDot.dot(SIMD8<Int32>(repeating: -3), below32: (Self.lanes(w[0]), Self.lanes(w[1]), Self.lanes(w[2]), Self.lanes(w[3])),
                                     (Self.lanes(x[0]), Self.lanes(x[1]), Self.lanes(x[2]), Self.lanes(x[3])), times: m)
            for j in 0..<8 {
                var expected: Int32 = -3
                for h in 0..<2 {
                    // The 16-bit half h of a lane sums bytes 2h, 2h+1 of each of the four products.
                    var sum: Int32 = 0
                    for v in 0..<4 { for i in 2 * h...2 * h + 1 { sum += Int32(w[v][4 * j + i]) * Int32(Int8(bitPattern: x[v][4 * j + i])) } }
                    expected += sum * Int32(m[j] >> (16 * UInt32(h)) & 0xFFFF)
                }
                #expect(result[j] == expected, "round \(round) lane \(j)")
            }
        }
    }
}
#endif
