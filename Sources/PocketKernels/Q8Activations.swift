/// Activations quantized to 8-bit blocks, the right-hand side of the integer dot products.
///
/// Quantized weight formats are multiplied with activations that were themselves rounded to
/// 8 bits per 32-value block, as llama.cpp does (`Q8_0`/`Q8_1` activations): the products then
/// run on integers, and results agree closely with llama.cpp's.
///
/// Per block of 32 values `x`: `d = max|x| / 127`, `q = round(x · 127 / max|x|)` (half to even),
/// `scale = fp16(d)`, `sum = fp16(d * Σq)` (the rounding to fp16 mirrors the reference). The
/// 32 quantized values are stored as `Int32` lanes in *lane order*: within each half of 16,
/// position `4k + j` holds element `4j + k`. This matches how the kernels unpack four bytes of
/// weights per 32-bit lane with shifts (`byte k of lane j` is weight `4j + k`), so no shuffles
/// are needed in the inner loop.
public final class Q8Activations {
    /// Values per quantization block.
    public static let blockSize = 32

    /// Quantized values in lane order, `tokens × columns`.
    public private(set) var values: UnsafeMutablePointer<Int32>
    /// Per-block scales `d`, `tokens × columns/32`.
    public private(set) var scales: UnsafeMutablePointer<Float>
    /// Per-block `d × Σq`, `tokens × columns/32` (used by formats with an offset, e.g. Q4_1).
    public private(set) var sums: UnsafeMutablePointer<Float>
    /// `d × Σq` over each half block of 16 values, `tokens × columns/16` (used by the k-quants,
    /// whose sub-blocks of 16 each have their own offset). Within each group of 16 (one
    /// 256-value super-block) they are in lane order too: see ``halfSumIndex(_:)``.
    public private(set) var halfSums: UnsafeMutablePointer<Float>
    /// The same quantized values as ``values``, as Int16 in *pair order* within each block of
    /// 32 (see ``pairOrderIndex(_:)``): 16-bit products of adjacent lanes belong to the same
    /// group of four weights, which the 32-weight kernels need to keep llama.cpp's sums.
    public private(set) var pairValues: UnsafeMutablePointer<Int16>
    /// Quantized values in *super-block order* (Int16), `tokens × columns`; only when
    /// `columns` is a multiple of 256 (see ``superBlockPosition(_:)``). The k-quant kernels
    /// multiply these with 16-bit products, two weights per 32-bit lane.
    public private(set) var superValues: UnsafeMutablePointer<Int16>
    /// Per-256 scales of ``superValues``, `tokens × columns/256` (one scale per super-block, as
    /// llama.cpp's `Q8_K` activations: the integer sums of a whole super-block can then be added
    /// before any float arithmetic).
    public private(set) var superScales: UnsafeMutablePointer<Float>
    /// Sums of each 16 values of ``superValues`` times their super-block's scale,
    /// `tokens × columns/16`, in the order of ``subBlockLane(_:)`` within each super-block (the
    /// mins' term of the k-quant kernels).
    public private(set) var scaledSubBlockSums: UnsafeMutablePointer<Float>
    /// The same quantized values as ``values`` as bytes in plain order (``Layouts/bytes``): the
    /// operand of byte dot-product instructions (`vpdpbusd`, NEON `sdot`).
    public private(set) var bytes: UnsafeMutablePointer<Int8>
    /// Sums of each four consecutive values of ``bytes``, `tokens × columns/4` (``Layouts/bytes``):
    /// byte kernels whose weights carry an offset start each block's accumulator from
    /// −offset × these sums.
    public private(set) var groupSums: UnsafeMutablePointer<Int32>
    /// Per-block `d × Σq`, exactly as floats (not rounded to fp16 like ``sums``),
    /// `tokens × columns/32` (``Layouts/bytes``): the mins' term of the k-quants.
    public private(set) var blockSums: UnsafeMutablePointer<Float>
    /// Per-block `Σq` as an integer, `tokens × columns/32` (``Layouts/bytes``): the row-group
    /// kernels (``RowGroups``) start each block's sum from −offset × this.
    public private(set) var blockIntegerSums: UnsafeMutablePointer<Int32>
    /// The values of ``superValues`` (one scale per 256) as bytes in *plane order*
    /// (``Layouts/superBytes``, see ``planeOrderPosition(_:)``).
    public private(set) var superBytes: UnsafeMutablePointer<Int8>
    /// Integer sums of each 16 values of ``superBytes`` (Int16), `tokens × columns/16`, in
    /// the order of ``subBlockPairIndex(_:)`` within each super-block: the Q2_K row-group
    /// kernel multiplies them with its 4-bit mins in 16-bit pairs (`vpdpwssd`), the mins' term
    /// then being an exact integer, as in llama.cpp's Q2_K product.
    public private(set) var pairedSubBlockSums: UnsafeMutablePointer<Int16>
    /// The layouts the last ``quantize(_:tokens:columns:layouts:pool:)`` wrote.
    public private(set) var layouts: Layouts = []
    /// Where the last quantized vectors were read from.
    private var source: UnsafePointer<Float>?
    /// Number of vectors currently held.
    public private(set) var tokens = 0
    /// Length of each vector (a multiple of 32).
    public private(set) var columns = 0
    private var capacity = 0

