/// SplitMix64: a small, fast, well-distributed generator with a 64-bit state. Its output for
/// a seed is fixed forever, which keeps seeded sampling reproducible across releases.
///
/// The one seeded generator of the package: the sampler draws from it, and tests and
/// benchmarks use it for reproducible inputs.
///
/// ```swift
/// var random = SplitMix64(seed: 42)
/// let u = random.nextUnitFloat()  // in [0, 1)
/// ```
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Starts the sequence for `seed`.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform float in `[0, 1)` from the top 24 bits.
    public mutating func nextUnitFloat() -> Float {
        Float(next() >> 40) * (1.0 / 16_777_216)
    }
}
