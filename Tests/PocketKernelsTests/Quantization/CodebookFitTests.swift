import Testing
@testable import PocketKernels

/// ``CodebookFit/nearest(_:_:_:)`` against a scalar search of the codebook.
@Suite struct CodebookFitTests {
    /// The entry with the least distance, the lower one on a tie: what the vector code must give.
    static func nearestByDistance(_ v: Float) -> Int {
        var best = 0
        for k in 1..<16 where abs(v - CodebookFit.values[k]) < abs(v - CodebookFit.values[best]) { best = k }
        return best
    }

    /// Random values over and beyond the codebook's range, every midpoint exactly (a tie goes to
    /// the lower entry), the entries themselves and far values: index and value both match.
    @Test func nearestEntryMatchesAScalarSearch() {
        var random = TestRandom(seed: 7)
        var probes: [Float] = (0..<4096).map { _ in 300 * random.uniform() - 150 }
        for j in 0..<15 {
            probes += [CodebookFit.midpoints[j], CodebookFit.midpoints[j].nextDown, CodebookFit.midpoints[j].nextUp]
        }
        probes += (0..<16).map { CodebookFit.values[$0] } + [-1e6, 1e6, 0, -0.0]
        while probes.count % 16 != 0 { probes.append(0) }
        for start in stride(from: 0, to: probes.count, by: 16) {
            let v = SIMD16<Float>(probes[start..<start + 16])
            let (index, value) = CodebookFit.nearest(v, CodebookFit.values, CodebookFit.midpoints)
            for lane in 0..<16 {
                let expected = Self.nearestByDistance(v[lane])
                #expect(Int(index[lane]) == expected, "\(v[lane])")
                #expect(value[lane] == CodebookFit.values[expected], "\(v[lane])")
            }
        }
    }

    /// The infinities (where every distance is infinite) take the ends.
    @Test func infinitiesTakeTheEnds() {
        var v = SIMD16<Float>(repeating: .infinity)
        v[0] = -.infinity
        let (index, value) = CodebookFit.nearest(v, CodebookFit.values, CodebookFit.midpoints)
        #expect(index[0] == 0 && value[0] == -127)
        #expect(index[1] == 15 && value[1] == 113)
    }

    /// A NaN lane gets an entry in range and leaves the other lanes alone.
    @Test func nanLanesStayInRange() {
        var v = SIMD16<Float>(repeating: 40)
        v[3] = .nan
        let (index, value) = CodebookFit.nearest(v, CodebookFit.values, CodebookFit.midpoints)
        #expect((0..<16).contains(Int(index[3])))
        for lane in 0..<16 where lane != 3 { #expect(index[lane] == 11 && value[lane] == 38) }
    }
}
