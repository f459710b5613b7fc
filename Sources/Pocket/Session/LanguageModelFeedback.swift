import Foundation

/// Feedback on a response, for reporting problems with a model's output.
public enum LanguageModelFeedback {
    /// How the response was received.
    public enum Sentiment: String, Sendable, Codable, CaseIterable {
        case positive, negative, neutral
    }

    /// A problem with a response.
    public struct Issue: Sendable, Codable {
        /// Kinds of problems.
        public enum Category: String, Sendable, Codable, CaseIterable {
            case unhelpful, tooVerbose, didNotFollowInstructions, incorrect, stereotypeOrBias,
                 suggestiveOrSexual, vulgarOrOffensive, triggeredGuardrailUnexpectedly
        }

        /// The kind of problem.
        public var category: Category
        /// An explanation.
        public var explanation: String?

        /// Creates an issue.
        public init(category: Category, explanation: String? = nil) {
            self.category = category
            self.explanation = explanation
        }
    }
}

extension LanguageModelSession {
    /// A JSON attachment with the session's transcript and the feedback, for a bug report.
    ///
    /// Pocket sends nothing anywhere: the returned data is for the app to store or attach.
    /// It holds `sentiment`, `issues`, `desiredOutput` (an entry) and `transcript`.
    public func logFeedbackAttachment(
        sentiment: LanguageModelFeedback.Sentiment?, issues: [LanguageModelFeedback.Issue] = [],
        desiredOutput: Transcript.Entry? = nil
    ) -> Data {
        struct Attachment: Encodable {
            var sentiment: LanguageModelFeedback.Sentiment?
            var issues: [LanguageModelFeedback.Issue]
            var desiredOutput: Transcript.Entry?
            var transcript: Transcript
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        // Every part is plain Codable data, so encoding cannot fail.
        return (try? encoder.encode(Attachment(sentiment: sentiment, issues: issues, desiredOutput: desiredOutput, transcript: transcript))) ?? Data()
    }
}
