// Every primitive of ``ByteDotInstructions`` (the members all x86 tiers have) against a scalar
// definition, on random bytes and on the extremes 0, 127, 128 and 255: a tier whose product
// saturated, lost a sign or mixed up bytes would differ here before it showed in a kernel. They
// run on whichever tier this build compiled (AVX-512 VNNI, AVX2 or SSE2).

#if POCKET_X86_KERNELS
@testable import PocketKernels
import Testing

/// Random test bytes: a quarter of them one of the extremes of their range.
struct ByteSource {
    var random: TestRandom

    init(seed: UInt64) { random = TestRandom(seed: seed) }

    /// `count` bytes within `values` (as integers, e.g. −128…127 for signed bytes), the
    /// range's own extremes and 0, 127, 128, 255 (where they fit) mixed in.
    mutating func bytes(_ count: Int, _ values: ClosedRange<Int> = 0...255) -> [UInt8] {
        let extremes = [values.lowerBound, values.upperBound, 0, 127, 128, 255, -128, -1].filter(values.contains)
        return (0..<count).map { _ in
            let v = Int.random(in: 0..<4, using: &random) == 0
                ? extremes[Int.random(in: 0..<extremes.count, using: &random)] : Int.random(in: values, using: &random)
            return UInt8(truncatingIfNeeded: v)
        }
    }

    /// A vector of 32-bit lanes made of `bytes` (lane j: bytes 4j…4j+3, little-endian).
    static func lanes<V: SIMD>(_ bytes: [UInt8], as type: V.Type = V.self) -> V where V.Scalar == UInt32 {
        var v = V()
        for j in 0..<V.scalarCount {
            v[j] = (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[4 * j + $1]) << (8 * $1) }
        }
        return v
    }

    /// Σ over the four bytes of lane `j`: unsigned `u` times signed `s`.
    static func laneDot(_ u: [UInt8], _ s: [UInt8], _ j: Int) -> Int32 {
        (0..<4).reduce(Int32(0)) { $0 + Int32(u[4 * j + $1]) * Int32(Int8(bitPattern: s[4 * j + $1])) }
    }

    /// Σ over the two signed 16-bit halves of lane `j`.
    static func laneDotHalves(_ a: [UInt8], _ b: [UInt8], _ j: Int) -> Int32 {
        (0..<2).reduce(Int32(0)) { sum, h in
            let i = 4 * j + 2 * h
            let x = Int16(bitPattern: UInt16(a[i]) | UInt16(a[i + 1]) << 8), y = Int16(bitPattern: UInt16(b[i]) | UInt16(b[i + 1]) << 8)
            return sum &+ Int32(x) &* Int32(y)
        }
    }

    /// `vpshufb` on one byte: byte `index & 15` of the 16-byte lane holding byte `i`, or zero.
    static func shuffled(_ table: [UInt8], _ index: [UInt8], _ i: Int) -> UInt8 {
        index[i] & 0x80 != 0 ? 0 : table[i & ~15 | Int(index[i] & 15)]
    }
}

@Suite struct ByteDotTests {
    @Test func bytesProductsAreExact() {
        var source = ByteSource(seed: 51)
        for round in 0..<300 {
            let u = source.bytes(64), s = source.bytes(64), small = source.bytes(64, 0...127)
            let a16 = SIMD16<Int32>((0..<16).map { _ in Int32.random(in: -1_000_000...1_000_000, using: &source.random) })
            let wide = ByteDot.dot(a16, ByteSource.lanes(u), ByteSource.lanes(s) as SIMD16<UInt32>)
            let narrow = ByteDot.dot(a16.lowHalf, ByteSource.lanes(u), ByteSource.lanes(s) as SIMD8<UInt32>)
            let wideSmall = ByteDot.dot(a16, small: ByteSource.lanes(small), ByteSource.lanes(s) as SIMD16<UInt32>)
            let narrowSmall = ByteDot.dot(a16.lowHalf, small: ByteSource.lanes(small), ByteSource.lanes(s) as SIMD8<UInt32>)
            for j in 0..<16 {
                #expect(wide[j] == a16[j] + ByteSource.laneDot(u, s, j), "round \(round) lane \(j)")
                #expect(wideSmall[j] == a16[j] + ByteSource.laneDot(small, s, j), "round \(round) lane \(j)")
                if j < 8 {
                    #expect(narrow[j] == a16[j] + ByteSource.laneDot(u, s, j), "round \(round) lane \(j)")
                    #expect(narrowSmall[j] == a16[j] + ByteSource.laneDot(small, s, j), "round \(round) lane \(j)")
                }
            }
        }
    }

