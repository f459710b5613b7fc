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
        /// for a group of heads, a block of keys widened to single precision once for all of them.
        public static func count(heads: Int, headDimension: Int) -> Int {
            heads * (2 * blockLength + headDimension + 2) + (heads > 1 ? blockLength * headDimension : 0)
        }
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

        // The group's widened key block (row j at j · hd): each key is converted once for all
        // heads instead of once per head (a conversion is two operations on the vector ports).
        let widenedKeys = heads > 1 && hd % 64 == 0 ? scratch.buffer + heads * (2 * block + hd + 2) : nil
        var start = 0
        while start < length {
            let count = min(block, length - start)
            let k = keys + start * rowStride, v = values + start * rowStride
            if let kw = widenedKeys {
                let raw = UnsafeMutableRawPointer(kw)
                var j = 0
                while j < count {
                    let row = UnsafeRawPointer(k + j &* rowStride), out = raw + 4 &* j &* hd
                    var d = 0
                    while d < hd {
                        out.storeBytes(of: HalfConversion.widened(row.loadUnaligned(fromByteOffset: 2 &* d, as: SIMD16<Float16>.self)),
                                       toByteOffset: 4 &* d, as: SIMD16<Float>.self)
                        d &+= 16
                    }
                    j &+= 1
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
                        let scores = VectorMath.eightDots(query, UnsafePointer(kw + j &* hd), stride: hd, count: hd) * scale
                        UnsafeMutableRawPointer(w + j).storeBytes(of: scores, as: SIMD8<Float>.self)
                        j &+= 8
                    }
                    while j < count { w[j] = VectorMath.reduced(VectorMath.eightLanes(query, kw + j &* hd, count: hd)) * scale; j &+= 1 }
                } else if hd % 64 == 0 {
                    while j + 8 <= count {
                        let scores = VectorMath.eightDots(query, k + j &* rowStride, stride: rowStride, count: hd) * scale
                        UnsafeMutableRawPointer(w + j).storeBytes(of: scores, as: SIMD8<Float>.self)
                        j &+= 8
                    }
                }
                while j < count { w[j] = VectorMath.dot(query, k + j &* rowStride, count: hd) * scale; j &+= 1 }
                maxima[h] = decide(scores: w, rescales: r, count: count, maximum: maxima[h])
            }
            runningSums(sums, heads: heads, rescales: rescales, weights: weights, stride: block, count: count)
            // Pass 2: the same steps on the values, 64 dimensions of several heads at a time
            // (four with 512-bit vectors: sixteen accumulators in registers, whose rounded
            // steps, three dependent conversions and a multiply-add long, overlap), the value
            // rows widened once for them all; then 16 dimensions, then one.
            if hd % 64 == 0 {
                var first = 0
                #if POCKET_512BIT_VECTORS
                while first + 4 <= heads {
                    replay(FourHeads.self, v, rowStride, count, rescales + first * block, weights + first * block, block,
                                accumulators + first * hd, hd, halfPrecision)
                    first += 4
                }
                #endif
                while first + 2 <= heads {
                    replay(TwoHeads.self, v, rowStride, count, rescales + first * block, weights + first * block, block,
                                accumulators + first * hd, hd, halfPrecision)
                    first += 2
                }
                if first < heads {
                    replay(OneHead.self, v, rowStride, count, rescales + first * block, weights + first * block, block,
                                accumulators + first * hd, hd, halfPrecision)
                }
            } else {
                for h in 0..<heads {
                    let r = rescales + h * block, w = weights + h * block, y = accumulators + h * hd
                    var d = 0
                    while d + 16 <= hd {
                        replay1(v + d, rowStride, count, r, w, halfPrecision, y + d)
                        d += 16
                    }
                    while d < hd {
                        for j in 0..<count {
                            if r[j] != 1 { y[d] = halfPrecision ? HalfConversion.rounded(y[d] * r[j]) : y[d] * r[j] }
                            y[d] = y[d].plusProduct(HalfConversion.widened(v[j * rowStride + d]), w[j])
                            if halfPrecision { y[d] = HalfConversion.rounded(y[d]) }
                        }
                        d += 1
                    }
                }
            }
            start += count
        }
    }

    /// The online softmax's steps at `count` positions whose scores are in `w`, after
    /// positions whose maximum was `maximum`: each position either rescales the accumulator
    /// (its score is a new maximum: `r = e^(old max − score)`, `w = 1`) or weighs its value
    /// (`r = 1`, `w = e^(score − max)`). Returns the new maximum. `w` and `r` must hold `count`
    /// rounded up to a multiple of 16.
    ///
    /// Sixteen positions at a time: the running maximum before each position is a prefix
    /// maximum across lanes (four shifts), so the scalar loop's chain of comparisons becomes a
    /// few vector operations, with the same results: the exponent is `old max − score` or
    /// `score − max`, which are `−|score − max before|` exactly (a difference and its negation
    /// round alike), and the exponentials are the C library's.
    @inline(__always)
    static func decide(scores w: UnsafeMutablePointer<Float>, rescales r: UnsafeMutablePointer<Float>, count: Int, maximum: Float) -> Float {
        var maximum = maximum
        #if POCKET_512BIT_VECTORS
        var j = 0
        while j < count {
            let raw = UnsafeMutableRawPointer(w + j)
            var score = raw.loadUnaligned(as: SIMD16<Float>.self)
            if count - j < 16 {
                // Lanes past the block: −∞ changes no maximum before a real position.
                score.replace(with: -.infinity, where: SIMD16<Int32>(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15) .>= Int32(count - j))
            }
            let before = PrefixMaximum.before(score, maximum)
            let grows = score .> before
            // −|score − before|: the sign bit set.
            let exponent = unsafeBitCast(unsafeBitCast(score - before, to: SIMD16<UInt32>.self) | 0x8000_0000, to: SIMD16<Float>.self)
            let e = VectorMath.cLibraryExp(exponent)
            let one = SIMD16<Float>(repeating: 1)
            raw.storeBytes(of: e.replacing(with: one, where: grows), as: SIMD16<Float>.self)
            UnsafeMutableRawPointer(r + j).storeBytes(of: one.replacing(with: e, where: grows), as: SIMD16<Float>.self)
            maximum = Swift.max(before[15], score[15])
            j &+= 16
        }
        #else
        // One position at a time: the running maximum decides which exponential each step
        // takes, e^(old max − score) (flagged by r = 0 until it is known) or e^(score − max).
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
        VectorMath.cLibraryExp(inPlace: w, count: count)
        for j in 0..<count where r[j] == 0 { (r[j], w[j]) = (w[j], 1) }
        #endif
        return maximum
    }

    /// The online softmax's running sums after `count` steps `sum = sum · r[j] + w[j]`, for
    /// `heads` heads whose rescales and weights are `stride` floats apart. The heads take turns
    /// at every step: each sum is a chain of dependent additions, and several chains overlap.
    @inline(__always)
    static func runningSums(
        _ sums: UnsafeMutablePointer<Float>, heads: Int, rescales r: UnsafePointer<Float>, weights w: UnsafePointer<Float>,
        stride: Int, count: Int
    ) {
        var first = 0
        while first + 4 <= heads {
            let (r0, r1, r2, r3) = (r + first * stride, r + (first + 1) * stride, r + (first + 2) * stride, r + (first + 3) * stride)
            let (w0, w1, w2, w3) = (w + first * stride, w + (first + 1) * stride, w + (first + 2) * stride, w + (first + 3) * stride)
            var (s0, s1, s2, s3) = (sums[first], sums[first + 1], sums[first + 2], sums[first + 3])
            for j in 0..<count {
                s0 = s0 * r0[j] + w0[j]; s1 = s1 * r1[j] + w1[j]
                s2 = s2 * r2[j] + w2[j]; s3 = s3 * r3[j] + w3[j]
            }
            (sums[first], sums[first + 1], sums[first + 2], sums[first + 3]) = (s0, s1, s2, s3)
            first += 4
        }
        if first < heads {
            // The last one to three heads, also side by side (a lone chain waits on every add).
            let rest = heads - first
            let (r0, w0) = (r + first * stride, w + first * stride)
            let (r1, w1) = rest > 1 ? (r0 + stride, w0 + stride) : (r0, w0)
            let (r2, w2) = rest > 2 ? (r0 + 2 * stride, w0 + 2 * stride) : (r0, w0)
            var (s0, s1, s2) = (sums[first], rest > 1 ? sums[first + 1] : 0, rest > 2 ? sums[first + 2] : 0)
            for j in 0..<count {
                s0 = s0 * r0[j] + w0[j]; s1 = s1 * r1[j] + w1[j]; s2 = s2 * r2[j] + w2[j]
            }
            sums[first] = s0
            if rest > 1 { sums[first + 1] = s1 }
            if rest > 2 { sums[first + 2] = s2 }
        }
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

    /// The accumulators of 64 dimensions of one head, in registers.
    struct HeadLanes {
        var y0, y1, y2, y3: SIMD16<Float>

        /// Loads the 64 floats at `p`.
        @inline(__always)
        init(_ p: UnsafePointer<Float>) {
            let a = UnsafeRawPointer(p)
            y0 = a.loadUnaligned(as: SIMD16<Float>.self)
            y1 = a.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self)
            y2 = a.loadUnaligned(fromByteOffset: 128, as: SIMD16<Float>.self)
            y3 = a.loadUnaligned(fromByteOffset: 192, as: SIMD16<Float>.self)
        }

        /// The 64 halves at `p`, widened.
        @inline(__always)
        init(widening p: UnsafePointer<Float16>) {
            let a = UnsafeRawPointer(p)
            y0 = HalfConversion.widened(a.loadUnaligned(as: SIMD16<Float16>.self))
            y1 = HalfConversion.widened(a.loadUnaligned(fromByteOffset: 32, as: SIMD16<Float16>.self))
            y2 = HalfConversion.widened(a.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float16>.self))
            y3 = HalfConversion.widened(a.loadUnaligned(fromByteOffset: 96, as: SIMD16<Float16>.self))
        }

        /// Stores the 64 floats at `p`.
        @inline(__always)
        func store(_ p: UnsafeMutablePointer<Float>) {
            let a = UnsafeMutableRawPointer(p)
            a.storeBytes(of: y0, as: SIMD16<Float>.self)
            a.storeBytes(of: y1, toByteOffset: 64, as: SIMD16<Float>.self)
            a.storeBytes(of: y2, toByteOffset: 128, as: SIMD16<Float>.self)
            a.storeBytes(of: y3, toByteOffset: 192, as: SIMD16<Float>.self)
        }

        /// One step of the online softmax: the rescale where the maximum grew, then `y += w·v`,
        /// each rounded to half precision when `half`. The addition is not skipped for a zero
        /// weight: `y + 0·v` is `y`, and a branch per step costs more than the operation.
        @inline(__always)
        mutating func step(_ v: HeadLanes, _ rescale: Float, _ weight: Float, _ half: Bool) {
            if rescale != 1 {
                y0 = Attention.rounded(y0 * rescale, half); y1 = Attention.rounded(y1 * rescale, half)
                y2 = Attention.rounded(y2 * rescale, half); y3 = Attention.rounded(y3 * rescale, half)
            }
            let w = SIMD16<Float>(repeating: weight)
            y0.multiplyAdd(v.y0, w); y1.multiplyAdd(v.y1, w); y2.multiplyAdd(v.y2, w); y3.multiplyAdd(v.y3, w)
            y0 = Attention.rounded(y0, half); y1 = Attention.rounded(y1, half)
            y2 = Attention.rounded(y2, half); y3 = Attention.rounded(y3, half)
        }
    }

    /// `y` rounded to half precision when `half`, else `y`.
    @inline(__always)
    static func rounded(_ y: SIMD16<Float>, _ half: Bool) -> SIMD16<Float> {
        half ? HalfConversion.rounded(y) : y
    }

    /// Pass 2 for `H.count` heads (head `i`'s rescales and weights `i · block` floats after
    /// `r` and `w`, its accumulators `i · hd` floats after `y`), 64 dimensions at a time: each
    /// value row is widened once for all of them, and every head takes exactly its own steps in
    /// order. Generic, so that the head count and the rounding are constants in the loop.
    @inline(never)
    static func replay<H: ReplayHeads, R: ReplayRounding>(
        _: H.Type, _: R.Type, _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int, _ r: UnsafePointer<Float>,
        _ w: UnsafePointer<Float>, _ block: Int, _ y: UnsafeMutablePointer<Float>, _ hd: Int
    ) {
        let n = H.count, half = R.half
        var d = 0
        while d < hd {
            let y = y + d, values = values + d
            var a = HeadLanes(y)
            var b = n > 1 ? HeadLanes(y + hd) : a, c = n > 2 ? HeadLanes(y + 2 &* hd) : a, e = n > 3 ? HeadLanes(y + 3 &* hd) : a
            var j = 0
            while j < length {
                let v = HeadLanes(widening: values + j &* rowStride)
                a.step(v, r[j], w[j], half)
                if n > 1 { b.step(v, r[block &+ j], w[block &+ j], half) }
                if n > 2 { c.step(v, r[2 &* block &+ j], w[2 &* block &+ j], half) }
                if n > 3 { e.step(v, r[3 &* block &+ j], w[3 &* block &+ j], half) }
                j &+= 1
            }
            a.store(y)
            if n > 1 { b.store(y + hd) }
            if n > 2 { c.store(y + 2 &* hd) }
            if n > 3 { e.store(y + 3 &* hd) }
            d &+= 64
        }
    }

    /// The number of heads one ``replay(_:_:_:_:_:_:_:_:_:_:)`` takes together.
    protocol ReplayHeads { static var count: Int { get } }
    enum OneHead: ReplayHeads { static var count: Int { 1 } }
    enum TwoHeads: ReplayHeads { static var count: Int { 2 } }
    enum FourHeads: ReplayHeads { static var count: Int { 4 } }

    /// Whether ``replay(_:_:_:_:_:_:_:_:_:_:)`` rounds its accumulators to half precision.
    protocol ReplayRounding { static var half: Bool { get } }
    enum HalfRounding: ReplayRounding { static var half: Bool { true } }
    enum SingleRounding: ReplayRounding { static var half: Bool { false } }

    /// ``replay(_:_:_:_:_:_:_:_:_:_:)`` with `H` heads and the rounding `half` asks for.
    @inline(__always)
    static func replay<H: ReplayHeads>(
        _ heads: H.Type, _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int, _ r: UnsafePointer<Float>,
        _ w: UnsafePointer<Float>, _ block: Int, _ y: UnsafeMutablePointer<Float>, _ hd: Int, _ half: Bool
    ) {
        if half {
            replay(H.self, HalfRounding.self, values, rowStride, length, r, w, block, y, hd)
        } else {
            replay(H.self, SingleRounding.self, values, rowStride, length, r, w, block, y, hd)
        }
    }

    /// Pass 2 for 16 dimensions of one block (head dimensions that are not a multiple of 64).
    @inline(__always)
    static func replay1(
        _ values: UnsafePointer<Float16>, _ rowStride: Int, _ length: Int, _ rescales: UnsafePointer<Float>,
        _ weights: UnsafePointer<Float>, _ half: Bool, _ accumulators: UnsafeMutablePointer<Float>
    ) {
        let a = UnsafeMutableRawPointer(accumulators)
        var y = a.loadUnaligned(as: SIMD16<Float>.self)
        for j in 0..<length {
            let value = HalfConversion.widened(UnsafeRawPointer(values + j * rowStride).loadUnaligned(as: SIMD16<Float16>.self))
            if rescales[j] != 1 { y = rounded(y * rescales[j], half) }
            y.multiplyAdd(value, SIMD16(repeating: weights[j]))
            y = rounded(y, half)
        }
        a.storeBytes(of: y, as: SIMD16<Float>.self)
    }
}

