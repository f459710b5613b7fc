// Scale search for 32 weights on IQ4_NL's non-linear codebook, x ≈ s·kvalues[q] (IQ4_NL's
// blocks, IQ4_XS's sub-blocks).
//
// The codebook is asymmetric (−127…113), so the sign of s matters: the weight of largest
// magnitude is tried at either end. For a fixed scale every weight's best value is its nearest
// codebook entry (the error is per weight), and for fixed entries the best scale is the
// weighted least-squares s = Σ w·x·k / Σ w·k², which lowers the error by (Σ w·x·k)² / Σ w·k².
// The search tries scales that put the extreme weight at 0.6…1.1 times either end, refits each,
// and keeps the largest reduction; the winner is refined by two more assign-refit rounds.
//
// The 32 weights are two SIMD16 vectors and the nearest entry is a count of midpoints below
// the value, so a candidate costs a few dozen vector operations and nothing allocates.

/// Nearest-entry assignment and least-squares scale search on the IQ4 codebook.
enum CodebookFit {
    /// ggml's `kvalues_iq4nl` as floats, ascending.
    static let values = SIMD16<Float>(-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113)

    /// Lane j < 15: the midpoint between entries j and j + 1; lane 15: +∞ (never exceeded).
    static let midpoints: SIMD16<Float> = {
        var m = SIMD16<Float>(repeating: .infinity)
        for j in 0..<15 { m[j] = (values[j] + values[j + 1]) / 2 }
        return m
    }()

    /// Fractions of a codebook end at which the extreme weight is placed by the candidates.
    static let reaches: [Float] = (0...20).map { 1.1 - 0.025 * Float($0) }

    /// The nearest codebook entry of every lane of `v` (ties to the lower entry; a NaN lane
    /// gets some entry): its index and its value.
    ///
    /// The index counts the midpoints below the value: the sign bit of `m − v` is set exactly
    /// when v > m. It is added as an integer, and the value grows by the step to the next entry
    /// where it is set. Comparisons into `SIMDMask` and `replace(with:where:)` compiled to one
    /// scalar comparison per lane here (85% of an IQ4_NL encode); these are whole-vector
    /// subtractions, shifts and masks. The steps are integers, so the value is the entry exactly.
    @inline(__always)
    static func nearest(_ v: SIMD16<Float>, _ values: SIMD16<Float>, _ midpoints: SIMD16<Float>) -> (index: SIMD16<Int32>, value: SIMD16<Float>) {
        var index = SIMD16<UInt32>()
        var value = SIMD16<Float>(repeating: values[0])
        for j in 0..<15 {
            let above = unsafeBitCast(SIMD16(repeating: midpoints[j]) - v, to: SIMD16<UInt32>.self) &>> 31
            let step = SIMD16<UInt32>(repeating: (values[j + 1] - values[j]).bitPattern)
            index &+= above
            value += unsafeBitCast((0 &- above) & step, to: SIMD16<Float>.self)
        }
        return (unsafeBitCast(index, to: SIMD16<Int32>.self), value)
    }

    /// The lanes' sum in the standard library's order (lane 0 first, from −0), so the scales
    /// found do not change, but inlined: `sum()` is a call, and the two sums of a refit then
    /// run one after the other (18% of an encode).
    @inline(__always)
    static func sum(_ v: SIMD16<Float>) -> Float {
        var total = -Float.zero
        for lane in 0..<16 { total += v[lane] }
        return total
    }

    /// 16 floats from `p` (no alignment needed).
    @inline(__always)
    static func load(_ p: UnsafePointer<Float>) -> SIMD16<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD16<Float>.self)
    }

    /// The least-squares scale for the entries nearest `x / s` and the error reduction it
    /// achieves, (Σ w·x·k)² / Σ w·k²; `s` itself and no reduction when that is undefined
    /// (all weights of zero importance, or non-finite sums).
    @inline(__always)
    static func refit(
        _ x0: SIMD16<Float>, _ x1: SIMD16<Float>, _ w0: SIMD16<Float>, _ w1: SIMD16<Float>, scale s: Float,
        _ values: SIMD16<Float>, _ midpoints: SIMD16<Float>
    ) -> (scale: Float, gain: Float) {
        let inverse = SIMD16<Float>(repeating: 1 / s)
        let k0 = nearest(x0 * inverse, values, midpoints).value
        let k1 = nearest(x1 * inverse, values, midpoints).value
        let sxk = sum(w0 * x0 * k0 + w1 * x1 * k1)
        let skk = sum(w0 * k0 * k0 + w1 * k1 * k1)
        guard skk > 0, sxk.isFinite else { return (s, 0) }
        return (sxk / skk, sxk * sxk / skk)
    }

    /// The signed scale of 32 weights with the least weighted squared error found (0 for an
    /// all-zero block; non-finite input gives some scale and never traps).
    ///
    /// - Parameters:
    ///   - x: 32 weights.
    ///   - w: Importance of each weight, or nil for all 1.
    static func scale(_ x: UnsafePointer<Float>, weights w: UnsafePointer<Float>?) -> Float {
        let extreme = signedExtreme(x, 32)
        guard extreme != 0, extreme.isFinite else { return extreme / values[0] }
        let values = values, midpoints = midpoints
        let x0 = load(x), x1 = load(x + 16)
        let ones = SIMD16<Float>(repeating: 1)
        let w0 = w.map { load($0) } ?? ones, w1 = w.map { load($0 + 16) } ?? ones
        var best = refit(x0, x1, w0, w1, scale: extreme / values[0], values, midpoints)
        for side in 0..<2 {
            let end = side == 0 ? values[0] : values[15]
            for reach in reaches {
                let candidate = refit(x0, x1, w0, w1, scale: extreme / (end * reach), values, midpoints)
                if candidate.gain > best.gain { best = candidate }
            }
        }
        for _ in 0..<2 {
            let candidate = refit(x0, x1, w0, w1, scale: best.scale, values, midpoints)
            guard candidate.gain > best.gain else { break }
            best = candidate
        }
        return best.scale
    }

    /// Weighted squared error of 32 weights decoded as `s·kvalues[q]` with nearest entries,
    /// computed as the decoder does (one float product per weight).
    @inline(__always)
    static func error(_ x: UnsafePointer<Float>, weights w: UnsafePointer<Float>?, scale s: Float) -> Float {
        let values = values, midpoints = midpoints
        let inverse = SIMD16<Float>(repeating: s != 0 ? 1 / s : 0)
        var total: Float = 0
        for half in 0..<2 {
            let xh = load(x + 16 * half)
            let k = nearest(xh * inverse, values, midpoints).value
            let e = SIMD16(repeating: s) * k - xh
            total += ((w.map { load($0 + 16 * half) } ?? SIMD16(repeating: 1)) * e * e).sum()
        }
        return total
    }

    /// Writes the 16 nibble bytes of 32 weights at scale `s` (weight j in the low nibble of
    /// byte j, weight j + 16 in its high nibble), IQ4_NL's `qs` layout.
    @inline(__always)
    static func store(_ x: UnsafePointer<Float>, scale s: Float, into qs: UnsafeMutableRawPointer) {
        let inverse = SIMD16<Float>(repeating: s != 0 ? 1 / s : 0)
        let low = nearest(load(x) * inverse, values, midpoints).index
        let high = nearest(load(x + 16) * inverse, values, midpoints).index
        let bytes = SIMD16<UInt8>(truncatingIfNeeded: low | high &<< 4)
        qs.storeBytes(of: bytes, as: SIMD16<UInt8>.self)
    }
}
