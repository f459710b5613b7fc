@testable import PocketKernels
import Testing

/// The prefetch requests' parts: whatever the column size and the number of steps a kernel spreads
/// its requests over, the parts ask for every line of the column, each line once.
@Suite struct ColumnPrefetchTests {
    /// The row-group column sizes of the formats whose one-vector products prefetch (Q4_0,
    /// Q4_1, Q5_0, Q5_1, Q8_0, Q2_K, Q4_K, Q6_K), and odd sizes around them.
    static let columnBytes = [Q4_0.groupColumnBytes, Q4_1.groupColumnBytes, Q5_0.groupColumnBytes, Q5_1.groupColumnBytes, Q8_0.groupColumnBytes,
                              Q2_K.groupColumnBytes, Q4_K.groupColumnBytes, Q6_K.groupColumnBytes, 1, 63, 64, 65, 4095]

    @Test(arguments: [1, 2, 3, 4, 8])
    func partsCoverEveryLineOnce(parts: Int) {
        for bytes in Self.columnBytes {
            var asked = [Int](repeating: 0, count: (bytes + 63) / 64 + 64)
            for part in 0..<parts {
                for line in ColumnPrefetch.lines(bytes: bytes, part: part, of: parts) { asked[line] += 1 }
            }
            let needed = (bytes + 63) / 64
            #expect(asked[0..<needed].allSatisfy { $0 == 1 }, "\(bytes) bytes in \(parts) parts: \(asked[0..<needed])")
            // At most one run's rounding past the column.
            #expect(asked[needed...].reduce(0, +) < parts, "\(bytes) bytes in \(parts) parts")
        }
    }

    /// A build that stopped prefetching would lose a fifth of the 3B's decode without any
    /// other test noticing.
    @Test func prefetchingIsOnByDefault() {
        #expect(ColumnPrefetch.distance >= 1024)
    }
}
