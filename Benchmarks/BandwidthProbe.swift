import Foundation
import PocketKernels

/// Measures how fast this machine streams memory into the cores: every thread sums its share
/// of a buffer far larger than the caches. This is the ceiling for decode, which reads every
/// weight once per token.
///
/// The buffer is a ``LargePageBuffer``, like the repacked weights: with small pages the same
/// loop reads 31–34 GB/s where large pages give 56–58 GB/s on the development machine at
/// times, so a small-page probe would understate the ceiling.
enum BandwidthProbe {
    /// Read bandwidth in bytes per second with `pool`'s threads (best of `repetitions`).
    static func readBandwidth(pool: ThreadPool, bytes: Int = 1 << 30, repetitions: Int = 5) -> Double {
        let count = bytes / MemoryLayout<SIMD16<Float>>.stride
        let memory = LargePageBuffer(byteCount: count * MemoryLayout<SIMD16<Float>>.stride)
        let buffer = memory.baseAddress.bindMemory(to: SIMD16<Float>.self, capacity: count)
        buffer.update(repeating: SIMD16<Float>(repeating: 1), count: count)
        let sums = UnsafeMutablePointer<Float>.allocate(capacity: pool.threadCount)
        defer { sums.deallocate() }
        var best = 0.0
        for _ in 0..<repetitions {
            let seconds = Machine.time {
                pool.parallelFor(count) { range in
                    // Four independent accumulators keep several loads in flight.
                    var a = SIMD16<Float>(), b = SIMD16<Float>(), c = SIMD16<Float>(), d = SIMD16<Float>()
                    var i = range.lowerBound
                    while i + 4 <= range.upperBound {
                        a += buffer[i]; b += buffer[i + 1]; c += buffer[i + 2]; d += buffer[i + 3]
                        i += 4
                    }
                    while i < range.upperBound { a += buffer[i]; i += 1 }
                    sums[range.lowerBound * pool.threadCount / count] = (a + b + c + d).sum()
                }
            }
            best = max(best, Double(bytes) / seconds)
        }
        withExtendedLifetime(memory) {}
        return best
    }
}
