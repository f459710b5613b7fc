import Pocket

@Generable
struct Itinerary {
    @Guide(description: "An exciting name for the trip")
    let title: String

    @Guide(description: "A list of day-by-day plans", .count(2))
    let days: [DayPlan]
}

@Generable
struct DayPlan {
    let title: String

    @Guide(.count(2))
    let activities: [String]
}

/// Streaming structured output: each snapshot is an `Itinerary.PartiallyGenerated` whose
/// properties fill in as the model writes them.
enum ItineraryStreaming {
    static func run() async throws {
        let session = LanguageModelSession(instructions: "You plan short trips.")
        let stream = session.streamResponse(
            to: "Plan a two-day trip to Paris.", generating: Itinerary.self, 
            options: GenerationOptions(samplingMode: .greedy, maximumResponseTokens: 200))
        for try await snapshot in stream {
            let partial = snapshot.content
            let days = partial.days?.map { "\($0.title ?? "…") [\(($0.activities ?? []).joined(separator: ", "))]" } ?? []
            print("title: \(partial.title ?? "…") | days: \(days.joined(separator: " / "))")
        }
        let itinerary = try await stream.collect().content
        print("\nDone: \(itinerary.title), \(itinerary.days.count) days.")
    }
}
