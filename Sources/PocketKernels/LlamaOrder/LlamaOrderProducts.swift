import PocketGGUF

/// Matrix products computed in llama.cpp's own order of floating-point operations: a Pocket
/// addition, for reproducing llama.cpp's outputs bit for bit rather than to within rounding.
///
/// Greedy decoding amplifies the last bit of a logit wherever two tokens nearly tie, so an
/// engine that rounds in a different order (a different lane split, a multiply-add where
/// llama.cpp multiplies then adds) picks other tokens at such points and the texts part. This
/// computes each product as llama.cpp's x86 CPU backend does on an AVX-512 machine with its
/// weights repacked (its default), for the formats of the k-quant mixes:
///
/// - **Q4_K**, repacked 8×8 (`ggml_gemv/gemm_q4_K_8x8_q8_K`): rows of four tokens (a batch's
///   first `n − n % 4`) add each pair of sub-blocks' integer sum into the row's accumulator
///   with one multiply-add by `d·a`; single rows add a whole super-block's sum at once; the
///   mins go to an accumulator of their own, subtracted at the end;
/// - **Q6_K**, for fewer than eight tokens the AVX2 dot (`ggml_vec_dot_q6_K_q8_K`: eight integer
///   lanes of four bytes per 32, one multiply-add per super-block into eight float lanes, summed
///   as `hsum_float_8`), from eight tokens the tiled kernel (`ggml-cpu/tiled`, VNNI: the
///   super-block's integer sum times `d`, then a multiply-add by the activation scale);
/// - **Q5_0** and **Q8_0** (tinyBLAS for batches, the AVX2 dot for one token, the same
///   arithmetic): eight float lanes of four bytes each, one multiply-add per block by `d_w·d_a`,
///   summed as `hsum_float_8`.
///
/// Integer sums are exact in any order, so only the float steps follow llama.cpp's sequence;
/// the code is plain scalar Swift, far slower than ``MatrixMultiply``. Other formats go
/// through ``MatrixMultiply``.
public final class LlamaOrderProducts: @unchecked Sendable {
    private var activations = LlamaOrderActivations()

    /// Creates the products' scratch space.
    public init() {}

    /// Whether `type` has a llama.cpp-order product here.
    public static func supports(_ type: GGMLType) -> Bool {
        [.q4_K, .q6_K, .q5_0, .q8_0].contains(type)
    }

    /// `y[t] = W · x[t]` for `tokens` vectors, as one llama.cpp matrix product of a batch of
    /// `tokens` (the batch size picks the kernel, as there).
    ///
    /// - Precondition: `Self.supports(weights.type)`, and `weights` is not repacked into row
    ///   groups (the products read the blocks as stored).
    public func multiply(
        _ weights: WeightMatrix, _ x: UnsafePointer<Float>, tokens: Int, into y: UnsafeMutablePointer<Float>, pool: ThreadPool
    ) {
        precondition(Self.supports(weights.type), "no llama.cpp-order product for \(weights.type)")
        let columns = weights.columns
        switch weights.type {
        case .q4_K:
            let grouped = tokens - tokens % 4
            activations.quantizeSuperBlocks(x, tokens: tokens, columns: columns, groupedRows: grouped)
            run(weights, tokens, y, pool) { row, t, a in Self.q4K(row, columns, a, t, pairs: t < grouped) }
        case .q6_K:
            activations.quantizeSuperBlocks(x, tokens: tokens, columns: columns, groupedRows: 0)
            run(weights, tokens, y, pool) { row, t, a in Self.q6K(row, columns, a, t, tiled: tokens >= 8) }
        default:
            activations.quantizeBlocks(x, tokens: tokens, columns: columns)
            let five = weights.type == .q5_0
            run(weights, tokens, y, pool) { row, t, a in Self.q0(row, columns, a, t, five: five) }
        }
    }

