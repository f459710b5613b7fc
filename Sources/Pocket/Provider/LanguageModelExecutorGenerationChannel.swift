import Foundation
import Synchronization

/// Where an executor sends a response as it is generated, as in Apple's FoundationModels
/// (iOS/macOS 27): text deltas, reasoning, tool calls, usage and metadata.
///
/// ```swift
/// await channel.send(.response(action: .updateUsage(
///     input: .init(totalTokenCount: 12, cachedTokenCount: 0),
///     output: .init(totalTokenCount: 0, reasoningTokenCount: 0))))
/// await channel.send(.response(action: .appendText("Hello", tokenCount: 1)))
/// ```
///
/// The channel has no `finish`: a response ends when the executor's
/// ``LanguageModelExecutor/respond(to:model:streamingInto:)`` returns or throws. A session
/// consumes the events of its own channels; a channel made with ``init()`` (for calling an
/// executor directly, as a test does) buffers them for iteration.
public struct LanguageModelExecutorGenerationChannel: AsyncSequence, Sendable {
    /// The events of a channel.
    public typealias Element = Event
    /// A channel's event iterator.
    public typealias AsyncIterator = AsyncStream<Event>.Iterator

    private let stream: AsyncStream<Event>?
    private let deliver: @Sendable (Event) -> Void

    /// Creates a channel whose events are read by iterating it.
    public init() {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        self.stream = stream
        deliver = { continuation.yield($0) }
    }

    /// Creates a channel whose events go to `handler`, synchronously, in the sender's context.
    init(handler: @escaping @Sendable (Event) -> Void) {
        stream = nil
        deliver = handler
    }

    /// Sends an event.
    public func send(_ event: Event) async {
        deliver(event)
    }

    /// Sends an event without suspending (Pocket's engine sends from synchronous code).
    func emit(_ event: Event) {
        deliver(event)
    }

    /// Iterates the events sent so far and those to come (channels made with ``init()``;
    /// a session's own channels yield nothing here).
    public func makeAsyncIterator() -> AsyncIterator {
        (stream ?? AsyncStream { $0.finish() }).makeAsyncIterator()
    }
}

extension LanguageModelExecutorGenerationChannel {
    /// A generation event.
    public enum Event: Sendable {
        /// An event of the response: text, a segment replacement, metadata or usage.
        ///
        /// - Parameters:
        ///   - entryID: The response entry the event targets, or `nil` for the current one.
        ///   - action: What to do.
        case response(entryID: String? = nil, action: Response.Action)
        /// A tool-call event: a call (or part of its arguments), a retraction, metadata or usage.
        ///
        /// - Parameters:
        ///   - entryID: The tool-calls entry the event targets, or `nil` for the current one.
        ///   - action: What to do.
        case toolCalls(entryID: String? = nil, action: ToolCalls.Action)
        /// A reasoning event: text the model thinks before it answers, a segment replacement,
        /// the reasoning's signature, metadata or usage. A session keeps reasoning apart from
        /// the response: it never becomes part of the response's content.
        ///
        /// ```swift
        /// await channel.send(.reasoning(action: .appendText("The user wants…", tokenCount: 4)))
        /// await channel.send(.reasoning(action: .updateSignature(signature, tokenCount: 1)))
        /// ```
        ///
        /// - Parameters:
        ///   - entryID: The reasoning entry the event targets, or `nil` to continue the current one.
        ///   - action: What to do.
        case reasoning(entryID: String? = nil, action: Reasoning.Action)
    }

    /// Snapshot of an entry's metadata dictionary.
    public struct Metadata: Sendable {
        /// The values, keyed by name.
        public var values: [String: any Sendable & Codable & Equatable]

        /// Creates metadata.
        public init(values: [String: any Sendable & Codable & Equatable]) {
            self.values = values
        }
    }

    /// Snapshot of an entry's token totals.
    public struct Usage: Sendable, Equatable {
        /// Tokens of the input.
        public struct Input: Sendable, Hashable {
            /// All tokens of the input (the transcript as the model sees it).
            public var totalTokenCount: Int
            /// The part of ``totalTokenCount`` reused from a cache instead of evaluated.
            public var cachedTokenCount: Int

            /// Creates input counts.
            public init(totalTokenCount: Int, cachedTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.cachedTokenCount = cachedTokenCount
            }
        }

