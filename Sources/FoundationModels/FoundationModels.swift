// `import FoundationModels` on platforms without Apple's framework: Pocket's implementation of
// the same API (LanguageModelSession, SystemLanguageModel, Transcript, Tool, @Generable …).
@_exported import Pocket
