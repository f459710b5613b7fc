// The exhaustive nearest-point search of the 2-bit lattice encoders (IQ2_XXS, IQ2_XS, IQ2_S).
//
// A group of 8 weights x is encoded as scale·σ·G: G one of the codebook's points (8 magnitudes
// in {8, 25, 43}), σ its 8 signs. For a scale s > 0 and importances w the weighted error is
//
//   E = Σ w(|x| − s·G)² = Σ w·x² + s·(s·N − 2·D),   N = Σ w·G²,  D = Σ w·|x|·G,
//
// when σ copies the signs of x, which is optimal when the signs are free (IQ2_S). With an
// even-parity constraint (IQ2_XXS, IQ2_XS: the 8th sign is implied) and x having an odd number
// of negatives, exactly one sign must go against x; flipping weight j costs 4·s·w_j·|x_j|·G_j,
// so the cheapest flip adds 4·s·M with M = min_j w_j·|x_j|·G_j (flipping three is never
// cheaper than flipping one of them). The best point for the group minimizes
//
//   cost(G) = s·N − 2·D (+ 4·M when a flip is needed),
//
// which is computed for every point of the codebook, 16 points per SIMD register: no
// neighbour tables, no candidate pruning, the true optimum under the given scale.

/// One group of 8 weights prepared for the search: signs split off, importances applied.
struct LatticeGroup {
    /// The weights (NaN replaced by 0 so that no comparison is poisoned).
    var x: SIMD8<Float>
    /// Importance of each weight (1 without importances; negative or NaN taken as 0).
    var w: SIMD8<Float>
    /// w·|x|, the weight of each magnitude in D and M.
    var wa: SIMD8<Float>
    /// Bit j set when x_j < 0 (what σ copies before any parity flip).
    var negatives: UInt8
    /// Whether `negatives` has an odd number of bits (a parity-constrained code must flip one).
    var odd: Bool

    /// The group at `x`, with importances `w` (nil: all 1).
    @inline(__always)
    init(_ x: UnsafePointer<Float>, _ w: UnsafePointer<Float>?) {
        var values = SIMD8<Float>(), weights = SIMD8<Float>(repeating: 1), negatives: UInt8 = 0
        for j in 0..<8 {
            let v = x[j]
            values[j] = v.isNaN ? 0 : v
            if v < 0 { negatives |= 1 << UInt8(j) }
            if let w {
                let wj = w[j]
                weights[j] = wj > 0 ? wj : 0  // also maps NaN to 0
            }
        }
        self.x = values
        self.w = weights
        self.wa = weights * pointwiseMax(values, -values)
        self.negatives = negatives
        self.odd = negatives.nonzeroBitCount & 1 == 1
    }
}

/// A codebook prepared for the search: the points' magnitudes as floats, transposed so that 16
/// points' value j fill one SIMD register.
struct LatticeCodebook: Sendable {
    /// The codebook (``IQGrids``): byte j of entry g is magnitude j of point g.
    let points: [UInt64]
    /// Value j of point 16c + i at index 128c + 16j + i.
    let columns: [Float]
    /// Whether codes store 7 signs and imply the 8th (even number of negatives).
    let evenSigns: Bool

    init(_ points: [UInt64], evenSigns: Bool) {
        precondition(points.count % 16 == 0)
        var columns = [Float](repeating: 0, count: 8 * points.count)
        for (g, point) in points.enumerated() {
            for j in 0..<8 {
                columns[128 * (g / 16) + 16 * j + g % 16] = Float(UInt8(truncatingIfNeeded: point >> UInt64(8 * j)))
            }
        }
        self.points = points
        self.columns = columns
        self.evenSigns = evenSigns
    }

    /// IQ2_XXS's 256 points, signs with even parity.
    static let iq2xxs = LatticeCodebook(IQGrids.iq2xxs, evenSigns: true)
    /// IQ2_XS's 512 points, signs with even parity.
    static let iq2xs = LatticeCodebook(IQGrids.iq2xs, evenSigns: true)
    /// IQ2_S's 1024 points, free signs.
    static let iq2s = LatticeCodebook(IQGrids.iq2s, evenSigns: false)

