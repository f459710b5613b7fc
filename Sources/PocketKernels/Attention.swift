import Foundation

/// Causal attention over cached half-precision keys and values, for the query heads that
/// share one key/value head.
///
/// The softmax is computed online (flash-attention style): a running maximum, a running sum,
/// and a value accumulator that is rescaled whenever the maximum grows. How the accumulator
/// rounds follows llama.cpp, whose outputs are the reference: for a prompt (`halfPrecision`)
/// it is rounded to half precision after every step, for single-token decoding it stays in
/// single precision with a final division.
///
/// The work is split in two passes with exactly the online algorithm's arithmetic: the first
/// walks the keys and records, per position, the rescale factor and the weight the online
/// softmax applies there (the running maximum decides which exponential each position takes,
/// then the block's exponentials are computed sixteen at a time, bit for bit the C library's
/// `expf` that llama.cpp calls); the second replays those steps on the value rows, a few 16-lane
/// accumulators at a time kept in registers. Replaying per accumulator gives the same
/// operations in the same order, so results are identical to the one-pass loop, but the value
/// updates no longer wait on each other through memory. Both passes go block by block
/// (``blockLength`` positions), all heads of the group in turn on each block, so at long
/// contexts the group reads its keys and values from memory once instead of once per head.
public enum Attention {
    /// Keys (and values) visited per round: every head of a group runs both passes over one
    /// block before the next, so the block's rows are read from memory once for the group and
    /// then from cache. 256 rows of a 128-dimension head are 64 KB of keys and as much of values.
    public static let blockLength = 256

    /// Working memory of ``attend(queries:heads:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``.
    public struct Scratch {
        /// Caller-owned floats, at least ``count(heads:headDimension:)`` of them.
        public let buffer: UnsafeMutablePointer<Float>

        /// Wraps a caller-owned buffer.
        public init(_ buffer: UnsafeMutablePointer<Float>) {
            self.buffer = buffer
        }

        /// Floats needed for `heads` query heads of `headDimension`: per head a block of
        /// rescale factors and weights, the value accumulator, the running maximum and sum;
        /// where keys are widened once per group (``widensKeys``), a block of widened keys.
        public static func count(heads: Int, headDimension: Int) -> Int {
            heads * (2 * blockLength + headDimension + 2) + (widensKeys && heads > 1 ? blockLength * headDimension : 0)
        }
    }

    /// Whether a group of heads reads each block's keys widened to single precision once
    /// (for `headDimension` a multiple of 64): without a conversion instruction a widening is
    /// a dozen vector operations per eight halves, which every head of the group would repeat
    /// on every key; with one it is a single instruction, cheaper than the extra memory.
    static var widensKeys: Bool {
        #if POCKET_F16C || arch(arm64)
        false
        #else
        true
        #endif
    }

    /// `out_h = Σ_j softmax_j(q_h · k_j · scale) · v_j` over positions `0..<length` for
    /// `heads` query heads that share one key/value head (grouped-query attention).
    ///
    /// Each head's arithmetic is exactly that of the one-pass online softmax run on its own;
    /// the heads only take turns, block by block, so that they share the reads of the rows.
    ///
    /// - Parameters:
    ///   - queries: `heads × headDimension` floats, one head after the other, already rounded
    ///     to half precision (the keys' precision), as llama.cpp does.
    ///   - keys: Key row of position 0 of the shared key/value head; position `j` is
    ///     `rowStride` halves further. `values` likewise.
    ///   - out: `heads × headDimension` floats, in the order of `queries`.
    public static func attend(
        queries: UnsafePointer<Float>, heads: Int, headDimension hd: Int,
        keys: UnsafePointer<Float16>, values: UnsafePointer<Float16>, rowStride: Int, length: Int,
        scale: Float, halfPrecision: Bool, scratch: Scratch, into out: UnsafeMutablePointer<Float>
    ) {
        let accumulators = scratch.buffer + heads * 2 * blockLength
        let state = PartialState(
            accumulators: accumulators, maxima: accumulators + heads * hd, sums: accumulators + heads * hd + heads)
        accumulate(
            queries: queries, heads: heads, headDimension: hd, keys: keys, values: values, rowStride: rowStride,
            length: length, scale: scale, halfPrecision: halfPrecision, scratch: scratch, into: state)
        combine(parts: 1, heads: heads, headDimension: hd, halfPrecision: halfPrecision, state, into: out)
    }

