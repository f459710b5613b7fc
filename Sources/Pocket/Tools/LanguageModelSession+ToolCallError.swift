import Foundation

extension LanguageModelSession {
    /// An error thrown by a tool, with the tool that threw it.
    ///
    /// Nested in ``LanguageModelSession`` as in Apple's framework, so that
    /// `catch let error as LanguageModelSession.ToolCallError` compiles unchanged. The session
    /// throws it when a tool the model called throws; the transcript is left as it was.
    public struct ToolCallError: Swift.Error, LocalizedError, @unchecked Sendable {
        /// The tool.
        public var tool: any Tool
        /// The tool's error.
        public var underlyingError: any Swift.Error

        /// Creates an error.
        ///
        /// - Parameters:
        ///   - tool: The tool that threw.
        ///   - underlyingError: What it threw.
        public init(tool: any Tool, underlyingError: any Swift.Error) {
            self.tool = tool
            self.underlyingError = underlyingError
        }

        /// A description naming the tool and its error.
        public var errorDescription: String? { "Tool '\(tool.name)' failed: \(underlyingError)" }
    }
}

/// The former top-level name of ``LanguageModelSession/ToolCallError`` (Pocket only; Apple's
/// framework has no top-level `ToolCallError`).
@available(*, deprecated, renamed: "LanguageModelSession.ToolCallError")
public typealias ToolCallError = LanguageModelSession.ToolCallError
