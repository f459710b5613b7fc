import Foundation
import Pocket

/// `pocket-bench shortcuts [--model PATH] [--rounds N] [--json] [--show]` (default: Qwen, the default
/// model; `$POCKET_MODEL` overrides it): what the decoding shortcuts
/// (``SystemLanguageModel/DecodingShortcuts``: forced tokens and prompt lookup) save, through
/// `LanguageModelSession` as an app uses it, greedy, on two workloads:
///
/// - **structured**: a `@Generable` contact card with ten fields extracted from an e-mail
///   signature, against plain constrained decoding (one chosen token per pass);
/// - **extraction**: a reply quoting lines of a ~1,000-token order list, against plain decoding.
///
/// Each round runs both sessions of a workload in turn (the model loaded once per setting);
/// the tokens per second of the answer (``LanguageModelSession/Usage/tokensPerSecond``: the
/// reply's tokens after the first, forced ones included) are the median over rounds. Also
/// printed: prompt lookup's drafted and accepted tokens, and whether both answers agree (both
/// answers too when they differ, or with `--show`).
enum ShortcutsBenchmarkCommand {
    @Generable struct ContactCard {
        @Guide(description: "The person's full name") var name: String
        @Guide(description: "Their job title") var jobTitle: String
        var company: String
        var email: String
        var phone: String
        var street: String
        var city: String
        var country: String
        @Guide(description: "How soon to answer", .anyOf(["today", "this week", "later"])) var urgency: String
        @Guide(description: "Whether they asked for a call back") var wantsCallBack: Bool
    }

    static let signature = """
        Hi team, thanks for the demo yesterday. Could someone call me back before Friday about the pilot?

        Best regards,
        Margarethe Oyelaran-Castellanos
        Director of Procurement Operations
        Northwind Cold Chain Logistics GmbH
        margarethe.oyelaran@northwind-coldchain.example
        +49 30 5557 2198 (office)
        Friedrichstraße 231, 10969 Berlin, Germany
        """

    /// Forty orders, one per line, about 1,000 tokens: made by rule, so every run is the same.
    static let orders: String = {
        let items = ["blue ceramic mug", "oak cutting board", "linen tea towel", "steel water bottle", "wool throw blanket",
                     "glass storage jar", "bamboo utensil set", "cast iron skillet"]
        let cities = ["Lyon", "Porto", "Ghent", "Turin", "Lyon", "Bergen", "Krakow", "Lyon", "Seville", "Utrecht"]
        let months = ["January", "February", "March", "April", "May", "June"]
        return (0..<40).map { i in
            "Order \(1040 + i * 7): \(i % 4 + 1) × \(items[i * 3 % items.count]), shipped to \(cities[i % cities.count]) "
                + "on \(i % 27 + 1) \(months[i % months.count]), tracking code TRK-\(90_210 + i * 131)."
        }.joined(separator: "\n")
    }()

    static let extractionPrompt = """
        Here is our order log:

        \(orders)

        Copy, exactly as written, every line of the log for an order shipped to Lyon. Output only those lines.
        """

    /// The two workloads.
    enum Workload: CaseIterable {
        case structured, extraction

        /// One greedy response of a fresh session on `model`.
        func measure(on model: SystemLanguageModel, options: GenerationOptions) async throws -> Measurement {
            switch self {
            case .structured:
                let session = LanguageModelSession(model: model, instructions: "Extract the sender's contact card from the e-mail.")
                let response = try await session.respond(to: signature, generating: ContactCard.self, options: options)
                return Measurement(response.usage, answer: response.rawContent.jsonString)
            case .extraction:
                let session = LanguageModelSession(model: model)
                let response = try await session.respond(to: extractionPrompt, options: options)
                return Measurement(response.usage, answer: response.content)
            }
        }
    }

    /// What one response measured.
    struct Measurement: Sendable {
        var tokensPerSecond: Double
        var outputTokens: Int
        var drafted: Int
        var accepted: Int
        var answer: String