    /// The online softmax's state after some positions, for `heads` heads: the unnormalized
    /// value accumulators (`heads × headDimension`), the running maxima and the running sums
    /// (`heads` each). Split decoding computes one per range of positions and merges them with
    /// ``combine(parts:heads:headDimension:halfPrecision:_:into:)``.
    public struct PartialState {
        /// `heads × headDimension` floats.
        public let accumulators: UnsafeMutablePointer<Float>
        /// `heads` floats.
        public let maxima: UnsafeMutablePointer<Float>
        /// `heads` floats.
        public let sums: UnsafeMutablePointer<Float>

        /// Wraps caller-owned buffers.
        public init(accumulators: UnsafeMutablePointer<Float>, maxima: UnsafeMutablePointer<Float>, sums: UnsafeMutablePointer<Float>) {
            self.accumulators = accumulators
            self.maxima = maxima
            self.sums = sums
        }
    }

    /// The state of ``attend(queries:heads:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``
    /// before normalization, over the positions `0..<length` of `keys` and `values` (which may
    /// start anywhere in a cache: split decoding hands each thread a range).
    public static func accumulate(
        queries: UnsafePointer<Float>, heads: Int, headDimension hd: Int,
        keys: UnsafePointer<Float16>, values: UnsafePointer<Float16>, rowStride: Int, length: Int,
        scale: Float, halfPrecision: Bool, scratch: Scratch, into state: PartialState
    ) {
        let accumulation = Accumulation(
            queries: queries, heads: heads, headDimension: hd, keys: keys, values: values, rowStride: rowStride, length: length,
            scale: scale, halfPrecision: halfPrecision, scratch: scratch, state: state)
        if let library = KernelTierLibrary.activeEntryPoints { return library.accumulate(accumulation) }
        accumulation.run()
    }

    /// The arguments of one ``accumulate(queries:heads:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``:
    /// plain values, so that a kernel tier library can receive them by address
    /// (``KernelTierLibrary``). The baseline build that loads one allocates the larger
    /// ``Scratch`` (it widens keys; the libraries, with F16C, do not).
    struct Accumulation {
        let queries: UnsafePointer<Float>
        let heads: Int
        let headDimension: Int
        let keys: UnsafePointer<Float16>
        let values: UnsafePointer<Float16>
        let rowStride: Int
        let length: Int
        let scale: Float
        let halfPrecision: Bool
        let scratch: Scratch
        let state: PartialState

        /// Accumulates with this build's code.
        func run() {
            Attention.accumulateInThisBuild(
                queries: queries, heads: heads, headDimension: headDimension, keys: keys, values: values, rowStride: rowStride,
                length: length, scale: scale, halfPrecision: halfPrecision, scratch: scratch, into: state)
        }
    }

