import PocketKernels
import Testing

/// ``Attention/Schedule``'s decisions, and ``Attention/causal(queries:tokens:heads:keyValueHeads:headDimension:keys:values:headStride:start:halfPrecision:workspace:pool:into:)``
/// under each of them against one ``Attention/attend(queries:heads:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``
/// call per token and head.
@Suite struct AttentionScheduleTests {
    /// The small test model's (SmolLM2's) shape: 9 query heads over 3 key/value heads.
    static func schedule(tokens: Int, length: Int = 40, threads: Int, halfPrecision: Bool = false) -> Attention.Schedule {
        Attention.Schedule(tokens: tokens, heads: 9, keyValueHeads: 3, length: length, threads: threads, halfPrecision: halfPrecision)
    }

    @Test func groupsUnlessTheyLeaveAThreadIdle() {
        // One token: 3 groups on 2 threads load the busiest with 6 heads, single heads with 5.
        #expect(Self.schedule(tokens: 1, threads: 2) == .heads)
        #expect(Self.schedule(tokens: 1, threads: 3) == .groups)
        #expect(Self.schedule(tokens: 1, threads: 1) == .groups)
        // Two tokens on 2 threads: 9 heads each way; groups win the tie.
        #expect(Self.schedule(tokens: 2, threads: 2) == .groups)
        #expect(Self.schedule(tokens: 64, length: 100, threads: 2, halfPrecision: true) == .groups)
        // 2 key/value heads of 7 on 4 threads: groups load one thread with 7 heads, single heads with 4.
        #expect(Attention.Schedule(tokens: 1, heads: 14, keyValueHeads: 2, length: 40, threads: 4, halfPrecision: false) == .heads)
    }

    @Test func oneDecodedTokenOverALongCacheIsSplitByPosition() {
        let split = Attention.Schedule.splitDecodingLength
        #expect(Self.schedule(tokens: 1, length: split, threads: 2) == .positions)
        #expect(Self.schedule(tokens: 1, length: split - 1, threads: 2) == .heads)
        // Never with one thread, several tokens, or the half-precision (prompt) accumulator.
        #expect(Self.schedule(tokens: 1, length: 4096, threads: 1) == .groups)
        #expect(Self.schedule(tokens: 2, length: 4096, threads: 2) == .groups)
        #expect(Self.schedule(tokens: 1, length: 4096, threads: 2, halfPrecision: true) == .heads)
    }

    /// Groups and single heads give each head exactly its own attention; the split by position
    /// agrees to float rounding.
    @Test(arguments: [
        (2, 1, 40, false, Attention.Schedule.heads), (2, 2, 40, false, .groups), (3, 1, 40, false, .groups),
        (2, 4, 300, true, .groups), (2, 5, 300, true, .heads), (2, 1, 600, false, .positions), (3, 1, 700, false, .positions),
    ])
    func everyScheduleComputesEachHeadsAttention(
        threads: Int, tokens: Int, length: Int, halfPrecision: Bool, expected: Attention.Schedule
    ) {
        let heads = 9, kvHeads = 3, hd = 64, capacity = length + 8, start = length - tokens
        #expect(Self.schedule(tokens: tokens, length: length, threads: threads, halfPrecision: halfPrecision) == expected)
        var rng = TestRandom(seed: UInt64(threads * 1000 + length))
        let keys = (0..<(kvHeads * capacity * hd)).map { _ in Float16(Float.random(in: -1...1, using: &rng)) }
        let values = (0..<(kvHeads * capacity * hd)).map { _ in Float16(Float.random(in: -1...1, using: &rng)) }
        let queries = (0..<(tokens * heads * hd)).map { _ in Float(Float16(Float.random(in: -1...1, using: &rng))) }
        var got = [Float](repeating: .nan, count: tokens * heads * hd), alone = got
        let workspace = Attention.Workspace(threads: threads, heads: heads, keyValueHeads: kvHeads, headDimension: hd)
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: Attention.Scratch.count(heads: 1, headDimension: hd))
        defer { scratch.deallocate() }
        keys.withUnsafeBufferPointer { k in
            values.withUnsafeBufferPointer { v in
                queries.withUnsafeBufferPointer { q in
                    got.withUnsafeMutableBufferPointer { out in
                        Attention.causal(
                            queries: q.baseAddress!, tokens: tokens, heads: heads, keyValueHeads: kvHeads, headDimension: hd,
                            keys: k.baseAddress!, values: v.baseAddress!, headStride: capacity * hd, start: start,
                            halfPrecision: halfPrecision, workspace: workspace, pool: ThreadPool(threads: threads),
                            into: out.baseAddress!)
                    }
                    alone.withUnsafeMutableBufferPointer { out in
                        for t in 0..<tokens {
                            for h in 0..<heads {
                                let row = (t * heads + h) * hd, kvHead = h / (heads / kvHeads)
                                Attention.attend(
                                    queries: q.baseAddress! + row, heads: 1, headDimension: hd,
                                    keys: k.baseAddress! + kvHead * capacity * hd, values: v.baseAddress! + kvHead * capacity * hd,
                                    rowStride: hd, length: start + t + 1, scale: 1 / Float(hd).squareRoot(),
                                    halfPrecision: halfPrecision, scratch: Attention.Scratch(scratch), into: out.baseAddress! + row)
                            }
                        }
                    }
                }
            }
        }
        if expected == .positions {
            for i in got.indices {
                #expect(abs(got[i] - alone[i]) <= 2e-6 * max(1, abs(alone[i])), "element \(i): \(got[i]) vs \(alone[i])")
            }
        } else {
            #expect(got.map(\.bitPattern) == alone.map(\.bitPattern))
        }
    }
}