    /// Runs `dot(row, token, activations)` for every row and token, rows split over the pool.
    private func run(
        _ weights: WeightMatrix, _ tokens: Int, _ y: UnsafeMutablePointer<Float>, _ pool: ThreadPool,
        _ dot: @escaping (UnsafeRawPointer, Int, LlamaOrderActivations) -> Float
    ) {
        let a = activations, rows = weights.rows
        pool.parallelFor(rows) { range in
            for r in range {
                let row = weights.row(r)
                for t in 0..<tokens { y[t * rows + r] = dot(row, t, a) }
            }
        }
    }

    /// ggml's `hsum_float_8`: the halves added, then the pairs, then the two sums.
    @inline(__always)
    static func sumOfEightLanes(_ v: SIMD8<Float>) -> Float {
        let r0 = v[4] + v[0], r1 = v[5] + v[1], r2 = v[6] + v[2], r3 = v[7] + v[3]
        return (r0 + r2) + (r1 + r3)
    }

    /// One Q4_K row against token `t`: per super-block (single rows) or per pair of sub-blocks
    /// (rows of four), `acc += Σ · (d·a)` and `mins += Σ · (dmin·a)`, fused; then `acc − mins`.
    static func q4K(_ row: UnsafeRawPointer, _ columns: Int, _ a: LlamaOrderActivations, _ t: Int, pairs: Bool) -> Float {
        var acc: Float = 0, mins: Float = 0
        let blocks = columns / 256
        a.codes.withUnsafeBufferPointer { codes in
            for b in 0..<blocks {
                let block = row + b * Q4_K.bytesPerBlock
                let q8 = codes.baseAddress! + t * columns + 256 * b
                let da = a.scales[t * blocks + b]
                let dScale = block.loadHalf(at: Q4_K.dOffset) * da, minScale = block.loadHalf(at: Q4_K.dminOffset) * da
                var sum: Int32 = 0, minSum: Int32 = 0
                for s in 0..<8 {
                    let (scale, min) = Q4_K.scaleAndMin(block + Q4_K.scalesOffset, s)
                    let qs = block + Q4_K.qsOffset + 32 * (s / 2), shift = UInt8(4 * (s % 2))
                    var dot: Int32 = 0
                    for l in 0..<32 { dot += Int32(qs.byte(at: l) &>> shift & 0xF) * Int32(q8[32 * s + l]) }
                    let g = (t * blocks + b) * 16 + 2 * s
                    sum += Int32(scale) * dot
                    minSum += Int32(min) * (a.sums[g] + a.sums[g + 1])
                    if pairs && s % 2 == 1 {
                        acc = acc.addingProduct(Float(sum), dScale)
                        mins = mins.addingProduct(Float(minSum), minScale)
                        sum = 0
                        minSum = 0
                    }
                }
                if !pairs {
                    acc = acc.addingProduct(Float(sum), dScale)
                    mins = mins.addingProduct(Float(minSum), minScale)
                }
            }
        }
        return acc - mins
    }

