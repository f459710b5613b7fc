import Foundation

/// A unique identity for one piece of generated content.
///
/// Streaming responses attach the same `GenerationID` to every snapshot of the same value, so a
/// user interface can tell that a partially generated element was updated rather than replaced.
///
/// ```swift
/// let id = GenerationID()
/// let content = GeneratedContent(kind: .string("Hi"), id: id)
/// assert(content.id == id)
/// ```
public struct GenerationID: Hashable, Sendable {
    private let value: UUID

    /// Creates a new, unique generation identifier.
    public init() {
        value = UUID()
    }
}
