import Foundation

extension Transcript {
    /// The reasoning a model wrote before its answer, as in Apple's FoundationModels (27).
    ///
    /// A session adds one for each round in which the model reasoned before its calls or
    /// response: a provider's reasoning events, or the thinking section of a `SystemLanguageModel`
    /// whose chat template has one (Qwen3's `<think>…</think>`) when the request has a reasoning
    /// level. Transcripts with reasoning can be built, stored and read back. When Pocket renders
    /// a conversation for its model, reasoning entries are left out.
    ///
    /// ```swift
    /// let reasoning = Transcript.Reasoning(segments: [.text(.init(content: "The user wants…"))])
    /// let transcript = Transcript(entries: [.reasoning(reasoning)])
    /// ```
    public struct Reasoning: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// Values the model produced along with this reasoning, keyed by name.
        public var metadata: [String: GeneratedContent]
        /// The reasoning, in order.
        public var segments: [Segment]
        /// An opaque signature a provider may attach to verify the reasoning later, if any.
        public var signature: Data?

        /// Creates a reasoning entry.
        ///
        /// - Parameters:
        ///   - id: The identifier.
        ///   - metadata: Values produced with the reasoning, keyed by name.
        ///   - segments: The reasoning.
        ///   - signature: An opaque signature, if the provider gives one.
        public init(
            id: String = UUID().uuidString, metadata: [String: any ConvertibleToGeneratedContent] = [:],
            segments: [Segment], signature: Data? = nil
        ) {
            self.id = id
            self.metadata = metadata.mapValues(\.generatedContent)
            self.segments = segments
            self.signature = signature
        }

        /// The reasoning as text.
        public var description: String { segments.text }

        private enum CodingKeys: String, CodingKey { case id, metadata, segments, signature }

        /// Decodes a reasoning entry; metadata values are stored as JSON text.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            let texts = try c.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
            metadata = try texts.mapValues { try GeneratedContent(json: $0) }
            segments = try c.decode([Segment].self, forKey: .segments)
            signature = try c.decodeIfPresent(Data.self, forKey: .signature)
        }

        /// Encodes a reasoning entry; metadata values are stored as JSON text.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(metadata.mapValues(\.jsonString), forKey: .metadata)
            try c.encode(segments, forKey: .segments)
            try c.encodeIfPresent(signature, forKey: .signature)
        }
    }
}
