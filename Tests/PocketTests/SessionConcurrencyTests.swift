import Foundation
import Pocket
import Synchronization
import Testing

/// Generation runs on each session's own thread, not on Swift's cooperative pool (issue 16,
/// section 3).
@Suite(.serialized)
struct SessionConcurrencyTests {
    /// A model whose generation blocks its thread until a gate opens.
    final class GateModel: LanguageModel, Sendable {
        typealias Executor = GateExecutor

        let gate = DispatchSemaphore(value: 0)
        let entered = Atomic(0)
        var capabilities: LanguageModelCapabilities { LanguageModelCapabilities([]) }
        var executorConfiguration: GateExecutor.Configuration { .init() }
    }

    struct GateExecutor: LanguageModelExecutor {
        typealias Model = GateModel
        struct Configuration: Hashable, Sendable {}
        struct GateNeverOpened: Error, CustomStringConvertible {
            var description: String { "the gate never opened: generation held the cooperative pool" }
        }
        init(configuration: Configuration) throws {}

        func respond(
            to request: LanguageModelExecutorGenerationRequest, model: GateModel,
            streamingInto channel: LanguageModelExecutorGenerationChannel
        ) async throws {
            model.entered.add(1, ordering: .relaxed)
            guard model.gate.wait(timeout: .now() + 60) == .success else { throw GateNeverOpened() }
            await channel.send(.response(action: .appendText("done")))
        }
    }

    /// More sessions than the cooperative pool has threads block inside generation; a task
    /// on the pool opens the gate once all of them are inside. Were generation run on the
    /// pool, the opener could never run (each request would time out after a minute).
    @Test func blockedGenerationsLeaveTheCooperativePoolFree() async throws {
        let model = GateModel()
        let count = ProcessInfo.processInfo.activeProcessorCount + 1
        let sessions = (0..<count).map { _ in LanguageModelSession(model: model) }
        let replies = try await withThrowingTaskGroup(of: String.self) { group in
            for session in sessions {
                group.addTask { try await session.respond(to: "Go.").content }
            }
            group.addTask {
                while model.entered.load(ordering: .relaxed) < count { try await Task.sleep(for: .milliseconds(1)) }
                for _ in 0..<count { model.gate.signal() }
                return "opener"
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(replies.filter { $0 == "done" }.count == count)
    }

    /// Counts steps of a task that sleeps between them.
    final class Ticker: Sendable {
        let ticks = Atomic(0)
    }

    /// As many sessions as the cooperative pool has threads (at least two) generate at once;
    /// a task on the pool keeps ticking meanwhile. Were generation run on the pool, the
    /// sessions would hold every one of its threads and the ticker would stall until they end.
    /// Timing-based: valid when the suites run serially (`--no-parallel`); in a parallel run
    /// other suites' synchronous work occupies the pool and starves the ticker by itself.
    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func concurrentSessionsLeaveTheCooperativePoolFree() async throws {
        let model = try #require(smolLM2Model)
        let sessions = (0..<max(2, min(ProcessInfo.processInfo.activeProcessorCount, 4))).map { _ in
            LanguageModelSession(model: model)
        }
        let ticker = Ticker()
        let ticking = Task {
            while !Task.isCancelled {
                ticker.ticks.add(1, ordering: .relaxed)
                try? await Task.sleep(for: .milliseconds(2))
            }
        }
        defer { ticking.cancel() }
        // Snapshot counts show every session streaming while the ticker runs.
        let counts = try await withThrowingTaskGroup(of: (Int, Int, Int).self) { group in
            for session in sessions {
                group.addTask {
                    var snapshots = 0
                    var ticksAtFirst = 0
                    for try await _ in session.streamResponse(to: "Tell me a long story about the sea.", options: greedy(48)) {
                        if snapshots == 0 { ticksAtFirst = ticker.ticks.load(ordering: .relaxed) }
                        snapshots += 1
                    }
                    return (snapshots, ticksAtFirst, ticker.ticks.load(ordering: .relaxed))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        for (snapshots, first, last) in counts {
            #expect(snapshots > 1)
            // The ticker advanced while this session was generating.
            #expect(last - first >= 3, "ticks \(first) at the first snapshot, \(last) at the end")
        }
    }

    /// A cancelled request stops within a few tokens: the engine checks the calling task's
    /// cancellation before every token even though it runs on its own thread.
    @Test(.enabled(if: smolLM2IsInstalled, "SmolLM2-135M-Instruct, the small test model, is not installed (run Weights/fetch)"))
    func cancellationReachesTheEngineThread() async throws {
        let session = LanguageModelSession(model: try #require(smolLM2Model))
        let snapshots = Mutex(0)
        let cutAt = Mutex(0)
        let consumer = Task {
            for try await snapshot in session.streamResponse(to: "Count from 1 to 1000, one number per line.", options: greedy(1500)) {
                snapshots.withLock { $0 += 1 }
                cutAt.withLock { $0 = snapshot.content.count }
            }
        }
        while snapshots.withLock({ $0 }) < 5 { try await Task.sleep(for: .milliseconds(1)) }
        consumer.cancel()
        await #expect(throws: CancellationError.self) { try await consumer.value }
        // The abandoned generation stops at its next token; a new request waits for it, so
        // its time to first token bounds how long the old one went on.
        let clock = ContinuousClock()
        let start = clock.now
        let next = try await session.respond(to: "Hi", options: greedy(1))
        #expect(next.usage.outputTokens == 1)
        #expect(clock.now - start < .seconds(5), "the cancelled generation kept running")
        #expect(session.transcript.count == 2)
    }
}
