import Pocket

/// A tool over local data: the model decides to call it, with arguments that the grammar
/// keeps valid for the tool's schema.
struct GetWeatherTool: Tool {
    let name = "getWeather"
    let description = "Retrieve the latest weather information for a city"

    @Generable
    struct Arguments {
        @Guide(description: "The city to get weather information for")
        var city: String
    }

    /// Stand-in for a weather service.
    static let observations = ["paris": 17, "tokyo": 22, "cupertino": 24, "oslo": 4]

    func call(arguments: Arguments) async throws -> String {
        guard let temperature = Self.observations[arguments.city.lowercased()] else {
            return "There is no weather data for \(arguments.city)."
        }
        return "The temperature in \(arguments.city) is \(temperature) degrees Celsius."
    }
}

enum WeatherToolExample {
    static func run() async throws {
        let session = LanguageModelSession(
            tools: [GetWeatherTool()],
            instructions: "Help the person with getting weather information. Use the getWeather tool.")
        let response = try await session.respond(
            to: "What is the temperature in Tokyo?", options: GenerationOptions(samplingMode: .greedy))
        for entry in session.transcript {
            switch entry {
            case .toolCalls(let calls):
                for call in calls { print("tool call: \(call.toolName)(\(call.arguments.jsonString))") }
            case .toolOutput(let output):
                for case .text(let segment) in output.segments { print("tool output: \(segment.content)") }
            default:
                break
            }
        }
        print("> \(response.content)")
    }
}
