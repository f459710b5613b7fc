import Testing
import Pocket

/// A `GenerationError` prints as its message and suggestion, not as an enum dump.
@Suite struct GenerationErrorDescriptionTests {
    @Test func descriptionIsTheReadableMessage() {
        let error = LanguageModelSession.GenerationError.exceededContextWindowSize(
            .init(debugDescription: "the request needs 34 tokens; the context size is 16"))
        #expect("\(error)" == "The conversation exceeds the model's context window. the request needs 34 tokens; "
            + "the context size is 16. Start a new session with a shorter transcript, or ask for a shorter response.")
        let decoding = LanguageModelSession.GenerationError.decodingFailure(.init(debugDescription: "not JSON."))
        #expect(String(describing: decoding) == "The response could not be decoded. not JSON.")
    }
}
