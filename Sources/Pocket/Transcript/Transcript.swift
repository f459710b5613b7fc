import Foundation

/// The history of a session: instructions, prompts, tool calls and outputs, and responses.
///
/// A transcript is a collection of ``Entry`` values and is `Codable`, so a conversation can be
/// saved and later continued with ``LanguageModelSession/init(model:tools:transcript:)``.
public struct Transcript: Sendable, Equatable, Codable, RandomAccessCollection {
    /// The entries, in order.
    var entries: [Entry]

    /// Creates a transcript from entries.
    public init(entries: some Sequence<Entry> = []) {
        self.entries = Array(entries)
    }

    /// The first index.
    public var startIndex: Int { entries.startIndex }
    /// The index past the last entry.
    public var endIndex: Int { entries.endIndex }
    /// The entry at `position`.
    public subscript(position: Int) -> Entry { entries[position] }

    /// One entry of a transcript.
    public enum Entry: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
        /// Instructions, usually first.
        case instructions(Instructions)
        /// A prompt from the user.
        case prompt(Prompt)
        /// Tool calls the model made.
        case toolCalls(ToolCalls)
        /// The output of one tool call.
        case toolOutput(ToolOutput)
        /// A response of the model.
        case response(Response)
        /// Reasoning the model wrote before responding (providers that reason separately;
        /// Pocket's own model never adds one).
        case reasoning(Reasoning)

        /// The entry's identifier.
        public var id: String {
            switch self {
            case .instructions(let e): e.id
            case .prompt(let e): e.id
            case .toolCalls(let e): e.id
            case .toolOutput(let e): e.id
            case .response(let e): e.id
            case .reasoning(let e): e.id
            }
        }

        /// The entry's segments (a tool-calls entry has none).
        var segments: [Segment] {
            switch self {
            case .instructions(let e): e.segments
            case .prompt(let e): e.segments
            case .toolCalls: []
            case .toolOutput(let e): e.segments
            case .response(let e): e.segments
            case .reasoning(let e): e.segments
            }
        }