        /// Tokens of the output.
        public struct Output: Sendable, Hashable {
            /// All tokens generated.
            public var totalTokenCount: Int
            /// The part of ``totalTokenCount`` spent reasoning.
            public var reasoningTokenCount: Int

            /// Creates output counts.
            public init(totalTokenCount: Int, reasoningTokenCount: Int) {
                self.totalTokenCount = totalTokenCount
                self.reasoningTokenCount = reasoningTokenCount
            }
        }

        /// Input counts.
        public var input: Input
        /// Output counts.
        public var output: Output
        /// Further usage figures the executor reports, keyed by name; the session passes them on
        /// in ``LanguageModelSession/Usage/metadata``.
        public var metadata: [String: GeneratedContent]

        /// Creates usage counts.
        ///
        /// - Parameters:
        ///   - input: Counts of the transcript's tokens.
        ///   - output: Counts of the generated tokens.
        ///   - metadata: Further usage figures, keyed by name.
        public init(input: Input, output: Output, metadata: [String: any ConvertibleToGeneratedContent] = [:]) {
            self.input = input
            self.output = output
            self.metadata = metadata.mapValues(\.generatedContent)
        }
    }

    /// The signature of a reasoning entry: an opaque token from the model's provider that
    /// vouches for the reasoning text (sent back with the transcript on later requests).
    public struct ReasoningSignature: Sendable, Equatable {
        /// The opaque token; each update replaces the previous one.
        public var signature: Data
        /// How many tokens the signature counts for in usage.
        public var tokenCount: Int

        /// Creates a signature.
        public init(signature: Data, tokenCount: Int) {
            self.signature = signature
            self.tokenCount = tokenCount
        }
    }

    /// Text appended to the current text segment of an entry.
    public struct TextFragment: Sendable, Equatable {
        /// The new text.
        public var content: String
        /// The segment it belongs to, or `nil` for the current one.
        public var segmentID: String?
        /// How many tokens the text is (0 when not counted).
        public var tokenCount: Int
    }

    /// A replacement of the current text segment of an entry.
    public struct TextSegmentReplacement: Sendable, Equatable {
        /// The segment's whole new text.
        public var content: String
        /// The segment replaced, or `nil` for the current one.
        public var segmentID: String?
        /// How many tokens the text is (0 when not counted).
        public var tokenCount: Int
    }

    /// A response event's payload.
    public enum Response {
        /// What a response event does.
        public enum Action: TextEntryAction {
            /// Appends text to the current text segment.
            case appendText(TextFragment)
            /// Replaces the current text segment.
            case replaceTextSegment(TextSegmentReplacement)
            /// Merges values into the response's metadata.
            case updateMetadata(Metadata)
            /// Sets the response's token totals.
            case updateUsage(Usage)
        }
    }

    /// A reasoning event's payload.
    public enum Reasoning {
        /// What a reasoning event does.
        public enum Action: TextEntryAction {
            /// Appends text to the current reasoning segment.
            case appendText(TextFragment)
            /// Replaces the current reasoning segment.
            case replaceTextSegment(TextSegmentReplacement)
            /// Replaces the reasoning entry's signature.
            case updateSignature(ReasoningSignature)
            /// Merges values into the reasoning entry's metadata.
            case updateMetadata(Metadata)
            /// Sets the reasoning entry's token totals.
            case updateUsage(Usage)

            /// Replaces the reasoning entry's signature.
            ///
            /// - Parameters:
            ///   - signature: The opaque token that vouches for the reasoning.
            ///   - tokenCount: How many tokens the signature counts for.
            public static func updateSignature(_ signature: Data, tokenCount: Int) -> Action {
                .updateSignature(ReasoningSignature(signature: signature, tokenCount: tokenCount))
            }
        }
    }

    /// The actions a response and a reasoning entry have in common (text, metadata, usage): their
    /// builders are written once, here.
    public protocol TextEntryAction: Sendable {
        /// Appends a fragment to the current text segment.
        static func appendText(_ fragment: TextFragment) -> Self
        /// Replaces the current text segment.
        static func replaceTextSegment(_ replacement: TextSegmentReplacement) -> Self
        /// Merges values into the entry's metadata.
        static func updateMetadata(_ metadata: Metadata) -> Self
        /// Sets the entry's token totals.
        static func updateUsage(_ usage: Usage) -> Self
    }

