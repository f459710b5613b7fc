import Foundation
import PocketKernels

/// One layer's RoPE: ``RotaryEmbedding``'s cos/sin table, built the same way, with the file's
/// per-pair frequency factors folded in (`rope_freqs.weight`, Llama 3.1's long-context scaling).
///
/// Pair `i` at position `p` turns by `θ_i / factor_i`, where `θ_0 = p` and `θ_{i+1} = θ_i ·
/// base^(-2/d)` in single precision, as ggml's `ggml_rope_cache_init` divides each angle of its
/// running product by `freq_factors[i]` before taking the cosine and sine. Without factors the
/// table is ``RotaryEmbedding``'s, value for value. It lives here rather than in
/// ``RotaryEmbedding`` while PocketKernels is worked on elsewhere: once that type takes the
/// factors, the forward pass can use it again and this type can go.
struct RotaryTable {
    /// Number of leading dimensions of a head that are rotated (even).
    let dimensions: Int
    /// Which dimensions are paired.
    let style: RoPEStyle
    /// Positions the table covers.
    let positions: Int
    /// `(positions, dimensions / 2)` cosines, then as many sines.
    private let table: [Float]

    /// Builds the table for positions `0..<positions`; `frequencyFactors`, when given, holds
    /// `dimensions / 2` divisors, one per pair.
    init(dimensions: Int, base: Float, style: RoPEStyle, positions: Int, frequencyFactors: UnsafePointer<Float>?) {
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
                // The running product keeps llama.cpp's rounding; the factor divides a copy.
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
    func apply(to x: UnsafeMutablePointer<Float>, position: Int) {
        precondition(position >= 0 && position < positions, "RoPE position \(position) outside the table")
        let pairs = dimensions / 2
        table.withUnsafeBufferPointer { t in
            let cosines = t.baseAddress! + position * pairs
            let sines = t.baseAddress! + (positions + position) * pairs
            let (stride, offset) = style == .adjacentPairs ? (2, 1) : (1, pairs)
            for i in 0..<pairs {
                let a = x[i * stride], b = x[i * stride + offset]
                x[i * stride] = a * cosines[i] - b * sines[i]
                x[i * stride + offset] = a * sines[i] + b * cosines[i]
            }
        }
    }
}
