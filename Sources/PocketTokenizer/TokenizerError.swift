/// Why a tokenizer could not be built from a model's metadata.
public enum TokenizerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// A required `tokenizer.ggml.*` key is absent or has the wrong type.
    case missingMetadata(String)
    /// `tokenizer.ggml.model` names a tokenizer family Pocket does not implement.
    case unsupportedModel(String)
    /// `tokenizer.ggml.pre` names a pre-tokenizer Pocket does not implement.
    case unsupportedPreTokenizer(String)
    /// The vocabulary is inconsistent (wrong lengths, missing byte tokens, bad merge lines…).
    case invalidVocabulary(String)
    /// A `tokenizer.ggml.*` key has the wrong type or an impossible value (a token id outside
    /// the vocabulary): the key, what the file has and what was expected.
    case invalidMetadata(key: String, found: String, expected: String)

    /// A readable explanation naming the key or value at fault.
    public var description: String {
        switch self {
        case .missingMetadata(let key): "tokenizer: missing or invalid metadata key '\(key)'"
        case .unsupportedModel(let name):
            "tokenizer: unsupported tokenizer model '\(name)' (Pocket implements byte-level BPE, 'gpt2', and SentencePiece, 'llama')"
        case .unsupportedPreTokenizer(let name):
            "tokenizer: unsupported pre-tokenizer '\(name)' (supported: gpt-2, smollm, llama-bpe, qwen2 and aliases)"
        case .invalidVocabulary(let detail): "tokenizer: invalid vocabulary: \(detail)"
        case .invalidMetadata(let key, let found, let expected): "tokenizer: '\(key)' is \(found), expected \(expected)"
        }
    }
}