    /// Creates an empty buffer; storage grows on first use and is then reused.
    public init() {
        values = .allocate(capacity: 0)
        scales = .allocate(capacity: 0)
        sums = .allocate(capacity: 0)
        halfSums = .allocate(capacity: 0)
        pairValues = .allocate(capacity: 0)
        superValues = .allocate(capacity: 0)
        superScales = .allocate(capacity: 0)
        scaledSubBlockSums = .allocate(capacity: 0)
        bytes = .allocate(capacity: 0)
        groupSums = .allocate(capacity: 0)
        blockSums = .allocate(capacity: 0)
        blockIntegerSums = .allocate(capacity: 0)
        superBytes = .allocate(capacity: 0)
        pairedSubBlockSums = .allocate(capacity: 0)
    }

    deinit {
        values.deallocate()
        scales.deallocate()
        sums.deallocate()
        halfSums.deallocate()
        pairValues.deallocate()
        superValues.deallocate()
        superScales.deallocate()
        scaledSubBlockSums.deallocate()
        bytes.deallocate()
        groupSums.deallocate()
        blockSums.deallocate()
        blockIntegerSums.deallocate()
        superBytes.deallocate()
        pairedSubBlockSums.deallocate()
    }

    /// Quantizes `tokens` vectors of `columns` floats stored one after another at `x`.
    ///
    /// - Parameters:
    ///   - layouts: The layouts to write (the kernels about to run name theirs in
    ///     ``DotKernel/activationLayouts``); ``scales`` and ``sums`` are written too, unless
    ///     only super-block layouts are requested and `columns` is a multiple of 256.
    ///   - pool: When given and there are several vectors, they are quantized in parallel.
    /// - Precondition: `columns` is a multiple of 32.
    public func quantize(
        _ x: UnsafePointer<Float>, tokens: Int, columns: Int, layouts: Layouts = .all, pool: ThreadPool? = nil
    ) {
        precondition(columns % Self.blockSize == 0, "Q8 activations need a multiple of 32 columns")
        reserve(tokens * columns)
        self.tokens = tokens
        self.columns = columns
        self.layouts = layouts
        self.source = x
        if let pool, tokens > 1 {
            pool.parallelFor(tokens) { range in
                for t in range { self.quantizeToken(t, x) }
            }
        } else {
            for t in 0..<tokens { quantizeToken(t, x) }
        }
    }

    /// Whether the buffer holds `tokens` vectors of `columns` read from `x` in (at least)
    /// `layouts`: a caller that knows `x` is unchanged since then may skip quantizing again.
    public func holds(_ x: UnsafePointer<Float>, tokens: Int, columns: Int, layouts: Layouts) -> Bool {
        source == x && self.tokens == tokens && self.columns == columns && self.layouts.isSuperset(of: layouts)
    }