    @Test(arguments: [Int32(3), 4, 7])
    func offsetWeightsProductsAreExact(offsetShift: Int32) {
        var source = ByteSource(seed: 52 + UInt64(offsetShift))
        let limit = 2 << Int(offsetShift) - 1  // the unsigned weights' range: 0…2·offset − 1
        for round in 0..<200 {
            let w = source.bytes(64, 0...min(limit, 255)), s = source.bytes(64)
            let wide = ByteDot.dot(.zero, offsetWeights: ByteSource.lanes(w), offsetShift: offsetShift, ByteSource.lanes(s) as SIMD16<UInt32>)
            let narrow = ByteDot.dot(.zero, offsetWeights: ByteSource.lanes(w), offsetShift: offsetShift, ByteSource.lanes(s) as SIMD8<UInt32>)
            for j in 0..<16 {
                #expect(wide[j] == ByteSource.laneDot(w, s, j), "round \(round) lane \(j)")
                if j < 8 { #expect(narrow[j] == ByteSource.laneDot(w, s, j), "round \(round) lane \(j)") }
            }
        }
    }

    @Test func smallWeightChainsAreExact() {
        var source = ByteSource(seed: 53)
        for round in 0..<200 {
            let w64 = (0..<2).map { _ in source.bytes(64, 0...63) }, w32 = (0..<4).map { _ in source.bytes(64, 0...31) }
            let s = (0..<4).map { _ in source.bytes(64) }
            let v: [SIMD16<UInt32>] = s.map { ByteSource.lanes($0) }
            let p64 = ByteDot.dot(SIMD16(repeating: 11), below64: (ByteSource.lanes(w64[0]), ByteSource.lanes(w64[1])), (v[0], v[1]))
            let p32 = ByteDot.dot(SIMD16(repeating: -5), below32: (ByteSource.lanes(w32[0]), ByteSource.lanes(w32[1]),
                                                                    ByteSource.lanes(w32[2]), ByteSource.lanes(w32[3])), (v[0], v[1], v[2], v[3]))
            for j in 0..<16 {
                #expect(p64[j] == 11 + (0..<2).reduce(0) { $0 + ByteSource.laneDot(w64[$1], s[$1], j) }, "round \(round) lane \(j)")
                #expect(p32[j] == -5 + (0..<4).reduce(0) { $0 + ByteSource.laneDot(w32[$1], s[$1], j) }, "round \(round) lane \(j)")
            }
        }
    }

    @Test func sixteenBitProductsAreExact() {
        var source = ByteSource(seed: 54)
        for round in 0..<300 {
            let a = source.bytes(64), b = source.bytes(64)
            let dots = ByteDot.dotHalves(SIMD16(repeating: 1 << 30), ByteSource.lanes(a), ByteSource.lanes(b))
            let low = ByteDot.multiplyHalves(ByteSource.lanes(a), ByteSource.lanes(b))
            for j in 0..<16 {
                #expect(dots[j] == (1 << 30) &+ ByteSource.laneDotHalves(a, b, j), "round \(round) lane \(j)")
                for h in 0..<2 {
                    let i = 4 * j + 2 * h
                    let x = UInt16(a[i]) | UInt16(a[i + 1]) << 8, y = UInt16(b[i]) | UInt16(b[i + 1]) << 8
                    #expect(UInt16(truncatingIfNeeded: low[j] >> (16 * UInt32(h))) == x &* y, "round \(round) lane \(j)")
                }
            }
        }
    }

    @Test func byteShufflesAndMasksMatchTheirDefinitions() {
        var source = ByteSource(seed: 55)
        for round in 0..<300 {
            let table = source.bytes(64), index = source.bytes(64)
            let shuffled = ByteDot.shuffleBytes(ByteSource.lanes(table), ByteSource.lanes(index) as SIMD16<UInt32>)
            #expect(shuffled == ByteSource.lanes((0..<64).map { ByteSource.shuffled(table, index, $0) }), "round \(round)")
            let bits = source.random.next()
            let mask64 = ByteDot.byteMask(bits), mask32 = ByteDot.byteMask(UInt32(truncatingIfNeeded: bits))
            let expected = (0..<64).map { bits >> UInt64($0) & 1 == 1 ? UInt8(0xFF) : 0 }
            #expect(mask64 == ByteSource.lanes(expected), "round \(round)")
            #expect(mask32 == ByteSource.lanes(Array(expected[0..<32])), "round \(round)")
        }
    }

    @Test func wordsTransposeAsAMatrix() {
        var random = TestRandom(seed: 71)
        let words = (0..<256).map { _ in UInt32.random(in: 0...UInt32.max, using: &random) }
        var transposed = [UInt32](repeating: 0, count: 256)
        words.withUnsafeBytes { source in
            transposed.withUnsafeMutableBytes { ByteDot.transposeWords(source.baseAddress!, into: $0.baseAddress!) }
        }
        var misplaced = 0
        for i in 0..<16 {
            for j in 0..<16 where transposed[16 * j + i] != words[16 * i + j] { misplaced += 1 }
        }
        #expect(misplaced == 0)
    }

    /// Every fp16 bit pattern converts as ``IntegerLanes/half(_:_:)`` does (NaNs: to a NaN).
    @Test func halvesConvertExactly() {
        func reference(_ bits: UInt16) -> Float {
            withUnsafeBytes(of: bits) { IntegerLanes.half($0.baseAddress!, 0) }
        }
        func same(_ a: Float, _ b: Float) -> Bool { a.isNaN ? b.isNaN : a.bitPattern == b.bitPattern }
        for first in stride(from: 0, to: 65536, by: 16) {
            let h = SIMD16<UInt16>((0..<16).map { UInt16(first + $0) })
            let wide = ByteDot.floats(halves: h)
            for i in 0..<16 {
                let bits = UInt16(first + i)
                #expect(same(wide[i], reference(bits)), "fp16 \(bits)")
                let pair = UInt32(bits) | UInt32(bits ^ 0x8001) << 16
                let two = ByteDot.halves(pair)
                #expect(same(two[0], reference(bits)) && same(two[1], reference(bits ^ 0x8001)), "fp16 \(bits)")
                let fromMemory = withUnsafeBytes(of: pair) { (ByteDot.half($0.baseAddress!, 0), ByteDot.halves($0.baseAddress!, 0)) }
                #expect(same(fromMemory.0, reference(bits)) && same(fromMemory.1[1], reference(bits ^ 0x8001)), "fp16 \(bits)")
                let spread = ByteDot.spreadHalves(pair)
                #expect(same(spread[7], reference(bits)) && same(spread[8], reference(bits ^ 0x8001)), "fp16 \(bits)")
            }
        }
    }

    @Test func floatsAndSumsMatchTheStandardLibrary() {
        var source = ByteSource(seed: 56)
        for _ in 0..<100 {
            let v = SIMD16<Int32>((0..<16).map { _ in Int32.random(in: -(1 << 24)...(1 << 24), using: &source.random) })
            #expect(ByteDot.floats(v) == SIMD16<Float>(v))
            let f = SIMD16<Float>((0..<16).map { _ in Float.random(in: -1...1, using: &source.random) })
            let eight = f.lowHalf + f.highHalf, four = eight.lowHalf + eight.highHalf
            #expect(ByteDot.sum(f) == (four[0] + four[2]) + (four[1] + four[3]))
            let pair = SIMD2<Float>(f[0], f[1])
            #expect(ByteDot.spread(pair) == SIMD16(lowHalf: SIMD8(repeating: f[0]), highHalf: SIMD8(repeating: f[1])))
        }
    }
}
#endif
