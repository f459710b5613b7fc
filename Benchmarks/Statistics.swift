import Foundation

/// Median and spread of repeated measurements.
struct Summary: Encodable {
    var median: Double
    var minimum: Double
    var maximum: Double
    var samples: Int

    init(_ values: [Double]) {
        let sorted = values.sorted()
        samples = sorted.count
        minimum = sorted.first ?? 0
        maximum = sorted.last ?? 0
        let mid = sorted.count / 2
        median = sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
    }

    /// `"123.4 ± 5.6"`: the median and half the range.
    func formatted(_ digits: Int = 1) -> String {
        String(format: "%.\(digits)f ± %.\(digits)f", median, (maximum - minimum) / 2)
    }
}

/// Process-level measurements.
enum Machine {
    /// Resets the kernel's record of peak resident memory (`VmHWM`), so the next reading covers
    /// only what follows. Writing `5` to `/proc/self/clear_refs` does this on Linux.
    static func resetPeakResidentBytes() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// Peak resident set size of this process in bytes (`VmHWM`), or 0 where unavailable.
    static func peakResidentBytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let kilobytes = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
            return kilobytes * 1024
        }
        return 0
    }

    /// The CPU model name from `/proc/cpuinfo`.
    static func cpuName() -> String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            return line.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "unknown CPU"
        }
        return "unknown CPU"
    }

    /// Seconds elapsed while running `body`.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        try body()
        let (s, atto) = (ContinuousClock.now - start).components
        return Double(s) + Double(atto) * 1e-18
    }
}