    /// Quantizes vector `t` into the requested layouts.
    private func quantizeToken(_ t: Int, _ x: UnsafePointer<Float>) {
        // Pointers copied out of the class once: each read of a stored property would be a
        // dynamic exclusivity check.
        let values = values, pairValues = pairValues, scales = scales, sums = sums, halfSums = halfSums
        let superValues = superValues, superScales = superScales, scaledSubBlockSums = scaledSubBlockSums
        let bytes = bytes, groupSums = groupSums, blockSums = blockSums, superBytes = superBytes
        let blockIntegerSums = blockIntegerSums, pairedSubBlockSums = pairedSubBlockSums
        let columns = columns, layouts = layouts
        let blocksPerToken = columns / Self.blockSize
        // Kernels that read only a super-block layout (Q2_K's) use no per-32 scale or sum.
        let superOnly = columns % Self.superBlockSize == 0 && !layouts.isEmpty
            && layouts.isSubset(of: [.superBlocks, .superBytes])
        for b in (t * blocksPerToken)..<((t + 1) * blocksPerToken) where !superOnly {
            let (qLow, qHigh, lowSum, highSum) = Self.quantizeBlock(x + b * 32, scale: &scales[b], sum: &sums[b])
            if layouts.contains(.lanes) {
                let out = UnsafeMutableRawPointer(values + b * 32)
                out.storeBytes(of: Self.laneOrdered(qLow), as: SIMD16<Int32>.self)
                out.storeBytes(of: Self.laneOrdered(qHigh), toByteOffset: 64, as: SIMD16<Int32>.self)
                // Lane order keeps each half block in its own 16 lanes.
                let group = (2 * b) & ~15
                halfSums[group + Self.halfSumIndex((2 * b) & 15)] = scales[b] * Float(lowSum)
                halfSums[group + Self.halfSumIndex((2 * b + 1) & 15)] = scales[b] * Float(highSum)
            }
            if layouts.contains(.pairs) {
                UnsafeMutableRawPointer(pairValues + b * 32).storeBytes(of: Self.pairOrdered(qLow, qHigh), as: SIMD16<Int32>.self)
            }
            if layouts.contains(.bytes) {
                Self.storeBytes(qLow, qHigh, bytes: bytes + b * 32, groupSums: groupSums + b * 8)
                blockSums[b] = scales[b] * Float(lowSum &+ highSum)
                blockIntegerSums[b] = lowSum &+ highSum
            }
        }
        guard columns % Self.superBlockSize == 0, !layouts.isDisjoint(with: [.superBlocks, .superBytes]) else { return }
        let perToken = columns / Self.superBlockSize
        for s in (t * perToken)..<((t + 1) * perToken) {
            Self.quantizeSuperBlock(
                x + s * 256, values: layouts.contains(.superBlocks) ? superValues + s * 256 : nil,
                bytes: layouts.contains(.superBytes) ? superBytes + s * 256 : nil,
                scale: &superScales[s], sums: scaledSubBlockSums + s * 16,
                integerSums: layouts.contains(.superBytes) ? pairedSubBlockSums + s * 16 : nil)
        }
    }

