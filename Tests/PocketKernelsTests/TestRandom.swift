import PocketKernels

/// The kernel tests' seeded generator: the package's one SplitMix64, under the name these
/// tests use for their random inputs.
typealias TestRandom = SplitMix64
