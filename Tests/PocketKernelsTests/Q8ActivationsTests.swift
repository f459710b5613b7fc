import PocketKernels
import Testing

/// The super-block (k-quant) layout of ``Q8Activations``.
@Suite struct Q8ActivationsTests {
    @Test func superBlockOrderIsAPermutation() {
        #expect(Set((0..<256).map(Q8Activations.superBlockPosition)) == Set(0..<256))
        #expect(Set((0..<16).map(Q8Activations.subBlockLane)) == Set(0..<16))
    }

    @Test func superBlocksHoldOneScaleRoundedValuesAndSubBlockSums() {
        var rng = TestRandom(seed: 21)
        let columns = 512, tokens = 2
        var x = (0..<(tokens * columns)).map { _ in Float.random(in: -4...4, using: &rng) }
        x[300] = -9   // the largest magnitude of token 0's second super-block
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: tokens, columns: columns) }
        for t in 0..<tokens {
            for sb in 0..<(columns / 256) {
                let block = Array(x[(t * columns + 256 * sb)..<(t * columns + 256 * sb + 256)])
                let amax = block.map(abs).max()!
                #expect(a.superScales(token: t)[sb] == amax / 127)
                let values = a.superValues(token: t) + 256 * sb
                var sums = [Int32](repeating: 0, count: 16)
                for i in 0..<256 {
                    let expected = Int16((block[i] * (127 / amax)).rounded(.toNearestOrEven))
                    #expect(values[Q8Activations.superBlockPosition(i)] == expected, "token \(t) value \(256 * sb + i)")
                    sums[i / 16] += Int32(expected)
                }
                for s in 0..<16 {
                    let lane = 16 * sb + Q8Activations.subBlockLane(s)
                    #expect(a.scaledSubBlockSums(token: t)[lane] == a.superScales(token: t)[sb] * Float(sums[s]))
                }
            }
        }
        #expect(a.superScales(token: 0)[1] == Float(9) / 127)
    }

    @Test func vectorsWhoseLengthIsNotAWholeSuperBlockStillQuantizeTheSmallBlocks() {
        let x = [Float](repeating: 1, count: 96)
        let a = Q8Activations()
        x.withUnsafeBufferPointer { a.quantize($0.baseAddress!, tokens: 1, columns: 96) }
        #expect(a.columns == 96)
        #expect(a.values(token: 0)[0] == 127)
    }
}
