import Foundation
import FoundationModels

// An app written for Apple's FoundationModels 27 the way the WWDC26 sessions ("What's new in the
// Foundation Models framework", "Build agentic app experiences with the Foundation Models
// framework", "Bring an LLM provider to the Foundation Models framework") and Apple's
// documentation write it. It imports `FoundationModels` only, as an app would: this file
// compiling against Pocket's `FoundationModels` product is the point. `WWDC26ProgramTests`
// runs it.

// MARK: A provider (session 339)

/// A model package's public type: a `LanguageModel` that names its executor's configuration.
struct MyLanguageModel: LanguageModel {
    typealias Executor = MyLanguageModelExecutor

    var modelID = "my-model-2026-06-08"
    var seesImages = false

    var capabilities: LanguageModelCapabilities {
        LanguageModelCapabilities([
            .toolCalling,
            .guidedGeneration,
            .reasoning,
        ] + (seesImages ? [.vision] : []))
    }

    var executorConfiguration: Executor.Configuration {
        Executor.Configuration(modelID: modelID)
    }
}

struct MyLanguageModelExecutor: LanguageModelExecutor {
    typealias Model = MyLanguageModel

    struct Configuration: Hashable, Sendable {
        var modelID: String
    }

    let configuration: Configuration

    init(configuration: Configuration) throws {
        self.configuration = configuration
    }

    func respond(
        to request: LanguageModelExecutorGenerationRequest,
        model: MyLanguageModel,
        streamingInto channel: LanguageModelExecutorGenerationChannel
    ) async throws {
        let entryID = UUID().uuidString

        // Send model identification.
        await channel.send(.response(entryID: entryID, action: .updateMetadata([
            "modelID": configuration.modelID,
            "requestID": request.id.uuidString,
        ])))

        // The request includes a sampling mode set to `greedy`, but this model only uses
        // temperature: a temperature of 0 approximates it.
        let temperature = request.generationOptions.samplingMode == .greedy ? 0 : (request.generationOptions.temperature ?? 1)

        // Think first when the caller asked for reasoning.
        if let level = request.contextOptions.reasoningLevel {
            await channel.send(.reasoning(entryID: "reasoning-\(entryID)", action: .appendText("Thinking at level \(level).", tokenCount: 4)))
            await channel.send(.reasoning(entryID: "reasoning-\(entryID)", action: .updateSignature(Data([0x2A]), tokenCount: 1)))
        }

        let words = ["Hello", "at", "temperature", "\(temperature)."]
        for (index, word) in words.enumerated() {
            try Task.checkCancellation()
            await channel.send(.response(entryID: entryID, action: .appendText(index == 0 ? word : " " + word, tokenCount: 1)))
        }

        // Report the usage once the response is complete.
        let reasoningTokens = request.contextOptions.reasoningLevel == nil ? 0 : 5
        await channel.send(.response(
            entryID: entryID,
            action: .updateUsage(
                input: .init(totalTokenCount: request.transcript.count, cachedTokenCount: 0),
                output: .init(totalTokenCount: words.count + reasoningTokens, reasoningTokenCount: reasoningTokens)
            )
        ))
    }
}

// MARK: Choosing a model (sessions 241 and 339)

/// The cloud model when it is there, the on-device one otherwise.
func preferredModel() -> any LanguageModel {
    let cloud = PrivateCloudComputeLanguageModel()
    switch cloud.availability {
    case .available:
        return cloud
    case .unavailable(let reason):
        print("Private Cloud Compute is unavailable: \(reason)")
        return SystemLanguageModel.default
    }
}

/// Whether the cloud quota allows another request.
func canUseCloud() -> Bool {
    let usage = PrivateCloudComputeLanguageModel().quotaUsage
    if usage.isLimitReached {
        if let resetDate = usage.resetDate { print("Quota resets at \(resetDate)") }
        return false
    }
    return true
}

// MARK: Options, reasoning and usage (session 241)

