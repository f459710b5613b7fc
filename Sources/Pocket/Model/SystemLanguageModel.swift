import Foundation
import PocketGGUF
import PocketKernels
import PocketTokenizer
import PocketTransformer

/// An on-device language model: a GGUF file run by Pocket's transformer.
///
/// ``default`` is found in this order: the file named by the `POCKET_MODEL` environment
/// variable, then `Weights/Qwen2.5-Coder-0.5B-Instruct.gguf` in the Pocket package checkout
/// this library was built from. Any other GGUF model loads with ``init(contentsOf:contextSize:useCase:guardrails:toolCallHeuristics:chatTemplate:)``.
public final class SystemLanguageModel: LanguageModel, @unchecked Sendable {
    /// What a model is used for.
    public struct UseCase: Sendable, Equatable {
        let name: String
        /// General prompting.
        public static let general = UseCase(name: "general")
        /// Tagging and extracting content.
        public static let contentTagging = UseCase(name: "contentTagging")
    }

    /// Guardrails that screen prompts and responses.
    ///
    /// Pocket's default policy blocks nothing (a small local model has no safety classifier);
    /// apps add their own checks with ``init(check:)``, which sessions run on every prompt and
    /// response and turn into ``LanguageModelSession/GenerationError/guardrailViolation(_:)``.
    public struct Guardrails: Sendable {
        let check: @Sendable (String) -> Bool

        /// The default guardrails (Pocket: no blocking).
        public static let `default` = Guardrails(check: { _ in true })
        /// Guardrails for transforming possibly sensitive content (Pocket: no blocking).
        public static let permissiveContentTransformations = Guardrails(check: { _ in true })

        /// Guardrails that accept text for which `check` returns `true` (a Pocket addition).
        public init(check: @escaping @Sendable (String) -> Bool) {
            self.check = check
        }
    }

    /// Whether the model can be used.
    public enum Availability: Sendable, Equatable {
        /// Why the model is unavailable.
        public enum UnavailableReason: Sendable, Equatable, CustomStringConvertible {
            /// The device cannot run the model: this build of Pocket needs CPU instructions this
            /// machine lacks (``SystemLanguageModel/unavailableError`` is then an
            /// ``UnsupportedCPUError`` that says which and what to do), or the model's architecture
            /// is not supported.
            case deviceNotEligible
            /// The model file is missing or unreadable; the description says how to get it.
            case modelNotReady
            /// Not used by Pocket (kept for source compatibility).
            case appleIntelligenceNotEnabled

            /// What to do.
            public var description: String {
                switch self {
                case .deviceNotEligible:
                    "this machine cannot run the model (a CPU without instructions this build of Pocket was compiled for, "
                        + "or an unsupported model architecture)"
                case .modelNotReady:
                    "the model file is missing: run Weights/fetch in the Pocket checkout, or set POCKET_MODEL to a GGUF file"
                case .appleIntelligenceNotEnabled: "not applicable to Pocket"
                }
            }
        }
        /// Ready to use.
        case available
        /// Not usable, and why.
        case unavailable(UnavailableReason)
    }

    /// The default model (see the type's documentation for how it is found).
    public static let `default` = SystemLanguageModel(url: locateDefault())

    /// The model file's location.
    public let url: URL
    /// The use case.
    public let useCase: UseCase
    /// The guardrails.
    public let guardrails: Guardrails
    /// The rules that keep a small model's tool use on track (a Pocket addition;
    /// ``ToolCallHeuristics/smallModels`` unless given).
    public let toolCallHeuristics: ToolCallHeuristics
    /// How sessions save forward passes while decoding (a Pocket addition).
    public let decodingShortcuts: DecodingShortcuts
    private let requestedContextSize: Int
    private let loaded: Result<Loaded, any Swift.Error>

    /// What a loaded model shares between sessions.
    struct Loaded: @unchecked Sendable {
        let file: GGUFFile
        let tokenizer: Tokenizer
        let template: ChatTemplate
        let trainedContext: Int