        init(_ usage: LanguageModelSession.Usage, answer: String) {
            func count(_ key: String) -> Int { (try? usage.metadata[key]?.value(Int.self)) ?? 0 }
            tokensPerSecond = usage.tokensPerSecond
            outputTokens = usage.outputTokens
            drafted = count(SystemLanguageModel.Executor.draftedTokensKey)
            accepted = count(SystemLanguageModel.Executor.acceptedDraftTokensKey)
            self.answer = answer
        }
    }

    static func run(_ argv: [String]) throws {
        var rounds = 3
        var json = false
        var show = false
        var modelPath = ProcessInfo.processInfo.environment["POCKET_MODEL"]
        var rest = argv[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = true
            case "--show": show = true
            case "--rounds":
                guard let n = rest.popFirst().flatMap(Int.init), n > 0 else { throw BenchError.usage("--rounds needs a positive count") }
                rounds = n
            case "--model":
                guard let path = rest.popFirst() else { throw BenchError.usage("--model needs a path") }
                modelPath = path
            default: throw BenchError.usage("unknown argument '\(argument)'")
            }
        }
        let url = modelPath.map { URL(fileURLWithPath: $0) }
            ?? ThroughputCommand.packageRoot().appendingPathComponent("Weights/Qwen2.5-Coder-0.5B-Instruct.gguf")
        let plain = try SystemLanguageModel(contentsOf: url, decodingShortcuts: .none)
        let shortcuts = try SystemLanguageModel(contentsOf: url, decodingShortcuts: .default)
        let options = GenerationOptions(sampling: .greedy, maximumResponseTokens: 400)

        var results: [String: [String: Any]] = [:]
        for workload in Workload.allCases {
            let name = "\(workload)"
            var off: [Measurement] = [], on: [Measurement] = []
            for round in 0..<rounds {
                FileHandle.standardError.write(Data("\(name): round \(round + 1) of \(rounds)\n".utf8))
                off.append(try blocking { try await workload.measure(on: plain, options: options) })
                on.append(try blocking { try await workload.measure(on: shortcuts, options: options) })
            }
            let before = Summary(off.map(\.tokensPerSecond)).median, after = Summary(on.map(\.tokensPerSecond)).median
            let last = on[on.count - 1]
            let acceptance = last.drafted > 0 ? Double(last.accepted) / Double(last.drafted) : 0
            results[name] = [
                "plain_tokens_per_second": before, "shortcuts_tokens_per_second": after, "speedup": after / before,
                "plain_output_tokens": off[0].outputTokens, "shortcuts_output_tokens": last.outputTokens,
                "drafted_tokens": last.drafted, "accepted_draft_tokens": last.accepted, "acceptance_rate": acceptance,
                "same_answer": off[0].answer == last.answer,
            ]
            if !json {
                print(String(format: "%@: plain %.1f tokens/s (%d tokens), shortcuts %.1f tokens/s (%d tokens): %.2f×",
                             name, before, off[0].outputTokens, after, last.outputTokens, after / before))
                print(String(format: "  prompt lookup: %d drafted, %d accepted (%.0f%%); same answer: %@",
                             last.drafted, last.accepted, acceptance * 100, off[0].answer == last.answer ? "yes" : "no"))
                if show || off[0].answer != last.answer { print("  plain:     \(off[0].answer)\n  shortcuts: \(last.answer)") }
            }
        }
        if json {
            let data = try JSONSerialization.data(withJSONObject: ["model": url.lastPathComponent, "rounds": rounds, "workloads": results],
                                                  options: [.sortedKeys, .prettyPrinted])
            print(String(decoding: data, as: UTF8.self))
        }
    }

    /// Runs an async body to completion from synchronous code.
    private static func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let result = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { result.value = .success(try await body()) } catch { result.value = .failure(error) }
            done.signal()
        }
        done.wait()
        return try result.value!.get()
    }
}

/// Carries a task's result back to the thread that waits for it.
private final class ResultBox<T>: @unchecked Sendable {
    var value: Result<T, any Error>?
}