    /// ``accumulate(queries:heads:headDimension:keys:values:rowStride:length:scale:halfPrecision:scratch:into:)``
    /// with this build's code.
    static func accumulateInThisBuild(
        queries: UnsafePointer<Float>, heads: Int, headDimension hd: Int,
        keys: UnsafePointer<Float16>, values: UnsafePointer<Float16>, rowStride: Int, length: Int,
        scale: Float, halfPrecision: Bool, scratch: Scratch, into state: PartialState
    ) {
        let block = blockLength
        let rescales = scratch.buffer                   // (heads, block)
        let weights = rescales + heads * block          // (heads, block)
        let accumulators = state.accumulators, maxima = state.maxima, sums = state.sums
        accumulators.update(repeating: 0, count: heads * hd)
        maxima.update(repeating: -.infinity, count: heads)
        sums.update(repeating: 0, count: heads)

        // The group's widened key block (row j at j · hd), where there is one.
        let widenedKeys = widensKeys && heads > 1 && hd % 64 == 0 ? scratch.buffer + heads * (2 * block + hd + 2) : nil
        var start = 0
        while start < length {
            let count = min(block, length - start)
            let k = keys + start * rowStride, v = values + start * rowStride
            if let kw = widenedKeys {
                let raw = UnsafeMutableRawPointer(kw)
                for j in 0..<count {
                    let row = UnsafeRawPointer(k + j * rowStride)
                    for d in stride(from: 0, to: hd, by: 16) {
                        raw.storeBytes(of: HalfConversion.widened(row.loadUnaligned(fromByteOffset: 2 * d, as: SIMD16<Float16>.self)),
                                       toByteOffset: 4 * (j * hd + d), as: SIMD16<Float>.self)
                    }
                }
            }
            // Pass 1: the online softmax's decisions at every position of the block.
            for h in 0..<heads {
                let r = rescales + h * block, w = weights + h * block
                let query = queries + h * hd
                var j = 0
                if let kw = widenedKeys {
                    // The same dot products, on the widened rows.
                    while j + 8 <= count {
                        let scores = VectorMath.eightDots(query, UnsafePointer(kw + j * hd), stride: hd, count: hd) * scale
                        UnsafeMutableRawPointer(w + j).storeBytes(of: scores, as: SIMD8<Float>.self)
                        j += 8
                    }
                    while j < count { w[j] = VectorMath.reduced(VectorMath.eightLanes(query, kw + j * hd, count: hd)) * scale; j += 1 }
                } else if hd % 64 == 0 {
                    while j + 8 <= count {
                        let scores = VectorMath.eightDots(query, k + j * rowStride, stride: rowStride, count: hd) * scale
                        UnsafeMutableRawPointer(w + j).storeBytes(of: scores, as: SIMD8<Float>.self)
                        j += 8
                    }
                }
                while j < count { w[j] = VectorMath.dot(query, k + j * rowStride, count: hd) * scale; j += 1 }
                // The running maximum decides, per position, which exponential the step takes:
                // e^(old max − score) rescales (flagged by r = 0 until it is known), or
                // e^(score − max) weighs the value. Then all of them at once.
                var maximum = maxima[h]
                for j in 0..<count {
                    let score = w[j]
                    if score > maximum {
                        w[j] = maximum - score
                        r[j] = 0
                        maximum = score
                    } else {
                        w[j] = score - maximum
                        r[j] = 1
                    }
                }
                maxima[h] = maximum
                VectorMath.cLibraryExp(inPlace: w, count: count)
                for j in 0..<count where r[j] == 0 { (r[j], w[j]) = (w[j], 1) }
                sums[h] = runningSum(sums[h], rescales: r, weights: w, count: count)
            }
            // Pass 2: the same steps on the values, 64 and then 16 dimensions at a time; two
            // heads at a time where they can, which share the value rows and interleave their
            // accumulators' dependency chains (a rounded step waits on three conversions).
            var pair = 0
            while pair + 2 <= heads && hd % 64 == 0 {
                let (r0, w0, y0) = (rescales + pair * block, weights + pair * block, accumulators + pair * hd)
                let (r1, w1, y1) = (r0 + block, w0 + block, y0 + hd)
                for d in stride(from: 0, to: hd, by: 64) {
                    replay4x2(v + d, rowStride, count, (UnsafePointer(r0), UnsafePointer(w0), y0 + d), (UnsafePointer(r1), UnsafePointer(w1), y1 + d), halfPrecision)
                }
                pair += 2
            }
            for h in pair..<heads {
                let r = rescales + h * block, w = weights + h * block, y = accumulators + h * hd
                var d = 0
                while d + 64 <= hd {
                    replay4(v + d, rowStride, count, r, w, halfPrecision, y + d)
                    d += 64
                }
                while d + 16 <= hd {
                    replay1(v + d, rowStride, count, r, w, halfPrecision, y + d)
                    d += 16
                }
                while d < hd {
                    for j in 0..<count {
                        if r[j] != 1 { y[d] = halfPrecision ? HalfConversion.rounded(y[d] * r[j]) : y[d] * r[j] }
                        if w[j] != 0 {
                            y[d] = y[d].plusProduct(HalfConversion.widened(v[j * rowStride + d]), w[j])
                            if halfPrecision { y[d] = HalfConversion.rounded(y[d]) }
                        }
                    }
                    d += 1
                }
            }
            start += count
        }
    }

