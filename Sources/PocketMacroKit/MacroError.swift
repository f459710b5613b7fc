/// A problem found in the source a macro is attached to, reported to the compiler as an error
/// diagnostic at ``offset``.
public struct MacroError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, and what to write instead when there is an obvious fix.
    public var message: String
    /// UTF-8 offset of the offending text, relative to the start of the text that was parsed.
    public var offset: Int

    /// Creates an error at `offset`.
    public init(_ message: String, at offset: Int) {
        self.message = message
        self.offset = offset
    }

    /// The message with its offset.
    public var description: String { "\(message) (at byte \(offset))" }
}