    /// A tool-call event's payload.
    public enum ToolCalls {
        /// What a tool-calls event does.
        public enum Action: Sendable {
            /// Adds a call, or arguments text to a call already started with the same id.
            case toolCall(ToolCall)
            /// Retracts the call with `id`.
            case removeToolCall(id: String)
            /// Merges values into the tool-calls entry's metadata.
            case updateMetadata(Metadata)
            /// Sets the tool-calls entry's token totals.
            case updateUsage(Usage)

            /// A call, or more of its arguments.
            ///
            /// - Parameters:
            ///   - id: The call's id (calls with the same id are one call).
            ///   - name: The tool's name.
            ///   - action: The call's arguments text (JSON, possibly in pieces).
            public static func toolCall(id: String, name: String, action: ToolCall.Action) -> Action {
                .toolCall(ToolCall(id: id, name: name, action: action))
            }

            /// Sets the tool-calls entry's token totals.
            ///
            /// - Parameters:
            ///   - input: Counts of the transcript's tokens.
            ///   - output: Counts of the generated tokens.
            ///   - metadata: Further usage figures, keyed by name.
            public static func updateUsage(
                input: Usage.Input, output: Usage.Output, metadata: [String: any ConvertibleToGeneratedContent] = [:]
            ) -> Action {
                .updateUsage(Usage(input: input, output: output, metadata: metadata))
            }
        }

        /// One tool call event.
        public struct ToolCall: Sendable {
            /// The call's id.
            public var id: String
            /// The tool's name.
            public var name: String
            /// What the event does to the call.
            public var action: Action

            /// Creates a call event.
            public init(id: String, name: String, action: Action) {
                self.id = id
                self.name = name
                self.action = action
            }

            /// What a call event does.
            public enum Action: Sendable {
                /// Appends text to the call's arguments (a JSON object, possibly in pieces).
                case appendArguments(ArgumentsFragment)

                /// Appends `content` to the call's arguments.
                public static func appendArguments(_ content: String, tokenCount: Int = 0) -> Action {
                    .appendArguments(ArgumentsFragment(content: content, tokenCount: tokenCount))
                }
            }

            /// A piece of a call's arguments.
            public struct ArgumentsFragment: Sendable, Equatable {
                /// The arguments text.
                public var content: String
                /// How many tokens it is (0 when not counted).
                public var tokenCount: Int
            }
        }
    }
}

extension LanguageModelExecutorGenerationChannel.TextEntryAction {
    /// Appends `content` to the current text segment.
    ///
    /// - Parameters:
    ///   - content: The new text.
    ///   - segmentID: The segment, or `nil` for the current one.
    ///   - tokenCount: How many tokens the text is (0 when not counted).
    public static func appendText(_ content: String, segmentID: String? = nil, tokenCount: Int = 0) -> Self {
        .appendText(.init(content: content, segmentID: segmentID, tokenCount: tokenCount))
    }

    /// Replaces the current text segment with `content`.
    public static func replaceTextSegment(_ content: String, segmentID: String? = nil, tokenCount: Int = 0) -> Self {
        .replaceTextSegment(.init(content: content, segmentID: segmentID, tokenCount: tokenCount))
    }

    /// Merges `values` into the entry's metadata.
    public static func updateMetadata(_ values: [String: any Sendable & Codable & Equatable]) -> Self {
        .updateMetadata(.init(values: values))
    }

    /// Sets the entry's token totals.
    ///
    /// - Parameters:
    ///   - input: Counts of the transcript's tokens.
    ///   - output: Counts of the generated tokens (for reasoning,
    ///     ``LanguageModelExecutorGenerationChannel/Usage/Output/reasoningTokenCount`` is its part).
    ///   - metadata: Further usage figures, keyed by name.
    public static func updateUsage(
        input: LanguageModelExecutorGenerationChannel.Usage.Input, output: LanguageModelExecutorGenerationChannel.Usage.Output,
        metadata: [String: any ConvertibleToGeneratedContent] = [:]
    ) -> Self {
        .updateUsage(.init(input: input, output: output, metadata: metadata))
    }
}
