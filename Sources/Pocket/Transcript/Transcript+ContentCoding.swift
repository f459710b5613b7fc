// The encoded form of the transcript values that hold generated content (structured segments,
// tool calls): an identifier, a name, and the content as JSON text, which keeps the order of
// its keys through any encoder.

/// Encodes and decodes an identifier, a name and generated content (as JSON text) under the
/// keys `Key` names for them.
struct TranscriptContentCoding<Key: CodingKey> {
    /// The key of the identifier.
    let idKey: Key
    /// The key of the name (a segment's source, a call's tool name).
    let nameKey: Key
    /// The key of the content's JSON text.
    let contentKey: Key

    /// Reads the three values.
    ///
    /// - Throws: `DecodingError` when a key is missing or not a string;
    ///   ``GeneratedContent/JSONError`` when the content is not JSON.
    func decode(from decoder: any Decoder) throws -> (id: String, name: String, content: GeneratedContent) {
        let c = try decoder.container(keyedBy: Key.self)
        let id = try c.decode(String.self, forKey: idKey)
        let name = try c.decode(String.self, forKey: nameKey)
        let content = try GeneratedContent(json: c.decode(String.self, forKey: contentKey))
        return (id, name, content)
    }

    /// Writes the three values, in the order identifier, name, content.
    func encode(id: String, name: String, content: GeneratedContent, to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        try c.encode(id, forKey: idKey)
        try c.encode(name, forKey: nameKey)
        try c.encode(content.jsonString, forKey: contentKey)
    }
}