    /// The online softmax's running sum after `count` steps `sum = sum · r[j] + w[j]`.
    ///
    /// The rescale `r[j]` is 1 except where the maximum grew, and `sum · 1` is `sum`: eight steps
    /// at a time, a block whose rescales are all 1 is eight additions, a chain of dependent
    /// operations half as long as with the multiplications (which the compiler would otherwise
    /// keep, selecting between the two results).
    @inline(__always)
    static func runningSum(_ start: Float, rescales r: UnsafePointer<Float>, weights w: UnsafePointer<Float>, count: Int) -> Float {
        var sum = start, j = 0
        while j + 8 <= count {
            if all(UnsafeRawPointer(r + j).loadUnaligned(as: SIMD8<Float>.self) .== 1) {
                for i in j..<(j + 8) { sum += w[i] }
            } else {
                for i in j..<(j + 8) { sum = sum * r[i] + w[i] }
            }
            j += 8
        }
        while j < count { sum = sum * r[j] + w[j]; j += 1 }
        return sum
    }

    /// Merges `parts` states (laid out one after the other: accumulators `(parts, heads,
    /// headDimension)`, maxima and sums `(parts, heads)`) into normalized outputs
    /// `heads × headDimension`.
    ///
    /// Each part is rescaled to the largest maximum, `e^(m_p − m)`, and the rescaled
    /// accumulators and sums are added in part order. One part is the plain normalization:
    /// `y · (1/sum)` for the half-precision accumulator, `y / sum` for the single-precision one
    /// (llama.cpp's two conventions), bit for bit what a single pass gives.
    public static func combine(
        parts: Int, heads: Int, headDimension hd: Int, halfPrecision: Bool, _ state: PartialState,
        into out: UnsafeMutablePointer<Float>
    ) {
        withUnsafeTemporaryAllocation(of: Float.self, capacity: parts) { factors in
            for h in 0..<heads {
                var maximum = -Float.infinity
                for p in 0..<parts { maximum = max(maximum, state.maxima[p * heads + h]) }
                // Each part's rescale; an empty part (no positions, sum 0) contributes nothing.
                for p in 0..<parts {
                    factors[p] = state.sums[p * heads + h] == 0 ? 0 : expf(state.maxima[p * heads + h] - maximum)
                }
                var sum = state.sums[h]
                if parts > 1 {
                    sum = 0
                    for p in 0..<parts { sum = sum.plusProduct(state.sums[p * heads + h], factors[p]) }
                }
                let inverse = 1 / sum
                for d in 0..<hd {
                    var y = state.accumulators[h * hd + d]
                    if parts > 1 {
                        y = 0
                        for p in 0..<parts { y = y.plusProduct(state.accumulators[(p * heads + h) * hd + d], factors[p]) }
                    }
                    out[h * hd + d] = halfPrecision ? y * inverse : y / sum
                }
            }
        }
    }

    /// One accumulator step: optional rescale, then `y = fma(v, w, y)`, each rounded to half
    /// precision when `half` (exactly what storing the accumulator as `Float16` would do).
    @inline(__always)
    static func step(_ y: inout SIMD16<Float>, _ value: UnsafePointer<Float16>, _ rescale: Float, _ weight: Float, _ half: Bool) {
        step(&y, HalfConversion.widened(UnsafeRawPointer(value).loadUnaligned(as: SIMD16<Float16>.self)), rescale, weight, half)
    }

    /// ``step(_:_:_:_:_:)-(_,UnsafePointer<Float16>,_,_,_)`` with the value row already widened.
    @inline(__always)
    static func step(_ y: inout SIMD16<Float>, _ value: SIMD16<Float>, _ rescale: Float, _ weight: Float, _ half: Bool) {
        if rescale != 1 {
            y *= rescale
            if half { y = HalfConversion.rounded(y) }
        }
        if weight != 0 {
            y.multiplyAdd(value, SIMD16(repeating: weight))
            if half { y = HalfConversion.rounded(y) }
        }
    }

