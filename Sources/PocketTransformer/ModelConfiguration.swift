import PocketGGUF

/// The hyper-parameters of a transformer of one of the ``Architecture`` families, read from GGUF
/// metadata (with the family's own keys, such as Gemma 3's `attention.sliding_window`).
///
/// Keys are prefixed with the architecture name (`llama.block_count`, `qwen2.block_count`).
/// Values that the file omits fall back to the usual defaults (RoPE base 10,000, RMS epsilon
/// 1e-5, head dimension `embedding / heads`); a value that is present but mistyped or
/// inconsistent is an error naming its key.
///
/// ```swift
/// let file = try GGUFFile(contentsOf: url)
/// let config = try ModelConfiguration(metadata: file.metadata)
/// print(config.layerCount, config.embeddingLength)
/// ```
public struct ModelConfiguration: Sendable, Equatable {
    /// The model family (`general.architecture`), which names the metadata keys and the tensors.
    public var architecture: Architecture
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
    /// Positions a local layer attends to, itself included (`<arch>.attention.sliding_window`),
    /// for a family with a ``ArchitectureDefinition/slidingWindow`` pattern; `nil` when every
    /// layer is global (the family has none, or the file gives no positive window).
    public var slidingWindow: Int?

    /// Width of all query heads together.
    public var queryLength: Int { headCount * headDimension }
    /// Width of all key (or value) heads together.
    public var keyValueLength: Int { keyValueHeadCount * headDimension }
    /// The multiplier of the attention scores `q·k`, as the family computes it
    /// (``ArchitectureDefinition/attentionScale``; `1/√headDim` for most).
    public var attentionScale: Float { architecture.definition.attentionScale(self) }

    /// Whether layer `layer` attends through the sliding window (``slidingWindow``), as the
    /// family's pattern says; always `false` without a window.
    public func isSlidingWindowLayer(_ layer: Int) -> Bool {
        guard slidingWindow != nil, let pattern = architecture.definition.slidingWindow else { return false }
        return pattern.isLocal(layer)
    }

    /// RoPE base frequency of layer `layer`: the family's local base on sliding-window layers,
    /// ``ropeFrequencyBase`` on the others.
    public func ropeFrequencyBase(layer: Int) -> Float {
        guard isSlidingWindowLayer(layer), let pattern = architecture.definition.slidingWindow else { return ropeFrequencyBase }
        return pattern.localRopeFrequencyBase
    }

    /// Creates a configuration from explicit values (used by tests and synthetic models).
    public init(
        architecture: Architecture = .llama, embeddingLength: Int, layerCount: Int, feedForwardLength: Int,
        headCount: Int, keyValueHeadCount: Int, headDimension: Int? = nil, ropeDimensionCount: Int? = nil,
        ropeFrequencyBase: Float = 10_000, rmsNormEpsilon: Float = 1e-5, trainedContextLength: Int = 2048,
        vocabularySize: Int, slidingWindow: Int? = nil
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
        self.slidingWindow = slidingWindow
    }