    /// Which arrangements of the quantized values ``quantize(_:tokens:columns:layouts:pool:)``
    /// writes: each kernel reads one (ggml's `vec_dot_type`), so only those of the weights
    /// about to be multiplied are built.
    public struct Layouts: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// ``values`` (Int32, lane order) and ``halfSums``.
        public static let lanes = Layouts(rawValue: 1)
        /// ``pairValues`` (Int16, pair order).
        public static let pairs = Layouts(rawValue: 2)
        /// ``superValues`` (Int16, super-block order, one scale per 256), ``superScales`` and
        /// ``scaledSubBlockSums``.
        public static let superBlocks = Layouts(rawValue: 4)
        /// ``bytes`` (plain order, one scale per 32), ``groupSums``, ``blockSums`` and
        /// ``blockIntegerSums``.
        public static let bytes = Layouts(rawValue: 8)
        /// ``superBytes`` (plane order, one scale per 256), ``superScales`` and ``scaledSubBlockSums``.
        public static let superBytes = Layouts(rawValue: 16)
        /// Every layout (tests, and callers that do not know the weights).
        public static let all: Layouts = [.lanes, .pairs, .superBlocks, .bytes, .superBytes]
    }

    /// Values per super-block of the k-quant layout.
    public static let superBlockSize = 256

    /// Super-block-ordered values of token `t` (valid when `columns` is a multiple of 256).
    @inline(__always) package func superValues(token t: Int) -> UnsafePointer<Int16> {
        UnsafePointer(superValues + t * columns)
    }
    /// Super-block scales of token `t`.
    @inline(__always) package func superScales(token t: Int) -> UnsafePointer<Float> {
        UnsafePointer(superScales + t * columns / Self.superBlockSize)
    }
    /// Scaled sub-block sums of token `t`.
    @inline(__always) package func scaledSubBlockSums(token t: Int) -> UnsafePointer<Float> {
        UnsafePointer(scaledSubBlockSums + t * columns / 16)
    }

    /// Plain-order bytes of token `t`.
    @inline(__always) package func bytes(token t: Int) -> UnsafePointer<Int8> {
        UnsafePointer(bytes + t * columns)
    }
    /// Sums of four consecutive values of token `t`.
    @inline(__always) package func groupSums(token t: Int) -> UnsafePointer<Int32> {
        UnsafePointer(groupSums + t * columns / 4)
    }
    /// Exact block sums of token `t`.
    @inline(__always) package func blockSums(token t: Int) -> UnsafePointer<Float> {
        UnsafePointer(blockSums + t * columns / Self.blockSize)
    }
    /// Integer block sums of token `t`.
    @inline(__always) package func blockIntegerSums(token t: Int) -> UnsafePointer<Int32> {
        UnsafePointer(blockIntegerSums + t * columns / Self.blockSize)
    }
    /// Plane-ordered super-block bytes of token `t` (valid when `columns` is a multiple of 256).
    @inline(__always) package func superBytes(token t: Int) -> UnsafePointer<Int8> {
        UnsafePointer(superBytes + t * columns)
    }
    /// Paired integer sub-block sums of token `t` (with ``superBytes(token:)``).
    @inline(__always) package func pairedSubBlockSums(token t: Int) -> UnsafePointer<Int16> {
        UnsafePointer(pairedSubBlockSums + t * columns / 16)
    }

    /// Pair-ordered values of token `t`.
    @inline(__always) package func pairValues(token t: Int) -> UnsafePointer<Int16> {
        UnsafePointer(pairValues + t * columns)
    }

    /// Lane-ordered values of token `t`.
    @inline(__always) package func values(token t: Int) -> UnsafePointer<Int32> {
        UnsafePointer(values + t * columns)
    }
    /// Scales of token `t`.
    @inline(__always) package func scales(token t: Int) -> UnsafePointer<Float> {
        UnsafePointer(scales + t * columns / Self.blockSize)
    }
    /// Block sums of token `t`.
    @inline(__always) package func sums(token t: Int) -> UnsafePointer<Float> {
        UnsafePointer(sums + t * columns / Self.blockSize)
    }
    /// Half-block sums of token `t`.
    @inline(__always) package func halfSums(token t: Int) -> UnsafePointer<Float> {
        UnsafePointer(halfSums + t * columns / 16)
    }

    private func reserve(_ count: Int) {
        guard count > capacity else { return }
        values.deallocate(); scales.deallocate(); sums.deallocate(); halfSums.deallocate()
        pairValues.deallocate(); superValues.deallocate(); superScales.deallocate(); scaledSubBlockSums.deallocate()
        bytes.deallocate(); groupSums.deallocate(); blockSums.deallocate(); superBytes.deallocate()
        blockIntegerSums.deallocate(); pairedSubBlockSums.deallocate()
        pairedSubBlockSums = .allocate(capacity: count / 16)
        bytes = .allocate(capacity: count)
        blockIntegerSums = .allocate(capacity: count / Self.blockSize)
        groupSums = .allocate(capacity: count / 4)
        blockSums = .allocate(capacity: count / Self.blockSize)
        superBytes = .allocate(capacity: count)
        values = .allocate(capacity: count)
        scales = .allocate(capacity: count / Self.blockSize)
        sums = .allocate(capacity: count / Self.blockSize)
        // Rounded up to whole groups of 16: the lane-order permutation stays inside its group.
        halfSums = .allocate(capacity: (count / 16 + 15) & ~15)
        pairValues = .allocate(capacity: count)
        superValues = .allocate(capacity: count)
        superScales = .allocate(capacity: count / Self.superBlockSize + 1)
        scaledSubBlockSums = .allocate(capacity: count / 16)
        capacity = count
    }

    /// Quantizes one block of 32 floats; returns its two halves' integers (elements 0..<16 and
    /// 16..<32) in plain order and the sum of each half.
    @inline(__always)
    static func quantizeBlock(
        _ x: UnsafePointer<Float>, scale: inout Float, sum: inout Float
    ) -> (low: SIMD16<Int32>, high: SIMD16<Int32>, lowSum: Int32, highSum: Int32) {
        let raw = UnsafeRawPointer(x)
        let low = raw.loadUnaligned(as: SIMD16<Float>.self)
        let high = raw.loadUnaligned(fromByteOffset: 64, as: SIMD16<Float>.self)
        let amax = largestLane(larger(magnitudes(low), magnitudes(high)))
        // As llama.cpp's vectorized quantizer: multiply by 127/amax and round half to even.
        let d = amax / 127
        let inverse: Float = amax != 0 ? 127 / amax : 0
        let qLow = roundedToIntegers(low * inverse), qHigh = roundedToIntegers(high * inverse)
        let lowSum = qLow.wrappedSum(), highSum = qHigh.wrappedSum()
        scale = HalfConversion.rounded(d)
        sum = HalfConversion.rounded(d * Float(lowSum &+ highSum))
        return (qLow, qHigh, lowSum, highSum)
    }

    /// Stores a block's integers as 32 bytes and the sums of each four of them.
    @inline(__always)
    static func storeBytes(
        _ low: SIMD16<Int32>, _ high: SIMD16<Int32>, bytes: UnsafeMutablePointer<Int8>, groupSums: UnsafeMutablePointer<Int32>
    ) {
        let out = UnsafeMutableRawPointer(bytes)
        out.storeBytes(of: narrowed(low), as: SIMD16<Int8>.self)
        out.storeBytes(of: narrowed(high), toByteOffset: 16, as: SIMD16<Int8>.self)
        UnsafeMutableRawPointer(groupSums).storeBytes(of: quadSums(low), as: SIMD4<Int32>.self)
        UnsafeMutableRawPointer(groupSums).storeBytes(of: quadSums(high), toByteOffset: 16, as: SIMD4<Int32>.self)
    }

    /// Lanes 4i…4i+3 summed into lane i.
    @inline(__always)
    static func quadSums(_ v: SIMD16<Int32>) -> SIMD4<Int32> {
        let even = SIMD8(v[0], v[2], v[4], v[6], v[8], v[10], v[12], v[14])
        let odd = SIMD8(v[1], v[3], v[5], v[7], v[9], v[11], v[13], v[15])
        let pairs = even &+ odd
        return SIMD4(pairs[0], pairs[2], pairs[4], pairs[6]) &+ SIMD4(pairs[1], pairs[3], pairs[5], pairs[7])
    }

    /// Sixteen integers in −127…127 as bytes. (A generic narrowing conversion of SIMD lanes is
    /// a library call; this is element moves the compiler turns into one pack instruction.)
    @inline(__always)
    static func narrowed(_ v: SIMD16<Int32>) -> SIMD16<Int8> {
        var out = SIMD16<Int8>()
        for i in 0..<16 { out[i] = Int8(truncatingIfNeeded: v[i]) }
        return out
    }

    /// Elements `0..<32` (`low`: 0..<16, `high`: 16..<32) as 16-bit values in pair order,
    /// two per 32-bit lane: lane `4k + m` holds element `a = 4m + k/2 + 16(k % 2)` in its low
    /// half and `a + 2` in its high half (see ``pairOrderIndex(_:)``).
    @inline(__always)
    static func pairOrdered(_ low: SIMD16<Int32>, _ high: SIMD16<Int32>) -> SIMD16<Int32> {
        let first = SIMD16(low[0], low[4], low[8], low[12], high[0], high[4], high[8], high[12],
                           low[1], low[5], low[9], low[13], high[1], high[5], high[9], high[13])
        let second = SIMD16(low[2], low[6], low[10], low[14], high[2], high[6], high[10], high[14],
                            low[3], low[7], low[11], low[15], high[3], high[7], high[11], high[15])
        return (first & 0xFFFF) | (second &<< 16)
    }

    /// `|v|` lane by lane (clearing the sign bits).
    @inline(__always)
    static func magnitudes(_ v: SIMD16<Float>) -> SIMD16<Float> {
        unsafeBitCast(unsafeBitCast(v, to: SIMD16<UInt32>.self) & 0x7FFF_FFFF, to: SIMD16<Float>.self)
    }

    /// The largest lane of a vector of magnitudes (no NaNs). Non-negative floats order like
    /// their bit patterns, and integer lanes compare in one instruction each (`vpmaxsd`):
    /// the standard library's float `max()` and `pointwiseMax` go one lane at a time with NaN
    /// checks, and were most of the quantizer's time.
    @inline(__always)
    static func largestLane(_ v: SIMD16<Float>) -> Float {
        let bits = unsafeBitCast(v, to: SIMD16<Int32>.self)
        let eight = pointwiseMax(bits.lowHalf, bits.highHalf)
        let four = pointwiseMax(eight.lowHalf, eight.highHalf)
        let two = pointwiseMax(four.lowHalf, four.highHalf)
        return Float(bitPattern: UInt32(max(two[0], two[1])))
    }

    /// The larger of each pair of lanes of two vectors of magnitudes (see ``largestLane(_:)``).
    @inline(__always)
    static func larger(_ a: SIMD16<Float>, _ b: SIMD16<Float>) -> SIMD16<Float> {
        unsafeBitCast(pointwiseMax(unsafeBitCast(a, to: SIMD16<Int32>.self), unsafeBitCast(b, to: SIMD16<Int32>.self)), to: SIMD16<Float>.self)
    }

    /// Lanes (each of magnitude at most 2^22) rounded to the nearest integer, ties to even.
    ///
    /// Adding 1.5·2^23 makes the float unit round the fraction away (to nearest, ties to even,
    /// the default rounding); the integer is then the low bits of the sum. A generic
    /// float-to-integer vector conversion would be a library call.
    @inline(__always)
    static func roundedToIntegers(_ v: SIMD16<Float>) -> SIMD16<Int32> {
        unsafeBitCast(v + 12_582_912, to: SIMD16<Int32>.self) &- 0x4B40_0000
    }

    /// Elements `0..<16` in lane order: position `4k + j` holds element `4j + k`.
    @inline(__always)
    static func laneOrdered(_ q: SIMD16<Int32>) -> SIMD16<Int32> {
        SIMD16(q[0], q[4], q[8], q[12], q[1], q[5], q[9], q[13], q[2], q[6], q[10], q[14], q[3], q[7], q[11], q[15])
    }

    /// Quantizes 256 floats with one scale `max|x| / 127` (round half to even), stores them in
    /// super-block order and the scaled sum of each 16 of them.
    @inline(__always)
    static func quantizeSuperBlock(
        _ x: UnsafePointer<Float>, values: UnsafeMutablePointer<Int16>?, bytes: UnsafeMutablePointer<Int8>?,
        scale: inout Float, sums: UnsafeMutablePointer<Float>, integerSums: UnsafeMutablePointer<Int16>? = nil
    ) {
        let raw = UnsafeRawPointer(x)
        var amax = SIMD16<Float>()
        for k in 0..<16 { amax = larger(amax, magnitudes(raw.loadUnaligned(fromByteOffset: 64 * k, as: SIMD16<Float>.self))) }
        let largest = largestLane(amax)
        let inverse: Float = largest != 0 ? 127 / largest : 0
        scale = largest / 127
        for s in 0..<16 {
            let q = roundedToIntegers(raw.loadUnaligned(fromByteOffset: 64 * s, as: SIMD16<Float>.self) * inverse)
            let sum = q.wrappedSum()
            sums[subBlockLane(s)] = scale * Float(sum)
            integerSums?[subBlockPairIndex(s)] = Int16(truncatingIfNeeded: sum)
            if let values {
                // Sub-block s = 8h + 2j + f: its even and odd elements go to the two 32-value
                // halves of plane j, at lanes 8g…8g+7 (g = 2h + f); see superBlockPosition(_:).
                let j = (s >> 1) & 3, g = 2 * (s >> 3) + (s & 1)
                let base = values + 64 * j + 8 * g
                for k in 0..<8 {
                    base[k] = Int16(truncatingIfNeeded: q[2 * k])
                    base[32 + k] = Int16(truncatingIfNeeded: q[2 * k + 1])
                }
            }
            if let bytes {
                UnsafeMutableRawPointer(bytes).storeBytes(
                    of: narrowed(q), toByteOffset: planeOrderPosition(16 * s), as: SIMD16<Int8>.self)
            }
        }
    }

    /// Where value `i` (0..<256) of a super-block is stored in plane order: the 2-bit k-quants
    /// (Q2_K, Q3_K) hold weight `128h + 32j + l` in bits `2j…2j+1` of byte `32h + l`, so
    /// shifting their 64 bytes by `2j` gives weights `32j…32j+31` then `128+32j…`; plane order
    /// stores the activations the same way, `64j + 32h + l`, so one byte dot product covers a
    /// plane. (Sixteen consecutive values stay consecutive.)
    @inline(__always) package static func planeOrderPosition(_ i: Int) -> Int {
        let h = i >> 7, j = (i >> 5) & 3, l = i & 31
        return 64 * j + 32 * h + l
    }

    /// Where value `i` (0..<256) of a super-block is stored in super-block order.
    ///
    /// The k-quant kernels load a super-block's 64 bytes of 2-bit values as sixteen 32-bit lanes
    /// and, for bit plane `j`, shift by `2j` (and `2j + 8`) and mask two bits in each 16-bit
    /// half: 16-bit lane `8g + 2m + e` then holds byte `16g + 4m + 2e` (and `+ 1`) of those 64.
    /// Storing the activations in the same order makes every product lane-aligned: value
    /// `i = 128h + 32j + 16f + l` (byte `g = 2h + f`, `l = 4m + 2e + o`) goes to
    /// `64j + 32o + 8g + 2m + e`.
    @inline(__always) package static func superBlockPosition(_ i: Int) -> Int {
        let h = i >> 7, j = (i >> 5) & 3, f = (i >> 4) & 1, l = i & 15
        let g = 2 * h + f, m = l >> 2, e = (l >> 1) & 1, o = l & 1
        return 64 * j + 32 * o + 8 * g + 2 * m + e
    }

    /// Where the sum of sub-block `s` (16 values, 0..<16) is stored within a super-block: lane
    /// `4g + j` for sub-block `s = 8h + 2j + f`, `g = 2h + f`, the lane whose 32-bit products
    /// (after pairing) belong to that sub-block in bit plane `j`'s group `g`.
    @inline(__always) package static func subBlockLane(_ s: Int) -> Int {
        let h = s >> 3, j = (s >> 1) & 3, f = s & 1
        return 4 * (2 * h + f) + j
    }

    /// Where the integer sum of sub-block `s` (0..<16) is stored within a super-block in
    /// ``pairedSubBlockSums``: sub-blocks `4k` and `4k + 2`, then `4k + 1` and `4k + 3`, the
    /// 16-bit pairs the Q2_K row-group kernel's mins form from one scale vector (its bytes 0
    /// and 2, then 1 and 3).
    @inline(__always) package static func subBlockPairIndex(_ s: Int) -> Int {
        4 * (s >> 2) + 2 * (s & 1) + ((s >> 1) & 1)
    }

    /// Where the sum of half block `s` (0..<16 within a super-block) is stored: position
    /// `4k + m` holds half block `4m + k`, the order in which the k-quant kernels unpack the 16
    /// per-sub-block bytes of a super-block from four 32-bit lanes.
    @inline(__always) package static func halfSumIndex(_ s: Int) -> Int {
        4 * (s & 3) + (s >> 2)
    }

    /// Where element `i` (0..<32) of a block is stored in pair order.
    ///
    /// The 32-weight kernels repeat a block's 16 bytes of nibbles over sixteen 32-bit lanes
    /// and shift lane group `k` by `4k`: the low 16 bits of lane `4k + m` then hold nibble
    /// `k % 2` of byte `4m + k/2`, the high 16 bits the same nibble of byte `4m + k/2 + 2`.
    /// A nibble's weight is its byte index, plus 16 for the high nibble, so 16-bit lane
    /// `2(4k + m) + e` holds weight `4m + k/2 + 2e + 16(k % 2)`: both halves of a 32-bit lane
    /// fall in the same group of four `4m…4m+3` (or `16+4m…`).
    @inline(__always) package static func pairOrderIndex(_ i: Int) -> Int {
        let high = i >> 4, m = (i & 15) >> 2, t = i & 3
        let k = 2 * (t & 1) + high, e = t >> 1
        return 2 * (4 * k + m) + e
    }

    /// Where element `i` (0..<32) of a block is stored in lane order.
    @inline(__always) package static func laneOrderIndex(_ i: Int) -> Int {
        let half = i & 16, j = (i & 15) >> 2, k = i & 3
        return half + 4 * k + j
    }
}