#if POCKET_512BIT_VECTORS
import _Builtin_intrinsics.intel

/// Running maxima across the sixteen lanes of a vector (``Attention/decide(scores:rescales:count:maximum:)``).
enum PrefixMaximum {
    /// Lane `i`: the maximum of `start` and lanes `0..<i` of `x`.
    @inline(__always)
    static func before(_ x: SIMD16<Float>, _ start: Float) -> SIMD16<Float> {
        let fill = _mm512_set1_ps(start)
        // Lanes moved up by n, the first n from `fill` (index 16 is fill's lane 0).
        @inline(__always) func up(_ v: __m512, _ index: SIMD16<Int32>) -> __m512 {
            _mm512_permutex2var_ps(v, unsafeBitCast(index, to: __m512i.self), fill)
        }
        var p = up(unsafeBitCast(x, to: __m512.self), SIMD16(16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14))
        p = _mm512_max_ps(p, up(p, SIMD16(16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)))
        p = _mm512_max_ps(p, up(p, SIMD16(16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)))
        p = _mm512_max_ps(p, up(p, SIMD16(16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)))
        p = _mm512_max_ps(p, up(p, SIMD16(16, 16, 16, 16, 16, 16, 16, 16, 0, 1, 2, 3, 4, 5, 6, 7)))
        return unsafeBitCast(p, to: SIMD16<Float>.self)
    }
}
#endif
