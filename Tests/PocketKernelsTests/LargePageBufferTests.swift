import Foundation
import Testing
@testable import PocketKernels

@Suite struct LargePageBufferTests {
    @Test func bytesAreZeroedAndWritableToTheEnd() {
        for count in [0, 1, 4095, 4096, 3 << 20, (5 << 20) + 123] {
            let buffer = LargePageBuffer(byteCount: count)
            #expect(buffer.byteCount == count)
            let bytes = buffer.baseAddress.assumingMemoryBound(to: UInt8.self)
            #expect((0..<count).allSatisfy { bytes[$0] == 0 }, "\(count) bytes not zeroed")
            for i in stride(from: 0, to: count, by: 4096) { bytes[i] = UInt8(truncatingIfNeeded: i / 4096 + 1) }
            if count > 0 { bytes[count - 1] = 0xAB }
            #expect(count == 0 || bytes[count - 1] == 0xAB)
            #expect((0..<count / 4096).allSatisfy { i in i * 4096 == count - 1 || bytes[i * 4096] == UInt8(truncatingIfNeeded: i + 1) })
        }
    }

    #if os(Linux)
    @Test func startsOnALargePageBoundary() {
        let buffer = LargePageBuffer(byteCount: 3 << 20)
        #expect(Int(bitPattern: buffer.baseAddress) % LargePageBuffer.largePageBytes == 0)
    }

    /// Where the kernel offers transparent huge pages, a buffer of two large pages, once
    /// touched, is backed by at least one: the reason the buffer exists (decode streams the
    /// weights about twice as fast from them on the development machine).
    @Test func isBackedByLargePagesWhereTheSystemHasThem() throws {
        guard let mode = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8),
              !mode.contains("[never]") else { return }
        let buffer = LargePageBuffer(byteCount: 4 << 20)
        #expect(buffer.largePagesRequested)
        buffer.baseAddress.initializeMemory(as: UInt8.self, repeating: 1, count: buffer.byteCount)
        let kilobytes = try #require(anonymousHugePageKilobytes(containing: buffer.baseAddress))
        #expect(kilobytes >= 2048, "the buffer's mapping has \(kilobytes) kB of huge pages")
    }

    /// `AnonHugePages` of the mapping in /proc/self/smaps that contains `address`.
    private func anonymousHugePageKilobytes(containing address: UnsafeMutableRawPointer) -> Int? {
        // /proc files report a size of zero: read them to the end rather than by their size.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps"),
              let smaps = String(data: handle.readDataToEndOfFile(), encoding: .utf8) else { return nil }
        let target = UInt(bitPattern: Int(bitPattern: address))
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), fields.count >= 5 {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= target && target < bounds[1]
            } else if inside, fields.first == "AnonHugePages:", fields.count >= 2 {
                return Int(fields[1])
            }
        }
        return nil
    }
    #endif
}
