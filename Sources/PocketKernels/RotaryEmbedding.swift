import Foundation

/// How rotary position embedding pairs the dimensions of a head.
public enum RoPEStyle: Sendable {
    /// `(x[2i], x[2i+1])`: llama.cpp's "normal" RoPE. Llama GGUF files have their Q/K rows
    /// permuted at conversion so that this matches the original model.
    case adjacentPairs
    /// `(x[i], x[i + d/2])`: GPT-NeoX style, used by Qwen2.
    case halves
}

/// Rotary position embedding (RoPE) with a precomputed cos/sin table.
///
/// Pair `i` of a head at position `p` is rotated by `θ = p · base^(-2i/d)`. The angles are
/// built the way llama.cpp builds them, `θ_0 = p` and `θ_{i+1} = θ_i · base^(-2/d)` in single
/// precision, so rotated values agree with its traces to the last bits rather than drifting
/// on long contexts where the two roundings differ.
///
/// ```swift
/// let rope = RotaryEmbedding(dimensions: 64, base: 10_000, style: .adjacentPairs, positions: 4096)
/// rope.apply(to: head, position: 7)
/// ```
public struct RotaryEmbedding: @unchecked Sendable {
    /// Number of leading dimensions of a head that are rotated (even).
    public let dimensions: Int
    /// Which dimensions are paired.
    public let style: RoPEStyle
    /// Positions the table covers.
    public let positions: Int
    /// `(positions, dimensions / 2)` cosines, then as many sines.
    private let table: [Float]

    /// Builds the table for positions `0..<positions`.
    ///
    /// - Parameter frequencyFactors: When given, `dimensions / 2` divisors, one per pair (a
    ///   file's `rope_freqs.weight`, Llama 3.1's long-context scaling): pair `i` then turns by
    ///   `θ_i / factor_i`, as ggml's `ggml_rope_cache_init` divides each angle of its running
    ///   product.
    public init(dimensions: Int, base: Float, style: RoPEStyle, positions: Int, frequencyFactors: UnsafePointer<Float>? = nil) {
        precondition(dimensions >= 0 && dimensions % 2 == 0, "RoPE dimensions must be even")
        self.dimensions = dimensions
        self.style = style
        self.positions = positions
        let pairs = dimensions / 2
        let step = powf(base, -2 / Float(max(dimensions, 1)))
        var table = [Float](repeating: 0, count: 2 * positions * pairs)
        for p in 0..<positions {
            var theta = Float(p)
            for i in 0..<pairs {
                // The running product keeps llama.cpp's rounding; a factor divides a copy.
                let angle = frequencyFactors.map { theta / $0[i] } ?? theta
                table[p * pairs + i] = cosf(angle)
                table[(positions + p) * pairs + i] = sinf(angle)
                theta *= step
            }
        }
        self.table = table
    }

    /// Rotates the first ``dimensions`` values of one head in place.
    ///
    /// - Precondition: `position < positions`.
    @inline(__always)
    public func apply(to x: UnsafeMutablePointer<Float>, position: Int) {
        rotate(x, position) { a, b, c, s in (a * c - b * s, a * s + b * c) }
    }

    /// ``apply(to:position:)`` with the first product of each rotated value fused into its
    /// sum, `fma(a, cos, −(b·sin))` and `fma(a, sin, b·cos)`, as GCC compiles ggml's
    /// `x0·cos − x1·sin` and `x0·sin + x1·cos`: a Pocket addition, the RoPE step of
    /// ``LlamaOrderProducts``' mode.
    ///
    /// - Precondition: `position < positions`.
    public func applyFused(to x: UnsafeMutablePointer<Float>, position: Int) {
        rotate(x, position) { a, b, c, s in ((-(b * s)).addingProduct(a, c), (b * c).addingProduct(a, s)) }
    }

    /// Replaces each pair `(a, b)` of the head at `x` by `rotation(a, b, cos θ, sin θ)`.
    @inline(__always)
    private func rotate(
        _ x: UnsafeMutablePointer<Float>, _ position: Int, _ rotation: (Float, Float, Float, Float) -> (Float, Float)
    ) {
        precondition(position >= 0 && position < positions, "RoPE position \(position) outside the table")
        let pairs = dimensions / 2
        table.withUnsafeBufferPointer { t in
            let cosines = t.baseAddress! + position * pairs
            let sines = t.baseAddress! + (positions + position) * pairs
            let (stride, offset) = style == .adjacentPairs ? (2, 1) : (1, pairs)
            for i in 0..<pairs {
                (x[i * stride], x[i * stride + offset]) = rotation(x[i * stride], x[i * stride + offset], cosines[i], sines[i])
            }
        }
    }

    /// Reference: rotates with angles computed directly as `p · base^(-2i/d)` in double
    /// precision. Agrees with ``apply(to:position:)`` to float rounding.
    public static func applyReference(
        to x: UnsafeMutablePointer<Float>, position: Int, dimensions: Int, base: Float, style: RoPEStyle
    ) {
        let pairs = dimensions / 2
        for i in 0..<pairs {
            let theta = Double(position) * pow(Double(base), -2 * Double(i) / Double(dimensions))
            let (first, second) = style == .adjacentPairs ? (2 * i, 2 * i + 1) : (i, i + pairs)
            let a = Double(x[first]), b = Double(x[second])
            x[first] = Float(a * cos(theta) - b * sin(theta))
            x[second] = Float(a * sin(theta) + b * cos(theta))
        }
    }
}