    /// Reads the configuration from a model's metadata.
    ///
    /// Every key read must have the expected type when present (a context length stored as a
    /// string, or an integer too large for `Int`, is an error, never the default), and the
    /// values must be consistent: positive sizes, heads dividing the embedding (when
    /// `attention.key_length` is absent), key/value heads dividing the heads, an even RoPE
    /// dimension count between 2 and the head dimension, `vocab_size` equal to the number of
    /// tokens. Whether `block_count` matches the tensors is checked by ``TransformerWeights``.
    ///
    /// - Throws: ``TransformerError/unsupportedArchitecture(_:)`` when `general.architecture`
    ///   names no case of ``Architecture``; ``TransformerError/invalidMetadata(key:found:expected:)``
    ///   naming the first key that is missing, mistyped or inconsistent (`general.architecture`
    ///   included).
    public init(metadata: GGUFMetadata) throws(TransformerError) {
        // A present key of another type throws; the error names it with what it holds.
        func read<T>(_ key: String, _ expected: String, _ accessor: (String) throws(GGUFError) -> T?) throws(TransformerError) -> T? {
            do { return try accessor(key) } catch {
                throw .invalidMetadata(key: key, found: metadata[key]?.summary ?? "absent", expected: expected)
            }
        }
        guard let name = try read("general.architecture", "a string", metadata.optionalString) else {
            throw .invalidMetadata(key: "general.architecture", found: "absent", expected: "a string")
        }
        guard let architecture = Architecture(rawValue: name) else { throw .unsupportedArchitecture(name) }
        let p = name + "."
        func integer(_ key: String) throws(TransformerError) -> Int? {
            try read(p + key, "an integer that fits Int", metadata.optionalInteger)
        }
        func required(_ key: String) throws(TransformerError) -> Int {
            guard let value = try integer(key) else {
                throw .invalidMetadata(key: p + key, found: "absent", expected: "an integer")
            }
            return value
        }
        let embedding = try required("embedding_length")
        let heads = try required("attention.head_count")
        let tokenCount = try read("tokenizer.ggml.tokens", "an array of strings", metadata.optionalStrings)?.count
        let vocabulary = try integer("vocab_size")
        if let vocabulary, let tokenCount, vocabulary != tokenCount {
            throw .invalidMetadata(key: p + "vocab_size", found: "\(vocabulary)",
                                   expected: "the number of entries in tokenizer.ggml.tokens, \(tokenCount)")
        }
        guard let vocabularySize = vocabulary ?? tokenCount else {
            throw .invalidMetadata(key: p + "vocab_size", found: "absent", expected: "an integer (tokenizer.ggml.tokens is absent too)")
        }
        let keyLength = try integer("attention.key_length")
        if keyLength == nil, heads > 0, embedding % heads != 0 {
            throw .invalidMetadata(key: p + "attention.head_count", found: "\(heads)",
                                   expected: "a divisor of \(p)embedding_length \(embedding) (no \(p)attention.key_length given)")
        }
        if let valueLength = try integer("attention.value_length"), let keyLength, valueLength != keyLength {
            throw .invalidMetadata(key: p + "attention.value_length", found: "\(valueLength)",
                                   expected: "\(p)attention.key_length, \(keyLength)")
        }
        let ropeBase = try read(p + "rope.freq_base", "a number", metadata.optionalFloat)
        let epsilon = try read(p + "attention.layer_norm_rms_epsilon", "a number", metadata.optionalFloat)
        // Read only for a family with local layers; 0 means none, as in llama.cpp.
        let window = architecture.definition.slidingWindow == nil ? nil : try integer("attention.sliding_window")
        self.init(
            architecture: architecture,
            embeddingLength: embedding,
            layerCount: try required("block_count"),
            feedForwardLength: try required("feed_forward_length"),
            headCount: heads,
            keyValueHeadCount: try integer("attention.head_count_kv") ?? heads,
            headDimension: keyLength,
            ropeDimensionCount: try integer("rope.dimension_count"),
            ropeFrequencyBase: Float(ropeBase ?? 10_000),
            rmsNormEpsilon: Float(epsilon ?? 1e-5),
            trainedContextLength: try integer("context_length") ?? 2048,
            vocabularySize: vocabularySize,
            slidingWindow: window == 0 ? nil : window)
        try validate()
    }

    /// Checks that the values describe a model this forward pass can run.
    ///
    /// - Throws: ``TransformerError/invalidMetadata(key:found:expected:)`` naming the key (with
    ///   the architecture prefix) of the first value out of range or inconsistent.
    public func validate() throws(TransformerError) {
        let p = architecture.rawValue + "."
        func check(_ condition: Bool, _ key: String, _ value: some Numeric, _ expected: @autoclosure () -> String) throws(TransformerError) {
            if !condition { throw .invalidMetadata(key: p + key, found: "\(value)", expected: expected()) }
        }
        let limit = 1 << 20
        try check((1...limit).contains(embeddingLength), "embedding_length", embeddingLength, "1...\(limit)")
        try check((1...4096).contains(layerCount), "block_count", layerCount, "1...4096")
        try check((1...limit).contains(feedForwardLength), "feed_forward_length", feedForwardLength, "1...\(limit)")
        try check((1...4096).contains(headCount), "attention.head_count", headCount, "1...4096")
        try check(keyValueHeadCount >= 1 && headCount % keyValueHeadCount == 0, "attention.head_count_kv", keyValueHeadCount,
                  "a positive divisor of \(p)attention.head_count \(headCount)")
        try check(headDimension >= 2 && headDimension % 2 == 0 && headDimension <= 4096, "attention.key_length", headDimension,
                  "an even head dimension in 2...4096")
        try check(ropeDimensionCount >= 2 && ropeDimensionCount <= headDimension && ropeDimensionCount % 2 == 0,
                  "rope.dimension_count", ropeDimensionCount, "an even count in 2...\(headDimension) (the head dimension)")
        try check(ropeFrequencyBase.isFinite && ropeFrequencyBase > 0, "rope.freq_base", ropeFrequencyBase, "a positive number")
        try check(rmsNormEpsilon.isFinite && rmsNormEpsilon >= 0, "attention.layer_norm_rms_epsilon", rmsNormEpsilon,
                  "a non-negative number")
        try check(trainedContextLength >= 1, "context_length", trainedContextLength, "a positive integer")
        try check((1...(1 << 24)).contains(vocabularySize), "vocab_size", vocabularySize, "1...\(1 << 24)")
        if let slidingWindow {
            try check(slidingWindow >= 1, "attention.sliding_window", slidingWindow, "a non-negative integer")
        }
        let scale = attentionScale
        try check(scale.isFinite && scale > 0, "attention.key_length", headDimension, "a shape giving a positive attention scale")
    }
}
