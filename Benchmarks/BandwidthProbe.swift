import Foundation
import PocketKernels

#if canImport(Glibc)
import Glibc
#endif

/// Measures how fast this machine streams memory into the cores: every thread sums its share
/// of a buffer far larger than the caches. This is the ceiling for decode, which reads every
/// weight once per token.
///
/// On Linux the buffer sits on 2 MB pages where the kernel has them (transparent huge pages):
/// the same loop over small pages read 31–34 GB/s at moments when large pages gave 56–58 GB/s
/// on the development machine, so a small-page probe would understate the ceiling. (The
/// model's weights stay on small pages: on this virtual machine, decode measured no faster
/// from large pages, 0.92–1.03×; `docs/benchmarks.md`.)
enum BandwidthProbe {
    /// Read bandwidth in bytes per second with `pool`'s threads (best of `repetitions`).
    static func readBandwidth(pool: ThreadPool, bytes: Int = 1 << 30, repetitions: Int = 5) -> Double {
        let count = bytes / MemoryLayout<SIMD16<Float>>.stride
        let memory = Buffer(byteCount: count * MemoryLayout<SIMD16<Float>>.stride)
        defer { memory.release() }
        let buffer = memory.start.bindMemory(to: SIMD16<Float>.self, capacity: count)
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
        return best
    }

    /// The probe's memory: on Linux an anonymous mapping whose start is 2 MB-aligned and
    /// advised `MADV_HUGEPAGE` before its first touch; elsewhere (or if mapping fails) the heap.
    struct Buffer {
        static let largePage = 2 << 20
        let start: UnsafeMutableRawPointer
        private let mapped: (base: UnsafeMutableRawPointer, length: Int)?

        init(byteCount: Int) {
            #if os(Linux)
            let length = byteCount + Self.largePage
            if let base = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
               base != UnsafeMutableRawPointer(bitPattern: -1) {
                let aligned = (Int(bitPattern: base) + Self.largePage - 1) / Self.largePage * Self.largePage
                start = UnsafeMutableRawPointer(bitPattern: aligned)!
                _ = madvise(start, byteCount, Int32(MADV_HUGEPAGE))
                mapped = (base, length)
                return
            }
            #endif
            start = .allocate(byteCount: byteCount, alignment: 64)
            mapped = nil
        }

        func release() {
            #if os(Linux)
            if let mapped { munmap(mapped.base, mapped.length); return }
            #endif
            start.deallocate()
        }
    }
}
