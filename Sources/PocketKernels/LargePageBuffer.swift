#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Memory for data that is streamed from start to end over and over, such as repacked weights,
/// backed by 2 MB pages where the system allows it.
///
/// Decode reads every weight once per token, so it runs at the rate memory streams into the
/// cores. With 4 KB pages that rate is limited by address translation: the hardware
/// prefetchers stop at every page boundary and every 4 KB costs a TLB miss. On the development
/// machine (Zen 5, 2 threads) a plain read of 1 GB streams 31–34 GB/s from 4 KB pages and
/// 56–58 GB/s from 2 MB pages (`docs/kernels.md`, "Large pages").
///
/// On Linux the buffer is an anonymous mapping whose start is aligned to 2 MB and marked
/// `MADV_HUGEPAGE` before its first touch, so transparent huge pages back it whenever the
/// kernel has them to give (`/sys/kernel/mm/transparent_hugepage/enabled` set to `madvise`
/// or `always`); otherwise it is ordinary memory. The mapping is not rounded up to a whole
/// number of large pages: its tail past the last 2 MB boundary takes small pages, so the
/// buffer costs no more memory than its bytes. Elsewhere it is an ordinary allocation.
public final class LargePageBuffer: @unchecked Sendable {
    /// Size of a large page: the alignment of ``baseAddress``.
    public static let largePageBytes = 2 << 20

    /// First byte, aligned to ``largePageBytes`` on Linux and to 64 bytes elsewhere.
    public let baseAddress: UnsafeMutableRawPointer
    /// Usable bytes from ``baseAddress``; zero-filled at first.
    public let byteCount: Int
    /// Whether the system accepted the request for large pages (`madvise(MADV_HUGEPAGE)`).
    /// It then backs the buffer's 2 MB-aligned stretches with large pages when it has free
    /// ones; `false` on systems without them and off Linux.
    public let largePagesRequested: Bool
    /// Whether the bytes are a mapping of their own (unmapped on release) rather than heap memory.
    private let isMapping: Bool

    /// Reserves `byteCount` zeroed bytes (at least one byte is reserved).
    public init(byteCount: Int) {
        precondition(byteCount >= 0, "negative byte count")
        self.byteCount = byteCount
        #if os(Linux)
        if let (mapped, advised) = Self.mapAligned(max(byteCount, 1)) {
            baseAddress = mapped
            largePagesRequested = advised
            isMapping = true
            return
        }
        #endif
        baseAddress = .allocate(byteCount: max(byteCount, 1), alignment: 64)
        baseAddress.initializeMemory(as: UInt8.self, repeating: 0, count: max(byteCount, 1))
        largePagesRequested = false
        isMapping = false
    }

    deinit {
        #if os(Linux)
        if isMapping {
            munmap(baseAddress, Self.pageRounded(max(byteCount, 1)))
            return
        }
        #endif
        baseAddress.deallocate()
    }

    #if os(Linux)
    /// Bytes rounded up to whole small pages, the granularity of a mapping.
    private static func pageRounded(_ bytes: Int) -> Int {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        return (bytes + page - 1) / page * page
    }

    /// Maps `bytes` (rounded to small pages) at a 2 MB-aligned address and asks for large
    /// pages. Maps 2 MB more than needed, then returns the misaligned head and the unused tail
    /// to the system. `nil` when the mapping fails (the caller falls back to the heap); else
    /// the start and whether the advice was taken.
    private static func mapAligned(_ bytes: Int) -> (UnsafeMutableRawPointer, Bool)? {
        let length = pageRounded(bytes)
        let reserved = length + largePageBytes
        guard let raw = mmap(nil, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              raw != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        let address = Int(bitPattern: raw)
        let aligned = (address + largePageBytes - 1) / largePageBytes * largePageBytes
        let head = aligned - address
        if head > 0 { munmap(raw, head) }
        let tail = reserved - head - length
        if tail > 0 { munmap(UnsafeMutableRawPointer(bitPattern: aligned + length), tail) }
        let start = UnsafeMutableRawPointer(bitPattern: aligned)!
        // Advice only: an older kernel or one built without huge pages refuses it, and the
        // buffer works the same with small pages.
        return (start, madvise(start, length, Int32(MADV_HUGEPAGE)) == 0)
    }
    #endif
}
