import PocketKernels

/// `--prefetch D1,D2,…` (formerly `--read-ahead`, still accepted): the same work timed at
/// several prefetch distances (``ColumnPrefetch/distance``, bytes; 0 is off), in turns within one process and summed per
/// distance. On a shared machine whose speed moves by a third within minutes, runs of separate
/// binaries minutes apart cannot show a 10% difference; turns a fraction of a second apart can.
enum PrefetchComparison {
    /// The distances of a `--prefetch` argument.
    static func distances(_ text: String?) throws -> [Int] {
        guard let text else { throw BenchError.usage("--prefetch needs distances in bytes, such as 0,2048") }
        let items = text.split(separator: ","), distances = items.compactMap { Int($0) }
        guard !distances.isEmpty, distances.count == items.count,
              distances.allSatisfy({ (0...1 << 20).contains($0) }) else {
            throw BenchError.usage("--prefetch needs distances in bytes from 0 to 1048576, such as 0,2048")
        }
        return distances
    }

    /// The total seconds of `rounds` turns of `work` at each distance, in the order given;
    /// the distance in force before is restored.
    static func seconds(at distances: [Int], rounds: Int, _ work: () throws -> Double) rethrows -> [Double] {
        let kept = ColumnPrefetch.distance
        defer { ColumnPrefetch.distance = kept }
        var totals = [Double](repeating: 0, count: distances.count)
        for _ in 0..<rounds {
            for (i, distance) in distances.enumerated() {
                ColumnPrefetch.distance = distance
                totals[i] += try work()
            }
        }
        return totals
    }

    /// "d=0 25.0  d=2048 32.3": a rate per distance.
    static func line(_ distances: [Int], _ rates: [Double]) -> String {
        zip(distances, rates).map { String(format: "d=%d %.1f", $0, $1) }.joined(separator: "  ")
    }
}
