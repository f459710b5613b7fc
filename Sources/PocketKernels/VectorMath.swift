import Foundation

/// Small float vector routines used by the forward pass, written with SIMD types.
///
/// Each has a plain loop beside it (`…Reference`) that tests compare against. Products are
/// accumulated with `acc += a * b` where llama.cpp's rounding need not be matched (the
/// single-precision dot product), and with `multiplyAdd`/`plusProduct` where it must (the
/// half-precision routines of attention): fused only where the target has FMA, never the
/// standard library's `addProduct`, which without FMA is a C library call per lane
/// (MultiplyAdd.swift). Half-precision lanes are converted by ``HalfConversion``,
/// never by `Float(Float16)` or `Float16(Float)` directly, which without F16C are runtime calls.
public enum VectorMath {
    /// `Σ a[i]·b[i]` for `count` elements.
    @inline(__always)
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var acc0 = SIMD16<Float>(), acc1 = SIMD16<Float>()
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var i = 0
        while i + 32 <= count {
            acc0 += ra.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
                * rb.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
            acc1 += ra.loadUnaligned(fromByteOffset: 4 * i + 64, as: SIMD16<Float>.self)
                * rb.loadUnaligned(fromByteOffset: 4 * i + 64, as: SIMD16<Float>.self)
            i += 32
        }
        var sum = (acc0 + acc1).sum()
        while i < count { sum += a[i] * b[i]; i += 1 }
        return sum
    }

    /// Scalar reference for ``dot(_:_:count:)``.
    public static func dotReference(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> Float {
        var sum: Float = 0
        for i in 0..<count { sum += a[i] * b[i] }
        return sum
    }

    /// `Σ a[i]·b[i]` with `b` in half precision (a row of the KV cache), in single precision.
    ///
    /// Products go into four 16-lane accumulators (elements `64s + 16j + l` into accumulator
    /// `j`, lane `l`), which are combined as `(a0 + a2) + (a1 + a3)` and then reduced by halves
    /// (8, 4, 2, 1 lanes apart): the order of llama.cpp's AVX-512 half-precision dot product, so
    /// attention scores round as in its reference outputs.
    @inline(__always)
    public static func dot(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float16>, count: Int) -> Float {
        let whole = count & ~63
        var sum = reduced(eightLanes(a, b, count: whole))
        for i in whole..<count { sum += a[i] * HalfConversion.widened(b[i]) }
        return sum
    }

    /// The first steps of ``dot(_:_:count:)-(_,UnsafePointer<Float16>,_)`` for `count` a
    /// multiple of 64: the four accumulators combined as `(a0 + a2) + (a1 + a3)` and halved once.
    @inline(__always)
    static func eightLanes(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float16>, count: Int) -> SIMD8<Float> {
        var acc0 = SIMD16<Float>(), acc1 = SIMD16<Float>(), acc2 = SIMD16<Float>(), acc3 = SIMD16<Float>()
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var i = 0
        while i < count {
            acc0.multiplyAdd(ra.loadUnaligned(fromByteOffset: 4 &* i, as: SIMD16<Float>.self),
                            HalfConversion.widened(rb.loadUnaligned(fromByteOffset: 2 &* i, as: SIMD16<Float16>.self)))
            acc1.multiplyAdd(ra.loadUnaligned(fromByteOffset: 4 &* i &+ 64, as: SIMD16<Float>.self),
                            HalfConversion.widened(rb.loadUnaligned(fromByteOffset: 2 &* i &+ 32, as: SIMD16<Float16>.self)))
            acc2.multiplyAdd(ra.loadUnaligned(fromByteOffset: 4 &* i &+ 128, as: SIMD16<Float>.self),
                            HalfConversion.widened(rb.loadUnaligned(fromByteOffset: 2 &* i &+ 64, as: SIMD16<Float16>.self)))
            acc3.multiplyAdd(ra.loadUnaligned(fromByteOffset: 4 &* i &+ 192, as: SIMD16<Float>.self),
                            HalfConversion.widened(rb.loadUnaligned(fromByteOffset: 2 &* i &+ 96, as: SIMD16<Float16>.self)))
            i &+= 64
        }
        let v = (acc0 + acc2) + (acc1 + acc3)
        return v.lowHalf + v.highHalf
    }

    /// ``eightLanes(_:_:count:)-(_,UnsafePointer<Float16>,_)`` on a half-precision row already
    /// widened to single precision: the same operations in the same order.
    @inline(__always)
    static func eightLanes(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, count: Int) -> SIMD8<Float> {
        var acc0 = SIMD16<Float>(), acc1 = SIMD16<Float>(), acc2 = SIMD16<Float>(), acc3 = SIMD16<Float>()
        let ra = UnsafeRawPointer(a), rb = UnsafeRawPointer(b)
        var i = 0
        while i < count {
            acc0.multiplyAdd(ra.loadUnaligned(fromByteOffset: 4 &* i, as: SIMD16<Float>.self),
                             rb.loadUnaligned(fromByteOffset: 4 &* i, as: SIMD16<Float>.self))
            acc1.multiplyAdd(ra.loadUnaligned(fromByteOffset: 4 &* i &+ 64, as: SIMD16<Float>.self),
                             rb.loadUnaligned(fromByteOffset: 4 &* i &+ 64, as: SIMD16<Float>.self))
            acc2.multiplyAdd(ra.loadUnaligned(fromByteOffset: 4 &* i &+ 128, as: SIMD16<Float>.self),
                             rb.loadUnaligned(fromByteOffset: 4 &* i &+ 128, as: SIMD16<Float>.self))
            acc3.multiplyAdd(ra.loadUnaligned(fromByteOffset: 4 &* i &+ 192, as: SIMD16<Float>.self),
                             rb.loadUnaligned(fromByteOffset: 4 &* i &+ 192, as: SIMD16<Float>.self))
            i &+= 64
        }
        let v = (acc0 + acc2) + (acc1 + acc3)
        return v.lowHalf + v.highHalf
    }

    /// The last steps of ``dot(_:_:count:)-(_,UnsafePointer<Float16>,_)``: eight lanes halved
    /// to four, then `(l0 + l2) + (l1 + l3)`.
    @inline(__always)
    static func reduced(_ eight: SIMD8<Float>) -> Float {
        let four = eight.lowHalf + eight.highHalf
        return (four[0] + four[2]) + (four[1] + four[3])
    }

    /// Scalar reference for ``dot(_:_:count:)-(_,UnsafePointer<Float16>,_)``.
    public static func dotReference(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float16>, count: Int) -> Float {
        var sum: Float = 0
        for i in 0..<count { sum += a[i] * Float(b[i]) }
        return sum
    }

    /// `y[i] += a · x[i]` for `count` elements.
    @inline(__always)
    public static func addScaled(_ x: UnsafePointer<Float>, scale a: Float, to y: UnsafeMutablePointer<Float>, count: Int) {
        let rx = UnsafeRawPointer(x), ry = UnsafeMutableRawPointer(y)
        var i = 0
        while i + 16 <= count {
            let v = ry.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
                + a * rx.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
            ry.storeBytes(of: v, toByteOffset: 4 * i, as: SIMD16<Float>.self)
            i += 16
        }
        while i < count { y[i] += a * x[i]; i += 1 }
    }

    /// `y[i] = half(y[i] · a)` on a half-precision accumulator.
    @inline(__always)
    public static func scale(_ y: UnsafeMutablePointer<Float16>, by a: Float, count: Int) {
        let ry = UnsafeMutableRawPointer(y)
        var i = 0
        while i + 16 <= count {
            let v = HalfConversion.widened(ry.loadUnaligned(fromByteOffset: 2 * i, as: SIMD16<Float16>.self)) * a
            ry.storeBytes(of: HalfConversion.narrowed(v), toByteOffset: 2 * i, as: SIMD16<Float16>.self)
            i += 16
        }
        while i < count { y[i] = HalfConversion.narrowed(HalfConversion.widened(y[i]) * a); i += 1 }
    }

    /// `y[i] = half(x[i])`: single precision rounded to half (to nearest, ties to even), sixteen
    /// lanes per conversion instruction where the CPU has one. Exact as `Float16(x[i])`.
    @inline(__always)
    public static func convert(_ x: UnsafePointer<Float>, toHalf y: UnsafeMutablePointer<Float16>, count: Int) {
        let rx = UnsafeRawPointer(x), ry = UnsafeMutableRawPointer(y)
        var i = 0
        while i + 16 <= count {
            ry.storeBytes(of: HalfConversion.narrowed(rx.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)),
                          toByteOffset: 2 * i, as: SIMD16<Float16>.self)
            i += 16
        }
        while i < count { y[i] = HalfConversion.narrowed(x[i]); i += 1 }
    }

    /// `x[i] = Float(half(x[i]))`: each value rounded to the nearest half-precision number, kept
    /// in single precision (queries meeting half-precision keys, as in llama.cpp).
    @inline(__always)
    public static func roundToHalf(_ x: UnsafeMutablePointer<Float>, count: Int) {
        let rx = UnsafeMutableRawPointer(x)
        var i = 0
        while i + 16 <= count {
            let v = rx.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
            rx.storeBytes(of: HalfConversion.rounded(v), toByteOffset: 4 * i, as: SIMD16<Float>.self)
            i += 16
        }
        while i < count { x[i] = HalfConversion.rounded(x[i]); i += 1 }
    }

    /// `y[i] = half(fma(x[i], a, y[i]))` on a half-precision accumulator: each step is computed in
    /// single precision with one rounding, then rounded to half precision (llama.cpp's flash
    /// attention accumulates values this way).
    @inline(__always)
    public static func addScaled(_ x: UnsafePointer<Float16>, scale a: Float, to y: UnsafeMutablePointer<Float16>, count: Int) {
        let rx = UnsafeRawPointer(x), ry = UnsafeMutableRawPointer(y)
        let factor = SIMD16<Float>(repeating: a)
        var i = 0
        while i + 16 <= count {
            var v = HalfConversion.widened(ry.loadUnaligned(fromByteOffset: 2 * i, as: SIMD16<Float16>.self))
            v.multiplyAdd(HalfConversion.widened(rx.loadUnaligned(fromByteOffset: 2 * i, as: SIMD16<Float16>.self)), factor)
            ry.storeBytes(of: HalfConversion.narrowed(v), toByteOffset: 2 * i, as: SIMD16<Float16>.self)
            i += 16
        }
        while i < count {
            y[i] = HalfConversion.narrowed(HalfConversion.widened(y[i]).plusProduct(HalfConversion.widened(x[i]), a))
            i += 1
        }
    }

    /// `y[i] = fma(x[i], a, y[i])` with `x` in half precision (a row of the KV cache) and a
    /// single-precision accumulator.
    @inline(__always)
    public static func addScaled(_ x: UnsafePointer<Float16>, scale a: Float, to y: UnsafeMutablePointer<Float>, count: Int) {
        let rx = UnsafeRawPointer(x), ry = UnsafeMutableRawPointer(y)
        let factor = SIMD16<Float>(repeating: a)
        var i = 0
        while i + 16 <= count {
            var v = ry.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
            v.multiplyAdd(HalfConversion.widened(rx.loadUnaligned(fromByteOffset: 2 * i, as: SIMD16<Float16>.self)), factor)
            ry.storeBytes(of: v, toByteOffset: 4 * i, as: SIMD16<Float>.self)
            i += 16
        }
        while i < count { y[i] = y[i].plusProduct(HalfConversion.widened(x[i]), a); i += 1 }
    }

    /// `y[i] *= a` for `count` elements.
    @inline(__always)
    public static func scale(_ y: UnsafeMutablePointer<Float>, by a: Float, count: Int) {
        for i in 0..<count { y[i] *= a }
    }

    /// RMS normalization: `out[i] = x[i] · (1 / sqrt(mean(x²) + epsilon)) · weight[i]`.
    ///
    /// Squares are rounded to single precision and summed in double precision, and the scale
    /// is formed in single precision, as llama.cpp does, so results agree with its traces. The
    /// sum runs sixteen lanes at a time, a different order than llama.cpp's serial one
    /// (kept in ``rmsNormReference(_:weight:epsilon:into:count:)``); in double precision the
    /// two sums differ only in bits that rounding the mean to single precision drops, and the
    /// outputs matched exactly on every random model-sized vector the tests try.
    public static func rmsNorm(
        _ x: UnsafePointer<Float>, weight: UnsafePointer<Float>, epsilon: Float,
        into out: UnsafeMutablePointer<Float>, count: Int
    ) {
        let rx = UnsafeRawPointer(x), rw = UnsafeRawPointer(weight), ro = UnsafeMutableRawPointer(out)
        var low = SIMD8<Double>(), high = SIMD8<Double>()
        var i = 0
        while i + 16 <= count {
            let v = rx.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
            let squares = v * v
            low += doubled(squares.lowHalf)
            high += doubled(squares.highHalf)
            i += 16
        }
        var sum = (low + high).sum()
        while i < count { sum += Double(x[i] * x[i]); i += 1 }
        let mean = Float(sum / Double(count))
        let scale = 1 / (mean + epsilon).squareRoot()
        i = 0
        while i + 16 <= count {
            let v = rx.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
            let w = rw.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
            ro.storeBytes(of: v * scale * w, toByteOffset: 4 * i, as: SIMD16<Float>.self)
            i += 16
        }
        while i < count { out[i] = x[i] * scale * weight[i]; i += 1 }
    }

    /// Scalar reference for ``rmsNorm(_:weight:epsilon:into:count:)``: llama.cpp's serial sum.
    public static func rmsNormReference(
        _ x: UnsafePointer<Float>, weight: UnsafePointer<Float>, epsilon: Float,
        into out: UnsafeMutablePointer<Float>, count: Int
    ) {
        var sum: Double = 0
        for i in 0..<count { sum += Double(x[i] * x[i]) }
        let mean = Float(sum / Double(count))
        let scale = 1 / (mean + epsilon).squareRoot()
        for i in 0..<count { out[i] = x[i] * scale * weight[i] }
    }

    /// `y[i] += x[i]` for `count` elements.
    @inline(__always)
    public static func add(_ x: UnsafePointer<Float>, to y: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { y[i] += x[i] }
    }

    /// In-place softmax over `count` values; subtracts the maximum first for stability.
    public static func softmax(_ x: UnsafeMutablePointer<Float>, count: Int) {
        guard count > 0 else { return }
        var maximum = -Float.infinity
        for i in 0..<count { maximum = max(maximum, x[i]) }
        var sum: Double = 0
        for i in 0..<count {
            let e = expf(x[i] - maximum)
            x[i] = e
            sum += Double(e)
        }
        let inverse = Float(1 / sum)
        for i in 0..<count { x[i] *= inverse }
    }

    /// SwiGLU on one row: `gate[i] = silu(gate[i]) · up[i]`, with `silu(z) = z / (1 + e^-z)`.
    ///
    /// Sixteen values at a time use ``exp(_:)-(SIMD16<Float>)``, the rest of the row the C
    /// library's `expf`: the split llama.cpp makes on AVX-512 CPUs, so call it once per row.
    public static func swiGLU(_ gate: UnsafeMutablePointer<Float>, up: UnsafePointer<Float>, count: Int) {
        let rg = UnsafeMutableRawPointer(gate), ru = UnsafeRawPointer(up)
        var i = 0
        while i + 16 <= count {
            let g = rg.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
            let u = ru.loadUnaligned(fromByteOffset: 4 * i, as: SIMD16<Float>.self)
            rg.storeBytes(of: g / (1 + exp(SIMD16(repeating: 0) - g)) * u, toByteOffset: 4 * i, as: SIMD16<Float>.self)
            i += 16
        }
        while i < count {
            gate[i] = gate[i] / (1 + expf(-gate[i])) * up[i]
            i += 1
        }
    }

    /// Scalar reference for ``swiGLU(_:up:count:)``, one value at a time.
    public static func swiGLUReference(_ gate: UnsafeMutablePointer<Float>, up: UnsafePointer<Float>, count: Int) {
        let vectorized = count - count % 16
        for i in 0..<count {
            let e = i < vectorized ? expReference(0 - gate[i]) : expf(-gate[i])
            gate[i] = gate[i] / (1 + e) * up[i]
        }
    }
}

/// Single-precision lanes widened to double precision, lane by lane so that it compiles to
/// one conversion instruction (`vcvtps2pd`) rather than a library call. Exact.
@inline(__always)
func doubled(_ v: SIMD8<Float>) -> SIMD8<Double> {
    var result = SIMD8<Double>()
    for i in 0..<8 { result[i] = Double(v[i]) }
    return result
}