        /// How the model's chat template renders requests.
        var rendering: ChatRendering { ChatRendering(template: template, tokenizer: tokenizer) }
    }

    /// The model in `url`, loaded unless `checkCPU` (this build against this CPU; tests fake
    /// it) throws.
    init(url: URL, contextSize: Int = 4096, useCase: UseCase = .general, guardrails: Guardrails = .default,
         toolCallHeuristics: ToolCallHeuristics = .smallModels, chatTemplate: String? = nil,
         decodingShortcuts: DecodingShortcuts = .default,
         checkCPU: () throws -> Void = { try CPUFeatures.checkSupported() }) {
        self.url = url
        self.useCase = useCase
        self.guardrails = guardrails
        self.toolCallHeuristics = toolCallHeuristics
        self.decodingShortcuts = decodingShortcuts
        requestedContextSize = contextSize
        loaded = Result {
            // Before touching the file: the kernels of a build for another CPU would crash here.
            try checkCPU()
            let file = try GGUFFile(contentsOf: url)
            let configuration = try ModelConfiguration(metadata: file.metadata)
            let template = chatTemplate.map { ChatTemplate(template: $0) } ?? ChatTemplate(gguf: file)
            return Loaded(file: file, tokenizer: try Tokenizer(gguf: file), template: template,
                          trainedContext: configuration.trainedContextLength)
        }
    }

    /// Loads any GGUF model (a Pocket addition).
    ///
    /// - Parameters:
    ///   - url: The GGUF file.
    ///   - contextSize: The context window of sessions; never above the model's trained context.
    ///   - useCase: The use case.
    ///   - guardrails: The guardrails.
    ///   - toolCallHeuristics: The rules for small models' tool use; ``ToolCallHeuristics/none``
    ///     for a model that follows its template's tool format.
    ///   - chatTemplate: A chat template to use instead of the file's `tokenizer.chat_template`
    ///     (like llama.cpp's `--chat-template`): Jinja template text, in which Pocket recognizes
    ///     the format by its markers as it does the file's (``ChatTemplate/init(template:)``).
    ///     A template with a thinking section (`<think>`, `</think>`, and for a switch
    ///     `enable_thinking`) gives the model the ``LanguageModelCapabilities/Capability/reasoning``
    ///     capability. `nil` uses the file's template.
    ///   - decodingShortcuts: How sessions save forward passes while decoding: forced tokens
    ///     and prompt lookup, both on by default.
    /// - Throws: ``UnsupportedCPUError`` when this build of Pocket needs CPU instructions this
    ///   machine lacks; the loading error when the file cannot be opened as a supported model.
    public convenience init(
        contentsOf url: URL, contextSize: Int = 4096, useCase: UseCase = .general, guardrails: Guardrails = .default,
        toolCallHeuristics: ToolCallHeuristics = .smallModels, chatTemplate: String? = nil,
        decodingShortcuts: DecodingShortcuts = .default
    ) throws {
        self.init(
            url: url, contextSize: contextSize, useCase: useCase, guardrails: guardrails, toolCallHeuristics: toolCallHeuristics,
            chatTemplate: chatTemplate, decodingShortcuts: decodingShortcuts)
        _ = try loaded.get()
    }

    /// The default model with a use case and guardrails.
    public convenience init(useCase: UseCase = .general, guardrails: Guardrails = .default) {
        self.init(url: Self.locateDefault(), useCase: useCase, guardrails: guardrails)
    }

    /// Whether the model can be used, and if not, why.
    public var availability: Availability {
        switch loaded {
        case .success: return .available
        case .failure(let error):
            if error is UnsupportedCPUError { return .unavailable(.deviceNotEligible) }
            if let error = error as? TransformerError, case .unsupportedArchitecture = error { return .unavailable(.deviceNotEligible) }
            return .unavailable(.modelNotReady)
        }
    }

    /// Whether ``availability`` is `.available`.
    public var isAvailable: Bool { availability == .available }