        /// The entry as text (for logs).
        public var description: String {
            switch self {
            case .instructions(let e): "Instructions: " + e.segments.text
            case .prompt(let e): "Prompt: " + e.segments.text
            case .toolCalls(let e): "Tool calls: " + e.calls.map { "\($0.toolName)(\($0.arguments.jsonString))" }.joined(separator: ", ")
            case .toolOutput(let e): "Tool output (\(e.toolName)): " + e.segments.text
            case .response(let e): "Response: " + e.segments.text
            case .reasoning(let e): "Reasoning: " + e.segments.text
            }
        }
    }

    /// A piece of an entry's content.
    public enum Segment: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
        /// Text.
        case text(TextSegment)
        /// Structured content.
        case structure(StructuredSegment)
        /// Attached content, such as an image.
        case attachment(AttachmentSegment)

        /// The segment's identifier.
        public var id: String {
            switch self {
            case .text(let s): s.id
            case .structure(let s): s.id
            case .attachment(let s): s.id
            }
        }

        /// The segment as text: the text itself, structured content as compact JSON, an
        /// attachment as its placeholder (`[image: label]`).
        public var description: String { text }

        /// The text the model sees for this segment. Pocket's models read text only, so an
        /// attachment is shown as its placeholder, `[image: label]`.
        var text: String {
            switch self {
            case .text(let s): s.content
            case .structure(let s): s.content.jsonString
            case .attachment(let s): s.description
            }
        }
    }

    /// A text segment.
    public struct TextSegment: Sendable, Equatable, Codable, Identifiable {
        /// The identifier.
        public var id: String
        /// The text.
        public var content: String

        /// Creates a text segment.
        public init(id: String = UUID().uuidString, content: String) {
            self.id = id
            self.content = content
        }
    }

    /// A segment of structured content.
    public struct StructuredSegment: Sendable, Equatable, Codable, Identifiable, CustomStringConvertible {
        /// The identifier.
        public var id: String
        /// The name of the type or schema the content follows (such as the generated type's name).
        public var schemaName: String
        /// The content.
        public var content: GeneratedContent

        /// Creates a structured segment.
        ///
        /// - Parameters:
        ///   - id: The identifier.
        ///   - schemaName: The name of the type or schema the content follows.
        ///   - content: The content.
        public init(id: String = UUID().uuidString, schemaName: String, content: GeneratedContent) {
            self.id = id
            self.schemaName = schemaName
            self.content = content
        }

        /// Creates a structured segment (the 26 SDK's spelling of ``init(id:schemaName:content:)``).
        @available(*, deprecated, renamed: "init(id:schemaName:content:)")
        public init(id: String = UUID().uuidString, source: String, content: GeneratedContent) {
            self.init(id: id, schemaName: source, content: content)
        }

        /// The 26 SDK's name of ``schemaName``.
        @available(*, deprecated, renamed: "schemaName")
        public var source: String {
            get { schemaName }
            set { schemaName = newValue }
        }

        /// The content as compact JSON.
        public var description: String { content.jsonString }

        // Saved under the key `source`, as before 27, so older and newer transcripts read alike.
        enum CodingKeys: String, CodingKey { case id, source, content }
        private static let coding = TranscriptContentCoding<CodingKeys>(idKey: .id, nameKey: .source, contentKey: .content)

        /// Decodes a segment; the content is stored as JSON text.
        public init(from decoder: any Decoder) throws {
            (id, schemaName, content) = try Self.coding.decode(from: decoder)
        }

        /// Encodes a segment; the content is stored as JSON text.
        public func encode(to encoder: any Encoder) throws {
            try Self.coding.encode(id: id, name: schemaName, content: content, to: encoder)
        }
    }

    /// Instructions entry: the developer's instructions and the tools available.
    public struct Instructions: Sendable, Equatable, Codable, Identifiable {
        /// The identifier.
        public var id: String
        /// The content.
        public var segments: [Segment]
        /// The tools the model may call.
        public var toolDefinitions: [ToolDefinition]

        /// Creates an instructions entry.
        public init(id: String = UUID().uuidString, segments: [Segment], toolDefinitions: [ToolDefinition]) {
            self.id = id
            self.segments = segments
            self.toolDefinitions = toolDefinitions
        }
    }

    /// The description of a tool, as the model sees it.
    public struct ToolDefinition: Sendable, Equatable, Codable {
        /// The tool's name.
        public var name: String
        /// What the tool does.
        public var description: String
        /// The schema of the tool's arguments.
        public let parameters: GenerationSchema
        /// The JSON Schema text of the tool's arguments (what the model is shown, what a saved
        /// transcript holds, and what definitions are compared by); `{}` when the schema cannot
        /// be resolved (see ``parametersError``).
        let parametersJSON: String
        /// Why the arguments' schema cannot be resolved (such as a duplicate property), or `nil`.
        let parametersError: String?
        /// `false` when the tool asked not to have its schema in the instructions (the call is
        /// still constrained by it).
        var includesSchemaInInstructions: Bool?

        /// Creates a definition.
        ///
        /// As in Apple's API this does not throw. A schema that cannot be resolved (a duplicate
        /// property, an undefined reference, a regex without source text) is kept as given; its
        /// text is then `{}`. A session leaves such a tool out of its instructions (as before
        /// Pocket 27). An executor given one anyway shows the model `{}` as its arguments;
        /// Pocket's model fails the request with the schema's error if the model starts a call
        /// (the call grammar is built when a call begins).
        ///
        /// - Parameters:
        ///   - name: The tool's name.
        ///   - description: What the tool does.
        ///   - parameters: The schema of the tool's arguments.
        public init(name: String, description: String, parameters: GenerationSchema) {
            self.name = name
            self.description = description
            self.parameters = parameters
            do {
                self.parametersJSON = try parameters.jsonSchemaString()
                self.parametersError = nil
            } catch {
                self.parametersJSON = "{}"
                self.parametersError = "\(error)"
            }
        }

        private enum CodingKeys: String, CodingKey {
            case name, description, parametersJSON, includesSchemaInInstructions
        }

        /// Decodes a definition; its schema is read back from the JSON Schema text.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            description = try container.decode(String.self, forKey: .description)
            parametersJSON = try container.decode(String.self, forKey: .parametersJSON)
            includesSchemaInInstructions = try container.decodeIfPresent(Bool.self, forKey: .includesSchemaInInstructions)
            parametersError = nil
            do {
                parameters = try JSONDecoder().decode(GenerationSchema.self, from: Data(parametersJSON.utf8))
            } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: .parametersJSON, in: container,
                    debugDescription: "the arguments' schema of tool '\(name)' cannot be read: \(error)")
            }
        }

        /// Encodes a definition, its schema as JSON Schema text.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(description, forKey: .description)
            try container.encode(parametersJSON, forKey: .parametersJSON)
            try container.encodeIfPresent(includesSchemaInInstructions, forKey: .includesSchemaInInstructions)
        }

        /// Definitions are equal when their names, descriptions, schemas' text and
        /// instructions setting are.
        public static func == (a: Self, b: Self) -> Bool {
            a.name == b.name && a.description == b.description && a.parametersJSON == b.parametersJSON
                && a.includesSchemaInInstructions == b.includesSchemaInInstructions
        }

        /// Describes a tool (see ``init(name:description:parameters:)`` for a schema that cannot
        /// be resolved).
        ///
        /// - Parameter tool: The tool.
        public init(tool: some Tool) {
            self.init(name: tool.name, description: tool.description, parameters: tool.parameters)
            includesSchemaInInstructions = tool.includesSchemaInInstructions
        }
    }

    /// A prompt entry.
    public struct Prompt: Sendable, Equatable, Codable, Identifiable {
        /// The identifier.
        public var id: String
        /// The content.
        public var segments: [Segment]
        /// The options the prompt was answered with.
        public var options: GenerationOptions
        /// The schema the response had to follow, if any.
        public var responseFormat: ResponseFormat?

        /// Creates a prompt entry.
        public init(
            id: String = UUID().uuidString, segments: [Segment], options: GenerationOptions = GenerationOptions(),
            responseFormat: ResponseFormat? = nil
        ) {
            self.id = id
            self.segments = segments
            self.options = options
            self.responseFormat = responseFormat
        }
    }

    /// The format a response had to follow.
    public struct ResponseFormat: Sendable, Equatable, Codable {
        /// The name of the generated type or schema.
        public var name: String
        /// The JSON Schema text.
        let schemaJSON: String
        /// Whether the schema was shown to the model in the prompt (so re-rendering the
        /// conversation reproduces the tokens in the session's cache).
        var includedInPrompt: Bool?

        /// Describes the format of a generable type.
        public init(type: (some Generable).Type) {
            name = String(describing: type)
            schemaJSON = (try? type.generationSchema.jsonSchemaString()) ?? "{}"
        }

        /// Describes the format of a schema.
        public init(schema: GenerationSchema) {
            name = "schema"
            schemaJSON = (try? schema.jsonSchemaString()) ?? "{}"
        }

        /// How the format constrains the model's output.
        public var kind: Kind {
            let schema = try? JSONDecoder().decode(GenerationSchema.self, from: Data(schemaJSON.utf8))
            return .schema(schema ?? GenerationSchema(type: GeneratedContent.self, properties: []))
        }

        /// How a response format constrains the model's output.
        public enum Kind: Sendable {
            /// The output is JSON that follows a schema (Pocket enforces it with a grammar). A
            /// format whose schema could not be written reads back as an empty object schema.
            case schema(GenerationSchema)
        }
    }

    /// The tool calls of one model turn.
    public struct ToolCalls: Sendable, Equatable, Codable, Identifiable, RandomAccessCollection {
        /// The identifier.
        public var id: String
        /// The calls.
        public var calls: [ToolCall]

        /// Creates a tool-calls entry.
        public init(id: String = UUID().uuidString, _ calls: some Sequence<ToolCall>) {
            self.id = id
            self.calls = Array(calls)
        }

        /// The first index.
        public var startIndex: Int { calls.startIndex }
        /// The index past the last call.
        public var endIndex: Int { calls.endIndex }
        /// The call at `position`.
        public subscript(position: Int) -> ToolCall { calls[position] }
    }

    /// One call of a tool.
    public struct ToolCall: Sendable, Equatable, Codable, Identifiable {
        /// The identifier.
        public var id: String
        /// The called tool's name.
        public var toolName: String
        /// The arguments.
        public var arguments: GeneratedContent

        /// Creates a call.
        public init(id: String = UUID().uuidString, toolName: String, arguments: GeneratedContent) {
            self.id = id
            self.toolName = toolName
            self.arguments = arguments
        }

        enum CodingKeys: String, CodingKey { case id, toolName, arguments }
        private static let coding = TranscriptContentCoding<CodingKeys>(idKey: .id, nameKey: .toolName, contentKey: .arguments)

        /// Decodes a call; the arguments are stored as JSON text.
        public init(from decoder: any Decoder) throws {
            (id, toolName, arguments) = try Self.coding.decode(from: decoder)
        }

        /// Encodes a call; the arguments are stored as JSON text.
        public func encode(to encoder: any Encoder) throws {
            try Self.coding.encode(id: id, name: toolName, content: arguments, to: encoder)
        }
    }

    /// The output of a tool call.
    public struct ToolOutput: Sendable, Equatable, Codable, Identifiable {
        /// The identifier (that of the call).
        public var id: String
        /// The tool's name.
        public var toolName: String
        /// The output.
        public var segments: [Segment]

        /// Creates a tool output entry.
        public init(id: String, toolName: String, segments: [Segment]) {
            self.id = id
            self.toolName = toolName
            self.segments = segments
        }
    }

    /// A response entry.
    public struct Response: Sendable, Equatable, Codable, Identifiable {
        /// The identifier.
        public var id: String
        /// Identifiers of the model assets that produced the response.
        public var assetIDs: [String]
        /// The content.
        public var segments: [Segment]
        /// Metadata associated with generating the response: on Pocket's engine its timings
        /// (time to first token, tokens per second), on a provider's executor what its
        /// `updateMetadata` events carried.
        public var metadata: [String: GeneratedContent]

        /// Creates a response entry.
        public init(id: String = UUID().uuidString, assetIDs: [String] = [], segments: [Segment]) {
            self.id = id
            self.assetIDs = assetIDs
            self.segments = segments
            self.metadata = [:]
        }

        /// Creates a response entry with the metadata of its generation.
        public init(id: String = UUID().uuidString, metadata: [String: any ConvertibleToGeneratedContent], segments: [Segment]) {
            self.id = id
            self.assetIDs = []
            self.segments = segments
            self.metadata = metadata.mapValues(\.generatedContent)
        }

        private enum CodingKeys: String, CodingKey { case id, assetIDs, segments, metadata }

        /// Decodes a response; transcripts saved before 27 have no metadata. Each value is
        /// stored as JSON text.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            id = try c.decode(String.self, forKey: .id)
            assetIDs = try c.decode([String].self, forKey: .assetIDs)
            segments = try c.decode([Segment].self, forKey: .segments)
            let json = try c.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
            metadata = try json.mapValues { try GeneratedContent(json: $0) }
        }

        /// Encodes a response; metadata only when there is some, so older readers see the
        /// shape they know.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(id, forKey: .id)
            try c.encode(assetIDs, forKey: .assetIDs)
            try c.encode(segments, forKey: .segments)
            if !metadata.isEmpty { try c.encode(metadata.mapValues(\.jsonString), forKey: .metadata) }
        }
    }
}

extension [Transcript.Segment] {
    /// The segments' text, joined with newlines.
    var text: String { map(\.text).joined(separator: "\n") }
}