    /// Runs `body` with the codebook as pointers (taken once, outside the encoders' loops).
    @inline(__always)
    func withSearch<R>(_ body: (LatticeSearch) -> R) -> R {
        points.withUnsafeBufferPointer { points in
            columns.withUnsafeBufferPointer { columns in
                body(LatticeSearch(points: points.baseAddress!, columns: columns.baseAddress!, count: points.count, evenSigns: evenSigns))
            }
        }
    }
}

/// The search over one codebook, through pointers valid inside ``LatticeCodebook/withSearch(_:)``.
struct LatticeSearch {
    /// ``LatticeCodebook/points``.
    let points: UnsafePointer<UInt64>
    /// ``LatticeCodebook/columns``.
    let columns: UnsafePointer<Float>
    /// Number of points.
    let count: Int
    /// ``LatticeCodebook/evenSigns``.
    let evenSigns: Bool

    /// The index of the point with the least weighted error for `group` at `scale` (> 0); the
    /// lowest such index on ties, 0 when every cost is NaN.
    @inline(__always)
    func nearest(_ group: LatticeGroup, scale: Float) -> Int {
        if evenSigns && group.odd {
            return nearest(group, scale: scale, flip: true)
        }
        return nearest(group, scale: scale, flip: false)
    }

    /// ``nearest(_:scale:)`` with the flip term known at compile time after inlining.
    @inline(__always)
    private func nearest(_ group: LatticeGroup, scale: Float, flip: Bool) -> Int {
        // The group's weights as 16 broadcast registers, made once for all points.
        let w0 = SIMD16<Float>(repeating: group.w[0]), w1 = SIMD16<Float>(repeating: group.w[1])
        let w2 = SIMD16<Float>(repeating: group.w[2]), w3 = SIMD16<Float>(repeating: group.w[3])
        let w4 = SIMD16<Float>(repeating: group.w[4]), w5 = SIMD16<Float>(repeating: group.w[5])
        let w6 = SIMD16<Float>(repeating: group.w[6]), w7 = SIMD16<Float>(repeating: group.w[7])
        let a0 = SIMD16<Float>(repeating: group.wa[0]), a1 = SIMD16<Float>(repeating: group.wa[1])
        let a2 = SIMD16<Float>(repeating: group.wa[2]), a3 = SIMD16<Float>(repeating: group.wa[3])
        let a4 = SIMD16<Float>(repeating: group.wa[4]), a5 = SIMD16<Float>(repeating: group.wa[5])
        let a6 = SIMD16<Float>(repeating: group.wa[6]), a7 = SIMD16<Float>(repeating: group.wa[7])
        let s = SIMD16<Float>(repeating: scale), four = SIMD16<Float>(repeating: 4)
        var bestCost = SIMD16<Float>(repeating: .infinity)
        var bestIndex = SIMD16<Int32>(repeating: 0)
        var index = SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)
        let step = SIMD16<Int32>(repeating: 16)
        var column = UnsafeRawPointer(columns)
        for _ in 0..<(count / 16) {
            var dot = SIMD16<Float>(), norm = SIMD16<Float>()
            var cheapest = SIMD16<Float>(repeating: .infinity)
            // One weight: its column of 16 points' magnitudes into D, N and (with flips) M.
            @inline(__always) func add(_ j: Int, _ w: SIMD16<Float>, _ wa: SIMD16<Float>) {
                let g = column.loadUnaligned(fromByteOffset: 64 * j, as: SIMD16<Float>.self)
                dot = dot.addingProduct(g, wa)
                norm = norm.addingProduct(g * g, w)
                if flip {
                    let p = g * wa
                    cheapest.replace(with: p, where: p .< cheapest)
                }
            }
            add(0, w0, a0); add(1, w1, a1); add(2, w2, a2); add(3, w3, a3)
            add(4, w4, a4); add(5, w5, a5); add(6, w6, a6); add(7, w7, a7)
            var cost = s * norm - (dot + dot)
            if flip { cost = cost.addingProduct(cheapest, four) }
            let better = cost .< bestCost
            bestCost.replace(with: cost, where: better)
            bestIndex.replace(with: index, where: better)
            index &+= step
            column += 512
        }
        // The lanes' first minima; across lanes the least cost, then the lowest index.
        var best = Int(bestIndex[0]), least = bestCost[0]
        for lane in 1..<16 where bestCost[lane] < least || (bestCost[lane] == least && Int(bestIndex[lane]) < best) {
            best = Int(bestIndex[lane])
            least = bestCost[lane]
        }
        return best
    }

    /// The same search one point at a time, the same float operations per point as one lane of
    /// ``nearest(_:scale:)``: the reference the SIMD search is tested against.
    func nearestScalar(_ group: LatticeGroup, scale: Float) -> Int {
        let flip = evenSigns && group.odd
        var best = 0, least = Float.infinity
        for p in 0..<count {
            var dot: Float = 0, norm: Float = 0, cheapest = Float.infinity
            for j in 0..<8 {
                let g = columns[128 * (p / 16) + 16 * j + p % 16]
                dot = dot.addingProduct(g, group.wa[j])
                norm = norm.addingProduct(g * g, group.w[j])
                if flip {
                    let p = g * group.wa[j]
                    if p < cheapest { cheapest = p }
                }
            }
            var cost = scale * norm - (dot + dot)
            if flip { cost = cost.addingProduct(cheapest, 4) }
            if cost < least {
                least = cost
                best = p
            }
        }
        return best
    }

    /// Magnitude j of point `index`.
    @inline(__always)
    func magnitude(_ index: Int, _ j: Int) -> Float {
        Float(UInt8(truncatingIfNeeded: points[index] >> UInt64(8 * j)))
    }

    /// The sign byte (bit j negates weight j) that goes with point `index` for `group`: the
    /// signs of x, and with even parity required and an odd count, the cheapest weight flipped
    /// (the same minimum the search charged; the lowest j on ties).
    @inline(__always)
    func signs(_ group: LatticeGroup, _ index: Int) -> UInt8 {
        guard evenSigns && group.odd else { return group.negatives }
        var cheapest = Float.infinity, flipped = 0
        for j in 0..<8 {
            let cost = magnitude(index, j) * group.wa[j]
            if cost < cheapest {
                cheapest = cost
                flipped = j
            }
        }
        return group.negatives ^ (1 << UInt8(flipped))
    }

    /// Σ w·(σx)·G and Σ w·G² of point `index` with sign byte `signs`: the numerator and
    /// denominator of the least-squares scale of the group (or of a sum of groups).
    @inline(__always)
    func moments(_ group: LatticeGroup, _ index: Int, _ signs: UInt8) -> (xg: Float, gg: Float) {
        var xg: Float = 0, gg: Float = 0
        for j in 0..<8 {
            let g = magnitude(index, j)
            let signed = (signs >> UInt8(j)) & 1 == 0 ? group.x[j] : -group.x[j]
            xg += group.w[j] * signed * g
            gg += group.w[j] * g * g
        }
        return (xg, gg)
    }

    /// The weighted squared error of decoding the group as `(scale·G_j)·σ_j`, the decoder's
    /// own float operations.
    @inline(__always)
    func error(_ group: LatticeGroup, _ index: Int, _ signs: UInt8, scale: Float) -> Float {
        var total: Float = 0
        for j in 0..<8 {
            let value = scale * magnitude(index, j)
            let e = ((signs >> UInt8(j)) & 1 == 0 ? value : -value) - group.x[j]
            total += group.w[j] * e * e
        }
        return total
    }
}
