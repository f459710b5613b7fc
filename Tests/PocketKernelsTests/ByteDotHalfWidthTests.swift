// The primitives only the half-width tiers have (``HalfWidthByteDotInstructions``: AVX2 and
// SSE2, whose row-group kernels take a group in two 256-bit halves), against plain integer
// arithmetic at the extremes of their stated ranges and on random bytes: a product that
// saturated 16 bits or lost a sign would differ here before it showed in a kernel.

#if POCKET_X86_KERNELS && !POCKET_512BIT_VECTORS
@testable import PocketKernels
import Testing

@Suite struct ByteDotHalfWidthTests {
    typealias Lanes = SIMD8<UInt32>

    @Test func flippedWeightsMultiplyAsSigned() {
        var source = ByteSource(seed: 41)
        for round in 0..<300 {
            // Weights over the whole byte range, −128 included; activations within ±127.
            let w = source.bytes(64, -128...127), x = source.bytes(64, -127...127)
            let flipped = w.map { $0 ^ 0x80 }
            let accumulator = SIMD16<Int32>((0..<16).map { Int32($0) * 1000 - 7 })
            let narrow = ByteDot.dot(accumulator.lowHalf, flipped: ByteSource.lanes(flipped), ByteSource.lanes(x) as Lanes)
            let wide = ByteDot.dot(accumulator, flipped: ByteSource.lanes(flipped), ByteSource.lanes(x) as SIMD16<UInt32>)
            for j in 0..<16 {
                let expected = (0..<4).reduce(accumulator[j]) { $0 + Int32(Int8(bitPattern: w[4 * j + $1])) * Int32(Int8(bitPattern: x[4 * j + $1])) }
                #expect(wide[j] == expected, "round \(round) lane \(j)")
                if j < 8 { #expect(narrow[j] == expected, "round \(round) lane \(j)") }
            }
        }
    }

    @Test func smallWeightChainsAreExact() {
        var source = ByteSource(seed: 43)
        for round in 0..<300 {
            let w = (0..<4).map { _ in source.bytes(32, 0...31) }, x = (0..<4).map { _ in source.bytes(32) }
            let wv: [Lanes] = w.map { ByteSource.lanes($0) }, xv: [Lanes] = x.map { ByteSource.lanes($0) }
            let result = ByteDot.dot(SIMD8(repeating: 9), below32: (wv[0], wv[1], wv[2], wv[3]), (xv[0], xv[1], xv[2], xv[3]))
            for j in 0..<8 {
                #expect(result[j] == 9 + (0..<4).reduce(0) { $0 + ByteSource.laneDot(w[$1], x[$1], j) }, "round \(round) lane \(j)")
            }
        }
    }

    /// The 16-bit half h of a lane sums bytes 2h, 2h+1 of each product, then meets its multiplier.
    static func scaledSum(_ w: [[UInt8]], _ x: [[UInt8]], _ m: Lanes, _ j: Int) -> Int32 {
        (0..<2).reduce(Int32(0)) { total, h in
            var sum: Int32 = 0
            for v in w.indices { for i in 2 * h...2 * h + 1 { sum += Int32(w[v][4 * j + i]) * Int32(Int8(bitPattern: x[v][4 * j + i])) } }
            return total + sum * Int32(Int16(bitPattern: UInt16(truncatingIfNeeded: m[j] >> (16 * UInt32(h)))))
        }
    }

    @Test func scaledSumsOfSmallWeightsAreExact() {
        var source = ByteSource(seed: 42)
        for round in 0..<300 {
            let all = round % 3 == 0
            let w = (0..<4).map { _ in all ? [UInt8](repeating: 31, count: 32) : source.bytes(32, 0...31) }
            let x = (0..<4).map { _ in all ? [UInt8](repeating: 128, count: 32) : source.bytes(32) }
            // A multiplier per 16-bit half, up to the largest Q2_K scale and beyond.
            let m = Lanes((0..<8).map { _ in UInt32.random(in: 0...255, using: &source.random) | UInt32.random(in: 0...255, using: &source.random) << 16 })
            let wv: [Lanes] = w.map { ByteSource.lanes($0) }, xv: [Lanes] = x.map { ByteSource.lanes($0) }
            let result = ByteDot.dot(SIMD8(repeating: -3), below32: (wv[0], wv[1], wv[2], wv[3]), (xv[0], xv[1], xv[2], xv[3]), times: m)
            for j in 0..<8 { #expect(result[j] == -3 + Self.scaledSum(w, x, m, j), "round \(round) lane \(j)") }
        }
    }

    @Test func scaledSumsOfNibblesAreExact() {
        var source = ByteSource(seed: 44)
        for round in 0..<300 {
            let all = round % 3 == 0
            let w = (0..<8).map { _ in all ? [UInt8](repeating: 15, count: 32) : source.bytes(32, 0...15) }
            let x = (0..<8).map { _ in all ? [UInt8](repeating: 128, count: 32) : source.bytes(32) }
            let m = Lanes((0..<8).map { _ in UInt32.random(in: 0...63, using: &source.random) | UInt32.random(in: 0...63, using: &source.random) << 16 })
            let wv: [Lanes] = w.map { ByteSource.lanes($0) }, xv: [Lanes] = x.map { ByteSource.lanes($0) }
            let result = ByteDot.dot(below16: (wv[0], wv[1], wv[2], wv[3]), (xv[0], xv[1], xv[2], xv[3]),
                                     (wv[4], wv[5], wv[6], wv[7]), (xv[4], xv[5], xv[6], xv[7]), times: m)
            for j in 0..<8 { #expect(result[j] == Self.scaledSum(w, x, m, j), "round \(round) lane \(j)") }
        }
    }

    @Test func narrowPrimitivesMatchTheirDefinitions() {
        var source = ByteSource(seed: 45)
        for round in 0..<300 {
            let a = source.bytes(32), b = source.bytes(32)
            let dots = ByteDot.dotHalves(SIMD8(repeating: -1), ByteSource.lanes(a), ByteSource.lanes(b) as Lanes)
            let shuffled = ByteDot.shuffleBytes(ByteSource.lanes(a), ByteSource.lanes(b) as Lanes)
            #expect(shuffled == ByteSource.lanes((0..<32).map { ByteSource.shuffled(a, b, $0) }), "round \(round)")
            for j in 0..<8 { #expect(dots[j] == -1 &+ ByteSource.laneDotHalves(a, b, j), "round \(round) lane \(j)") }
            let v = SIMD8<Int32>((0..<8).map { _ in Int32.random(in: -(1 << 24)...(1 << 24), using: &source.random) })
            #expect(ByteDot.floats(v) == SIMD8<Float>(v))
        }
        for first in stride(from: 0, to: 65536, by: 8) {
            let h = SIMD8<UInt16>((0..<8).map { UInt16(first + $0) })
            let wide = ByteDot.floats(halves: SIMD16(lowHalf: h, highHalf: h)), narrow = ByteDot.floats(halves: h)
            for i in 0..<8 { #expect(narrow[i].isNaN ? wide[i].isNaN : narrow[i].bitPattern == wide[i].bitPattern, "fp16 \(first + i)") }
        }
    }
}
#endif
