/// Errors a ``TransformerContext`` reports to its executor, which turns them into the
/// session's errors.
enum TransformerContextError: Error, Sendable, Equatable {
    /// The conversation plus the reply does not fit the context window.
    case contextFull(needed: Int, capacity: Int)
    /// The model could not produce text of the required format.
    case decodingFailure(String)
}