    /// Pass 2 for 64 dimensions of one block and two heads (each its rescales, weights and
    /// accumulators): eight accumulators in registers, each value row widened once for both.
    @inline(__always)
    static func replay4x2(
        _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int,
        _ first: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafeMutablePointer<Float>),
        _ second: (UnsafePointer<Float>, UnsafePointer<Float>, UnsafeMutablePointer<Float>), _ half: Bool
    ) {
        let a = UnsafeMutableRawPointer(first.2), b = UnsafeMutableRawPointer(second.2)
        var a0 = a.loadUnaligned(as: SIMD16<Float>.self), a1 = a.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self)
        var a2 = a.loadUnaligned(fromByteOffset: 128, as: SIMD16<Float>.self), a3 = a.loadUnaligned(fromByteOffset: 192, as: SIMD16<Float>.self)
        var b0 = b.loadUnaligned(as: SIMD16<Float>.self), b1 = b.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self)
        var b2 = b.loadUnaligned(fromByteOffset: 128, as: SIMD16<Float>.self), b3 = b.loadUnaligned(fromByteOffset: 192, as: SIMD16<Float>.self)
        for j in 0..<length {
            let row = UnsafeRawPointer(values + j * rowStride)
            let v0 = HalfConversion.widened(row.loadUnaligned(as: SIMD16<Float16>.self))
            let v1 = HalfConversion.widened(row.loadUnaligned(fromByteOffset: 32, as: SIMD16<Float16>.self))
            let v2 = HalfConversion.widened(row.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float16>.self))
            let v3 = HalfConversion.widened(row.loadUnaligned(fromByteOffset: 96, as: SIMD16<Float16>.self))
            let (r, w) = (first.0[j], first.1[j])
            step(&a0, v0, r, w, half); step(&a1, v1, r, w, half); step(&a2, v2, r, w, half); step(&a3, v3, r, w, half)
            let (s, x) = (second.0[j], second.1[j])
            step(&b0, v0, s, x, half); step(&b1, v1, s, x, half); step(&b2, v2, s, x, half); step(&b3, v3, s, x, half)
        }
        a.storeBytes(of: a0, as: SIMD16<Float>.self); a.storeBytes(of: a1, toByteOffset: 64, as: SIMD16<Float>.self)
        a.storeBytes(of: a2, toByteOffset: 128, as: SIMD16<Float>.self); a.storeBytes(of: a3, toByteOffset: 192, as: SIMD16<Float>.self)
        b.storeBytes(of: b0, as: SIMD16<Float>.self); b.storeBytes(of: b1, toByteOffset: 64, as: SIMD16<Float>.self)
        b.storeBytes(of: b2, toByteOffset: 128, as: SIMD16<Float>.self); b.storeBytes(of: b3, toByteOffset: 192, as: SIMD16<Float>.self)
    }

    /// Pass 2 for 64 dimensions of one block: four accumulators loaded into registers, the
    /// block's steps applied, stored back.
    @inline(__always)
    static func replay4(
        _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int, _ rescales: UnsafePointer<Float>,
        _ weights: UnsafePointer<Float>, _ half: Bool, _ accumulators: UnsafeMutablePointer<Float>
    ) {
        let a = UnsafeMutableRawPointer(accumulators)
        var y0 = a.loadUnaligned(as: SIMD16<Float>.self), y1 = a.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self)
        var y2 = a.loadUnaligned(fromByteOffset: 128, as: SIMD16<Float>.self), y3 = a.loadUnaligned(fromByteOffset: 192, as: SIMD16<Float>.self)
        for j in 0..<length {
            let v = values + j * rowStride, r = rescales[j], w = weights[j]
            step(&y0, v, r, w, half)
            step(&y1, v + 16, r, w, half)
            step(&y2, v + 32, r, w, half)
            step(&y3, v + 48, r, w, half)
        }
        a.storeBytes(of: y0, as: SIMD16<Float>.self)
        a.storeBytes(of: y1, toByteOffset: 64, as: SIMD16<Float>.self)
        a.storeBytes(of: y2, toByteOffset: 128, as: SIMD16<Float>.self)
        a.storeBytes(of: y3, toByteOffset: 192, as: SIMD16<Float>.self)
    }

    /// Pass 2 for 16 dimensions of one block.
    @inline(__always)
    static func replay1(
        _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int, _ rescales: UnsafePointer<Float>,
        _ weights: UnsafePointer<Float>, _ half: Bool, _ accumulators: UnsafeMutablePointer<Float>
    ) {
        let a = UnsafeMutableRawPointer(accumulators)
        var y = a.loadUnaligned(as: SIMD16<Float>.self)
        for j in 0..<length { step(&y, values + j * rowStride, rescales[j], weights[j], half) }
        a.storeBytes(of: y, as: SIMD16<Float>.self)
    }
}