/// Asks with a reasoning level, request metadata and 27's options; returns the answer, the
/// reasoning and the usage.
func askWithReasoning(_ model: some LanguageModel) async throws -> (String, String?, LanguageModelSession.Usage) {
    let session = LanguageModelSession(model: model)
    let options = GenerationOptions(samplingMode: .greedy, temperature: nil, maximumResponseTokens: 64)
    let response = try await session.respond(
        to: "Plan a three-day trip to Kyoto.",
        options: options,
        contextOptions: ContextOptions(reasoningLevel: .light),
        metadata: ["feature": "trip-planner"]
    )
    var reasoning: String?
    for entry in session.transcript {
        if case .reasoning(let thought) = entry {
            reasoning = thought.segments.compactMap { segment -> String? in
                if case .text(let text) = segment { return text.content }
                return nil
            }.joined()
        }
    }
    print("input \(response.usage.input.totalTokenCount), output \(response.usage.output.totalTokenCount)")
    return (response.content, reasoning, response.usage)
}

/// A sampling mode's kind, as a provider reads it.
func describe(_ mode: GenerationOptions.SamplingMode) -> String {
    switch mode.kind {
    case .greedy: "greedy"
    case .random(let top, let probabilityThreshold, let seed):
        (top.map { "top-\($0)" } ?? "top-p \(probabilityThreshold ?? 1)") + " seed \(seed.map(String.init) ?? "none")"
    }
}

/// Options that make the model call a tool, or forbid it.
func toolOptions(mustCall: Bool) -> GenerationOptions {
    GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 128, toolCallingMode: mustCall ? .required : .disallowed)
}

// MARK: Errors (27)

/// What an app shows for each failure of the 27 SDK.
func message(for error: any Error) -> String {
    switch error {
    case LanguageModelError.contextSizeExceeded(let info):
        "The conversation is too long (\(info.tokenCount) of \(info.contextSize) tokens)."
    case LanguageModelError.guardrailViolation:
        "That request can't be answered."
    case LanguageModelError.unsupportedCapability(let info):
        "This model can't do that: \(info.debugDescription)"
    case LanguageModelError.rateLimited(let info):
        "Too many requests; try again \(info.resetDate.map { "after \($0)" } ?? "later")."
    case LanguageModelError.refusal(let refusal):
        "The model declined: \(refusal.debugDescription)"
    case SystemLanguageModel.Error.assetsUnavailable:
        "The model is still downloading."
    case LanguageModelSession.Error.concurrentRequests:
        "Wait for the current answer."
    case LanguageModelSession.Error.transcriptMutationWhileResponding:
        "The conversation changed; ask again."
    case PrivateCloudComputeLanguageModel.Error.serviceUnavailable:
        "The cloud model is unavailable."
    default:
        error.localizedDescription
    }
}

// MARK: Images (session 241)

@Generable
struct Caption {
    @Guide(description: "A one-sentence caption")
    var text: String
}

/// A prompt with a labelled image.
func captionPrompt(for imageURL: URL) -> Prompt {
    Prompt {
        "Write a caption for this photo:"
        Attachment(imageURL: imageURL)
            .label("photo-1")
    }
}

// MARK: Transcripts (27)

/// The metadata Pocket's or a provider's executor attached to each response.
func responseMetadata(in transcript: Transcript) -> [[String: GeneratedContent]] {
    transcript.compactMap { entry in
        if case .response(let response) = entry { return response.metadata }
        return nil
    }
}

/// A saved transcript with a reasoning entry and a structured response, as 27 writes them.
func sampleTranscript() -> Transcript {
    Transcript(entries: [
        .prompt(Transcript.Prompt(segments: [.text(Transcript.TextSegment(content: "Caption this."))])),
        .reasoning(Transcript.Reasoning(id: "r1", metadata: [:], segments: [.text(Transcript.TextSegment(content: "A cat on a mat."))], signature: nil)),
        .response(Transcript.Response(id: "a1", metadata: ["modelID": "my-model"], segments: [
            .structure(Transcript.StructuredSegment(schemaName: "Caption", content: Caption(text: "A cat.").generatedContent)),
        ])),
    ])
}

// MARK: Dynamic profiles (session 242)

/// The app's state: which phase of a craft project the person is in.
final class CraftOrchestrator: @unchecked Sendable {
    enum Mode { case brainstorming, planning, reviewing }
    enum Technique { case origami, knitting }

    var mode = Mode.brainstorming
    var techniques: Set<Technique> = []
    let onDeviceModel: any LanguageModel
    let pccLanguageModel: any LanguageModel

    init(onDeviceModel: any LanguageModel, pccLanguageModel: any LanguageModel) {
        self.onDeviceModel = onDeviceModel
        self.pccLanguageModel = pccLanguageModel
    }
}

