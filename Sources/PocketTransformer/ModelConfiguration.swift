import PocketGGUF

/// The hyper-parameters of a Llama-family transformer, read from GGUF metadata.
///
/// Keys are prefixed with the architecture name (`llama.block_count`, `qwen2.block_count`).
/// Values that the file omits fall back to the usual defaults (RoPE base 10,000, RMS epsilon
/// 1e-5, head dimension `embedding / heads`).
///
/// ```swift
/// let file = try GGUFFile(contentsOf: url)
/// let config = try ModelConfiguration(metadata: file.metadata)
/// print(config.layerCount, config.embeddingLength)
/// ```
public struct ModelConfiguration: Sendable, Equatable {
    /// `general.architecture`, e.g. `"llama"`.
    public var architecture: String
    /// Width of the residual stream (`dim`).
    public var embeddingLength: Int
    /// Number of transformer blocks.
    public var layerCount: Int
    /// Hidden width of the feed-forward network.
    public var feedForwardLength: Int
    /// Number of query heads.
    public var headCount: Int
    /// Number of key/value heads (grouped-query attention when below ``headCount``).
    public var keyValueHeadCount: Int
    /// Width of one attention head.
    public var headDimension: Int
    /// Number of leading dimensions of each head that RoPE rotates.
    public var ropeDimensionCount: Int
    /// RoPE base frequency θ.
    public var ropeFrequencyBase: Float
    /// Epsilon inside RMSNorm.
    public var rmsNormEpsilon: Float
    /// The context length the model was trained for.
    public var trainedContextLength: Int
    /// Number of tokens in the vocabulary.
    public var vocabularySize: Int

    /// Width of all query heads together.
    public var queryLength: Int { headCount * headDimension }
    /// Width of all key (or value) heads together.
    public var keyValueLength: Int { keyValueHeadCount * headDimension }

    /// Creates a configuration from explicit values (used by tests and synthetic models).
    public init(
        architecture: String = "llama", embeddingLength: Int, layerCount: Int, feedForwardLength: Int,
        headCount: Int, keyValueHeadCount: Int, headDimension: Int? = nil, ropeDimensionCount: Int? = nil,
        ropeFrequencyBase: Float = 10_000, rmsNormEpsilon: Float = 1e-5, trainedContextLength: Int = 2048,
        vocabularySize: Int
    ) {
        self.architecture = architecture
        self.embeddingLength = embeddingLength
        self.layerCount = layerCount
        self.feedForwardLength = feedForwardLength
        self.headCount = headCount
        self.keyValueHeadCount = keyValueHeadCount
        let head = headDimension ?? (headCount > 0 ? embeddingLength / headCount : 0)
        self.headDimension = head
        self.ropeDimensionCount = ropeDimensionCount ?? head
        self.ropeFrequencyBase = ropeFrequencyBase
        self.rmsNormEpsilon = rmsNormEpsilon
        self.trainedContextLength = trainedContextLength
        self.vocabularySize = vocabularySize
    }

    /// Reads the configuration from a model's metadata.
    ///
    /// - Throws: ``TransformerError/unsupportedArchitecture(_:)`` when `general.architecture` is
    ///   not a Llama-family architecture, ``TransformerError/invalidConfiguration(_:)`` when a
    ///   required key is missing or values are inconsistent.
    public init(metadata: GGUFMetadata) throws(TransformerError) {
        guard let architecture = metadata.string("general.architecture") else {
            throw .invalidConfiguration("missing metadata key general.architecture")
        }
        guard Architecture(rawValue: architecture) != nil else {
            throw .unsupportedArchitecture(architecture)
        }
        let p = architecture + "."
        func required(_ key: String) throws(TransformerError) -> Int {
            guard let value = metadata.integer(p + key) else {
                throw .invalidConfiguration("missing integer metadata key \(p + key)")
            }
            return value
        }
        let embedding = try required("embedding_length")
        let heads = try required("attention.head_count")
        let vocabulary = metadata.integer(p + "vocab_size")
            ?? metadata.strings("tokenizer.ggml.tokens")?.count
        guard let vocabulary else {
            throw .invalidConfiguration("missing \(p)vocab_size and tokenizer.ggml.tokens")
        }
        self.init(
            architecture: architecture,
            embeddingLength: embedding,
            layerCount: try required("block_count"),
            feedForwardLength: try required("feed_forward_length"),
            headCount: heads,
            keyValueHeadCount: metadata.integer(p + "attention.head_count_kv") ?? heads,
            headDimension: metadata.integer(p + "attention.key_length"),
            ropeDimensionCount: metadata.integer(p + "rope.dimension_count"),
            ropeFrequencyBase: Float(metadata.float(p + "rope.freq_base") ?? 10_000),
            rmsNormEpsilon: Float(metadata.float(p + "attention.layer_norm_rms_epsilon") ?? 1e-5),
            trainedContextLength: metadata.integer(p + "context_length") ?? 2048,
            vocabularySize: vocabulary)
        try validate()
    }

    /// Checks that the values describe a model this forward pass can run.
    public func validate() throws(TransformerError) {
        func check(_ condition: Bool, _ message: @autoclosure () -> String) throws(TransformerError) {
            if !condition { throw .invalidConfiguration(message()) }
        }
        let limit = 1 << 20
        try check((1...limit).contains(embeddingLength), "embedding length \(embeddingLength) out of range")
        try check((1...4096).contains(layerCount), "block count \(layerCount) out of range")
        try check((1...limit).contains(feedForwardLength), "feed-forward length \(feedForwardLength) out of range")
        try check((1...4096).contains(headCount), "head count \(headCount) out of range")
        try check(keyValueHeadCount >= 1 && headCount % keyValueHeadCount == 0,
                  "head count \(headCount) is not a multiple of key/value head count \(keyValueHeadCount)")
        try check(headDimension >= 2 && headDimension % 2 == 0 && headDimension <= 4096,
                  "head dimension \(headDimension) must be even and positive")
        try check(ropeDimensionCount >= 0 && ropeDimensionCount <= headDimension && ropeDimensionCount % 2 == 0,
                  "RoPE dimension count \(ropeDimensionCount) must be even and at most the head dimension \(headDimension)")
        try check(ropeFrequencyBase.isFinite && ropeFrequencyBase > 0, "RoPE base \(ropeFrequencyBase) must be positive")
        try check(rmsNormEpsilon.isFinite && rmsNormEpsilon >= 0, "RMS epsilon \(rmsNormEpsilon) must be non-negative")
        try check(trainedContextLength >= 1, "context length \(trainedContextLength) must be positive")
        try check((1...(1 << 24)).contains(vocabularySize), "vocabulary size \(vocabularySize) out of range")
    }
}