    /// One Q6_K row against token `t`: the AVX2 dot's eight lanes (`tiled == false`) or the
    /// tiled kernel's one sum per super-block.
    static func q6K(_ row: UnsafeRawPointer, _ columns: Int, _ a: LlamaOrderActivations, _ t: Int, tiled: Bool) -> Float {
        var lanes = SIMD8<Float>(repeating: 0), total: Float = 0
        let blocks = columns / 256
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 256) { unpacked in
            a.codes.withUnsafeBufferPointer { codes in
                for b in 0..<blocks {
                    let block = row + b * Q6_K.bytesPerBlock
                    let q8 = codes.baseAddress! + t * columns + 256 * b
                    let da = a.scales[t * blocks + b], dw = block.loadHalf(at: Q6_K.dOffset)
                    let scale = { (s: Int) in Int32(block.load(fromByteOffset: Q6_K.scalesOffset + s, as: Int8.self)) }
                    // Weight i's unsigned code (0…63): chunk c = 4h + k of 32 weights is nibble k / 2 of
                    // ql bytes 64h + 32(k % 2)… and bits 2k of qh bytes 32h….
                    for c in 0..<8 {
                        let h = c / 4, k = c % 4
                        let ql = block + Q6_K.qlOffset + 64 * h + 32 * (k % 2), qh = block + Q6_K.qhOffset + 32 * h
                        for l in 0..<32 {
                            let low = ql.byte(at: l) &>> UInt8(4 * (k / 2)) & 0xF, high = qh.byte(at: l) &>> UInt8(2 * k) & 3
                            unpacked[32 * c + l] = Int32(low | high &<< 4)
                        }
                    }
                    let g = (t * blocks + b) * 16
                    if tiled {
                        var sum: Int32 = 0
                        for s in 0..<16 {
                            var dot: Int32 = 0
                            for j in 0..<16 { dot += unpacked[16 * s + j] * Int32(q8[16 * s + j]) }
                            sum += scale(s) * (dot - 32 * a.sums[g + s])
                        }
                        total = total.addingProduct(Float(sum) * dw, da)
                    } else {
                        var sums = SIMD8<Int32>(repeating: 0)
                        for lane in 0..<8 {
                            var s: Int32 = 0
                            for c in 0..<8 {
                                var dot: Int32 = 0
                                for e in 0..<4 { dot += unpacked[32 * c + 4 * lane + e] * Int32(q8[32 * c + 4 * lane + e]) }
                                s += scale(2 * c + lane / 4) * dot
                            }
                            sums[lane] = s - 32 * (a.sums[g + 2 * lane] * scale(2 * lane) + a.sums[g + 2 * lane + 1] * scale(2 * lane + 1))
                        }
                        let d = da * dw
                        for lane in 0..<8 { lanes[lane] = lanes[lane].addingProduct(d, Float(sums[lane])) }
                    }
                }
            }
        }
        return tiled ? total : sumOfEightLanes(lanes)
    }

    /// One Q5_0 or Q8_0 row against token `t`: eight lanes of four bytes, `lane += (d_w·d_a) · Σ`
    /// fused per block, then `hsum_float_8`.
    static func q0(_ row: UnsafeRawPointer, _ columns: Int, _ a: LlamaOrderActivations, _ t: Int, five: Bool) -> Float {
        var lanes = SIMD8<Float>(repeating: 0)
        let blocks = columns / 32, bytes = five ? Q5_0.bytesPerBlock : Q8_0.bytesPerBlock
        a.codes.withUnsafeBufferPointer { codes in
            a.scales.withUnsafeBufferPointer { scales in
                for b in 0..<blocks {
                    let block = row + b * bytes
                    let q8 = codes.baseAddress! + t * columns + 32 * b
                    var sums = SIMD8<Int32>(repeating: 0)
                    if five {
                        let qh = UInt32(littleEndian: block.loadUnaligned(fromByteOffset: Q5_0.qhOffset, as: UInt32.self))
                        let qs = block + Q5_0.qsOffset
                        for lane in 0..<8 {
                            var dot: Int32 = 0
                            for e in 0..<4 {
                                let i = 4 * lane + e, byte = qs.byte(at: i & 15)
                                let low = i < 16 ? byte & 0xF : byte &>> 4
                                dot += (Int32(low) | Int32(qh &>> UInt32(i) & 1) &<< 4 - 16) * Int32(q8[i])
                            }
                            sums[lane] = dot
                        }
                    } else {
                        let w = (block + Q8_0.qsOffset).assumingMemoryBound(to: Int8.self)
                        for lane in 0..<8 {
                            var dot: Int32 = 0
                            for e in 0..<4 { dot += Int32(w[4 * lane + e]) * Int32(q8[4 * lane + e]) }
                            sums[lane] = dot
                        }
                    }
                    let d = block.loadHalf(at: 0) * scales[t * blocks + b]
                    for lane in 0..<8 { lanes[lane] = lanes[lane].addingProduct(d, Float(sums[lane])) }
                }
            }
        }
        return sumOfEightLanes(lanes)
    }
}