@Generable
struct ProjectTopic {
    @Guide(description: "What the project is about")
    var topic: String
}

struct GenerateProjectTitle: Tool {
    let description = "Generates a title for a craft project."
    func call(arguments: ProjectTopic) async throws -> String { "The Art of \(arguments.topic)" }
}

struct OrigamiExpert: DynamicInstructions {
    var body: some DynamicInstructions {
        Instructions {
            "You know every origami fold, from the valley fold to the crane base."
        }
    }
}

// DynamicInstructions
struct BrainstormFacilitator: DynamicInstructions {
    var orchestrator: CraftOrchestrator
    var body: some DynamicInstructions {
        Instructions {
            "You are a warm and friendly expert crafting brainstorm facilitator."
        }
        // Tools
        GenerateProjectTitle()
        // Conditionally include Origami knowledge
        if orchestrator.techniques.contains(.origami) {
            OrigamiExpert()
        }
    }
}

struct TutorialAuthor: DynamicInstructions {
    var orchestrator: CraftOrchestrator
    var body: some DynamicInstructions {
        Instructions("You write step-by-step craft tutorials.")
    }
}

struct CraftCoach: DynamicInstructions {
    var body: some DynamicInstructions {
        Instructions("You review finished projects kindly and concretely.")
    }
}

// DynamicProfile
struct CraftProfile: LanguageModelSession.DynamicProfile {
    var orchestrator: CraftOrchestrator
    var body: some LanguageModelSession.DynamicProfile {
        switch orchestrator.mode {
        case .brainstorming:
            Profile { BrainstormFacilitator(orchestrator: orchestrator) }
                .model(orchestrator.pccLanguageModel)
                .temperature(1)
        case .planning:
            Profile { TutorialAuthor(orchestrator: orchestrator) }
                .model(orchestrator.pccLanguageModel)
                .reasoningLevel(.deep)
        case .reviewing:
            Profile { CraftCoach() }
                .model(orchestrator.onDeviceModel)
                .maximumResponseTokens(200)
                .toolCallingMode(.disallowed)
                .historyTransform { history in Array(history.suffix(10)) }
                .transcriptErrorHandlingPolicy(.revertTranscript)
        }
    }
}

/// A profile that keeps the history short and counts responses, with session properties.
struct CompactingProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.history)
    var history

    let counter: ResponseCounter

    var body: some LanguageModelSession.DynamicProfile {
        Profile {
            Instructions("You are a helpful assistant.")
        }
        .onResponse {
            counter.increment()
            if history.count > 4 {
                history = Array(history.suffix(2))
            }
        }
    }
}

/// Counts the responses a profile saw.
final class ResponseCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}

/// Runs the craft app through two of its phases on one session.
func runCraftSession(orchestrator: CraftOrchestrator) async throws -> LanguageModelSession {
    let session = LanguageModelSession(profile: CraftProfile(orchestrator: orchestrator))
    _ = try await session.respond(to: "Let's brainstorm a paper project.")
    orchestrator.mode = .reviewing
    _ = try await session.respond(to: "Review my paper crane.")
    return session
}

// MARK: Custom session properties

extension SessionPropertyValues {
    @SessionPropertyEntry var isExamMode: Bool = false
}

/// A tutor that quizzes in exam mode and explains otherwise.
struct TutorProfile: LanguageModelSession.DynamicProfile {
    @SessionProperty(\.isExamMode) var isExamMode

    var body: some LanguageModelSession.DynamicProfile {
        if isExamMode {
            Profile { Instructions("Quiz the student; never give the answer.") }
                .temperature(0.2)
        } else {
            Profile { Instructions("Explain each step.") }
        }
    }
}

// MARK: More of the 27 surface, as Apple's documentation writes it

/// A reusable modifier (session 242, "Custom modifiers").
struct CarefulModifier: LanguageModelSession.DynamicProfileModifier {
    func body(content: Content) -> some LanguageModelSession.DynamicProfile {
        content
            .samplingMode(.greedy)
            .temperature(0.1)
            .transcriptErrorHandlingPolicy(.revertTranscript)
    }
}

/// Lifecycle hooks (session 242, "Lifecycle modifiers and session properties").
final class HookLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [String] = []
    func add(_ event: String) { lock.withLock { events.append(event) } }
    var all: [String] { lock.withLock { events } }
}

