import Foundation
import PocketGGUF
import PocketKernels

/// `pocket-bench products`: the model's matrix products on their own, with the pool's
/// threads, to tell the kernels' limits from the rest of a forward pass.
///
/// - Decode: one activation vector times a 256 MB matrix of random blocks in row groups, per
///   format, so that every weight comes from memory as in a decode step. Reported in GB/s of
///   weights and as a share of the bandwidth probe run in the same round: what a decode step
///   made only of this format could reach on this machine.
/// - Prefill: 512 activation vectors times Q2_K matrices of the synthetic 3B model's three
///   shapes, in G multiply-adds per second, to set against `pocket-bench kernels` (the same
///   kernel on a matrix that stays in the caches).
///
/// Rounds alternate with the probe; the best of each is printed, and every round with
/// `--verbose`, since a shared machine's speed moves from minute to minute.
enum MatrixProductCommand {
    /// Formats with row-group kernels that the models here use for their bulk.
    static let decodeFormats: [GGMLType] = [.q2_K, .q4_K, .q5_0, .q6_K, .q8_0]
    /// The synthetic 3B's matrix shapes (rows × columns): attention, gate and up, down.
    static let prefillShapes = [(3072, 3072), (8192, 3072), (3072, 8192)]

    static func run(_ arguments: [String]) throws {
        var threads = ThreadPool.defaultThreadCount, rounds = 3, verbose = false
        var prefetchDistances: [Int] = []
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--threads":
                guard let text = rest.popFirst(), let n = Int(text), (1...512).contains(n) else {
                    throw BenchError.usage("--threads needs a number of threads")
                }
                threads = n
            case "--rounds":
                guard let text = rest.popFirst(), let n = Int(text), n > 0 else { throw BenchError.usage("--rounds needs a positive number") }
                rounds = n
            case "--verbose": verbose = true
            case "--prefetch", "--read-ahead": prefetchDistances = try PrefetchComparison.distances(rest.popFirst())
            default: throw BenchError.usage("unknown option \(argument)")
            }
        }
        let pool = ThreadPool(threads: threads)
        print("\(Machine.cpuName()), \(threads) thread\(threads == 1 ? "" : "s"), best of \(rounds) rounds")
        decode(pool: pool, rounds: rounds, verbose: verbose, prefetchDistances: prefetchDistances)
        if prefetchDistances.isEmpty { prefill(pool: pool, rounds: rounds, verbose: verbose) }
    }

    /// One-vector products streamed from memory, per format, against the probe; with
    /// `prefetchDistances`, at each of those prefetch distances instead (``PrefetchComparison``).
    static func decode(pool: ThreadPool, rounds: Int, verbose: Bool, prefetchDistances: [Int]) {
        let scratch = Q8Activations(), columns = 1024
        let input = (0..<columns).map { Float(($0 * 7919) % 255) / 127 - 1 }
        let matrices = decodeFormats.map { type -> (WeightMatrix, UnsafeMutableRawPointer) in
            let rowBytes = type.byteCount(elements: columns)!
            let rows = (256 << 20) / rowBytes / RowGroups.rowsPerGroup * RowGroups.rowsPerGroup
            let bytes = KernelBenchmarkCommand.randomBlocks(byteCount: rows * rowBytes)
            let matrix = try! WeightMatrix(type: type, rows: rows, columns: columns, data: bytes, byteCount: rows * rowBytes)
            return (matrix.withRowGroups(pool: pool), bytes)
        }
        defer { for (_, bytes) in matrices { bytes.deallocate() } }
        var output = [Float](repeating: 0, count: matrices.map(\.0.rows).max()!)
        if !prefetchDistances.isEmpty {
            print("decode, one vector, 256 MB per matrix: GB/s of weights by prefetch distance (bytes), \(rounds) turns of two products each")
            for (matrix, _) in matrices {
                let seconds = PrefetchComparison.seconds(at: prefetchDistances, rounds: rounds) {
                    Machine.time {
                        for _ in 0..<2 { MatrixMultiply.multiply(matrix, input, tokens: 1, into: &output, scratch: scratch, pool: pool) }
                    }
                }
                let rates = seconds.map { Double(2 * rounds * matrix.rows * matrix.rowBytes) / $0 / 1e9 }
                print("  \(matrix.type.name.padding(toLength: 6, withPad: " ", startingAt: 0)) " + PrefetchComparison.line(prefetchDistances, rates))
            }
            return
        }
        var bestProbe = 0.0, best = [Double](repeating: 0, count: matrices.count), bestShare = best
        for round in 0..<rounds {
            let probe = BandwidthProbe.readBandwidth(pool: pool, repetitions: 3)
            var line = String(format: "  round %d: probe %.1f GB/s", round + 1, probe / 1e9)
            for (i, (matrix, _)) in matrices.enumerated() {
                var rate = 0.0
                for _ in 0..<4 {
                    let seconds = Machine.time {
                        MatrixMultiply.multiply(matrix, input, tokens: 1, into: &output, scratch: scratch, pool: pool)
                    }
                    rate = max(rate, Double(matrix.rows * matrix.rowBytes) / seconds)
                }
                best[i] = max(best[i], rate)
                bestShare[i] = max(bestShare[i], rate / probe)
                line += String(format: "  %@ %.1f", matrix.type.name as NSString, rate / 1e9)
            }
            bestProbe = max(bestProbe, probe)
            if verbose { print(line) }
        }
        print(String(format: "decode, one vector, 256 MB per matrix: GB/s of weights (best share of its round's probe); probe best %.1f GB/s", bestProbe / 1e9))
        for (i, (matrix, _)) in matrices.enumerated() {
            print(String(format: "  %-6@ %6.1f GB/s  (%3.0f%%)", matrix.type.name as NSString, best[i] / 1e9, 100 * bestShare[i]))
        }
    }

    /// 512-vector products on the 3B's Q2_K shapes.
    static func prefill(pool: ThreadPool, rounds: Int, verbose: Bool) {
        let tokens = 512, type = GGMLType.q2_K
        print("prefill, \(tokens) vectors, Q2_K in row groups: G multiply-adds/s (per thread)")
        for (rows, columns) in prefillShapes {
            let rowBytes = type.byteCount(elements: columns)!
            let bytes = KernelBenchmarkCommand.randomBlocks(byteCount: rows * rowBytes)
            defer { bytes.deallocate() }
            let matrix = try! WeightMatrix(type: type, rows: rows, columns: columns, data: bytes, byteCount: rows * rowBytes)
                .withRowGroups(pool: pool)
            let input = (0..<(columns * tokens)).map { Float(($0 * 7919) % 255) / 127 - 1 }
            var output = [Float](repeating: 0, count: rows * tokens)
            let scratch = Q8Activations()
            MatrixMultiply.multiply(matrix, input, tokens: tokens, into: &output, scratch: scratch, pool: pool)
            var best = 0.0
            for _ in 0..<rounds {
                let seconds = Machine.time {
                    MatrixMultiply.multiply(matrix, input, tokens: tokens, into: &output, scratch: scratch, pool: pool, inputUnchanged: true)
                }
                let rate = Double(rows * columns * tokens) / seconds / 1e9
                if verbose { print(String(format: "  round: %d × %d %.1f", rows, columns, rate)) }
                best = max(best, rate)
            }
            print(String(format: "  %5d × %-5d %6.1f  (%.1f)", rows, columns, best, best / Double(pool.threadCount)))
        }
    }
}