    /// The languages the model lists in its metadata (`general.languages`), as language codes.
    ///
    /// Empty when the model's file lists none (Qwen2.5's, for one): the languages are then
    /// unknown, not restricted, so ``supportsLocale(_:)`` is `true` for every locale and
    /// sessions reject no prompt by its language. A model that lists languages has prompts
    /// written clearly in a script none of them uses rejected with
    /// ``LanguageModelSession/GenerationError/unsupportedLanguageOrLocale(_:)``.
    public var supportedLanguages: Set<Locale.Language> {
        guard case .success(let model) = loaded else { return [] }
        let codes = model.file.metadata.strings("general.languages") ?? []
        return Set(codes.map { Locale.Language(identifier: $0) })
    }

    /// Whether the model supports the language of `locale`: listed in ``supportedLanguages``,
    /// or any language when the model lists none (unknown, so not restricted).
    public func supportsLocale(_ locale: Locale = Locale.current) -> Bool {
        let languages = supportedLanguages
        guard !languages.isEmpty else { return true }
        guard let code = locale.language.languageCode?.identifier else { return false }
        return languages.contains { $0.languageCode?.identifier == code }
    }

    /// The context window of sessions: the requested size, at most the model's trained context.
    public var contextSize: Int {
        guard case .success(let model) = loaded else { return requestedContextSize }
        return min(requestedContextSize, model.trainedContext)
    }

    /// What the model can do: guided generation (a grammar constrains every token), tool
    /// calling (in the chat template's own format, or Pocket's), and reasoning when the chat
    /// template has a thinking section (``ChatTemplate/thinking``: Qwen3's `<think>…</think>`).
    ///
    /// A request with a ``ContextOptions/reasoningLevel`` on a model without reasoning throws
    /// ``LanguageModelError/unsupportedCapability(_:)``.
    public var capabilities: LanguageModelCapabilities {
        if case .success(let model) = loaded, model.template.thinking != nil {
            return LanguageModelCapabilities([.guidedGeneration, .toolCalling, .reasoning])
        }
        return LanguageModelCapabilities([.guidedGeneration, .toolCalling])
    }

    /// What a session's executor is made from: the model file and the context size.
    public var executorConfiguration: Executor.Configuration {
        Executor.Configuration(url: url, contextSize: contextSize)
    }

    /// A transformer with its own KV cache, for one conversation.
    ///
    /// - Throws: ``UnsupportedCPUError`` when this build of Pocket cannot run on this CPU;
    ///   ``SystemLanguageModel/Error/assetsUnavailable(_:)`` when the file could not be loaded.
    func makeTransformerContext() throws -> TransformerContext {
        let model: Loaded
        do {
            model = try loaded.get()
        } catch let error as UnsupportedCPUError {
            throw error
        } catch {
            throw SystemLanguageModel.Error.assetsUnavailable(.init(
                debugDescription: "\(url.path): \(error). \(Availability.UnavailableReason.modelNotReady)"))
        }
        return try TransformerContext(
            model: model, contextSize: contextSize, heuristics: toolCallHeuristics, shortcuts: decodingShortcuts)
    }

    /// The loaded model, or the loading error.
    func loadedModel() throws -> Loaded { try loaded.get() }

    /// The default model's file, relative to the package root: Qwen2.5-Coder-0.5B-Instruct
    /// (Q5_0 + Q8_0, Apache-2.0), installed by `Weights/fetch`.
    static let defaultModelPath = "Weights/Qwen2.5-Coder-0.5B-Instruct.gguf"

    /// `POCKET_MODEL`, then the checkout's default file.
    static func locateDefault() -> URL {
        if let path = ProcessInfo.processInfo.environment["POCKET_MODEL"] { return URL(fileURLWithPath: path) }
        // Sources/Pocket/Model/SystemLanguageModel.swift -> the package root is four levels up.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        return root.appendingPathComponent(defaultModelPath)
    }
}