func observedProfile(log: HookLog, model: some LanguageModel) -> LanguageModelSession.AnyDynamicProfile {
    LanguageModelSession.AnyDynamicProfile(erasing:
        LanguageModelSession.Profile { Instructions("Answer briefly.") }
            .model(model)
            .modifier(CarefulModifier())
            .onActivate { log.add("activate") }
            .onPrompt { log.add("prompt") }
            .onReasoning { log.add("reasoning") }
            .onToolCall { call in log.add("call \(call.toolName)") }
            .onToolOutput { log.add("output") }
            .onResponse { log.add("response") }
    )
}

/// A session from dynamic instructions alone.
func instructedSession(model: some LanguageModel, formal: Bool) -> LanguageModelSession {
    LanguageModelSession(model: model, dynamicInstructions: FormalityInstructions(formal: formal), history: [])
}

struct FormalityInstructions: DynamicInstructions {
    var formal: Bool
    var body: some DynamicInstructions {
        if formal {
            Instructions("Use a formal register.")
        } else {
            Instructions("Be casual.")
        }
    }
}

// Explicit nil (26.4) and schema names (27).
@Generable(description: "A novel", representNilExplicitlyInGeneratedContent: true)
struct Novel {
    @Guide(description: "The title")
    var title: String
    @Guide(description: "A subtitle, if the book has one")
    var subtitle: String?
}

@Generable(name: "Book", description: "A book", representNilExplicitlyInGeneratedContent: false)
struct BookRecord {
    var title: String
    var isbn: String?
}

/// Hand-written schemas with the 26.4 flag.
func nullableSchemas() throws -> (GenerationSchema, GenerationSchema) {
    let direct = GenerationSchema(
        type: Novel.self, description: "A novel", representNilExplicitlyInGeneratedContent: true,
        properties: [
            GenerationSchema.Property(name: "title", type: String.self),
            GenerationSchema.Property(name: "subtitle", type: String?.self),
        ])
    let dynamic = try GenerationSchema(
        root: DynamicGenerationSchema(
            name: "Note", description: "A note", representNilExplicitlyInGeneratedContent: true,
            properties: [
                DynamicGenerationSchema.Property(name: "text", schema: DynamicGenerationSchema(type: String.self)),
                DynamicGenerationSchema.Property(name: "tag", schema: DynamicGenerationSchema(type: String.self), isOptional: true),
            ]),
        dependencies: [])
    return (direct, dynamic)
}

/// A tool that takes an image the person attached (27's `ImageReference`).
struct DescribePhotoTool: Tool {
    let description = "Describes an attached photo."

    @Generable
    struct Arguments {
        @Guide(description: "The photo to describe")
        var image: ImageReference
    }

    func call(arguments: Arguments) async throws -> String { "photo \(arguments.image.attachmentLabel)" }
}

/// The transcript and error types of 27 built by hand, as a provider or a test would.
func handBuiltValues() -> [String] {
    let definition = Transcript.ToolDefinition(name: "describe", description: "Describes a photo.", parameters: DescribePhotoTool.Arguments.generationSchema)
    let format = Transcript.ResponseFormat(type: Novel.self)
    var kinds: [String] = []
    if case .schema(let schema) = format.kind { kinds.append("schema \(schema.name)") }
    let segment = Transcript.Segment.structure(Transcript.StructuredSegment(schemaName: "Novel", content: Novel(title: "Dune", subtitle: nil).generatedContent))
    let image = Transcript.Segment.attachment(Transcript.AttachmentSegment(content: .image(Transcript.ImageAttachment(url: URL(fileURLWithPath: "/tmp/p.png"))), label: "p"))
    let rateLimited = LanguageModelError.RateLimited(resetDate: Date(timeIntervalSince1970: 0), debugDescription: "slow down")
    let guide = LanguageModelError.UnsupportedGenerationGuide(schemaName: "Novel", debugDescription: "no lookahead")
    let toolMode = GenerationOptions.ToolCallingMode.allowed
    return kinds + [
        definition.name, segment.description, image.description, "\(rateLimited.resetDate != nil)", guide.schemaName ?? "",
        "\(toolMode.kind)", "\(LanguageModelCapabilities([.vision]).contains(.vision))",
    ]
}

/// Explaining a refusal (26.0's `Refusal.explanation`).
func explain(_ refusal: LanguageModelSession.GenerationError.Refusal) async throws -> String {
    try await refusal.explanation.content
}
