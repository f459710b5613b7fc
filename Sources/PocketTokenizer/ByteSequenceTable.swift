/// The token of each byte sequence of a byte-level vocabulary: an open-addressing hash table
/// over one buffer of all the sequences' bytes.
///
/// Building a tokenizer looks sequences up about 450,000 times (each of ~150,000 merge rules
/// asks for its two parts and their concatenation). A `Dictionary` keyed by `[UInt8]` spent
/// most of a model's tokenizer set-up there: an array per key, reference counting on every
/// comparison. Here a lookup hashes the bytes, reads one 64-bit slot (32 bits of the hash and
/// the entry) per probe, and compares bytes only when the hashes agree; nothing is allocated.
package struct ByteSequenceTable: Sendable {
    /// Every entry's bytes, one after the other.
    private var bytes: [UInt8] = []
    /// Entry e's bytes are `bytes[starts[e]..<starts[e + 1]]`.
    private var starts: [Int32] = [0]
    /// Entry e's token.
    private var tokens: [Int32] = []
    /// `(hash >> 32) << 32 | (e + 1)` for entry e, 0 for an empty slot; a power of two long, at
    /// most half full.
    private var slots: [UInt64]

    /// An empty table with room for `capacity` entries.
    package init(capacity: Int) {
        var size = 16
        while size < 2 * capacity { size <<= 1 }
        slots = [UInt64](repeating: 0, count: size)
        tokens.reserveCapacity(capacity)
        starts.reserveCapacity(capacity + 1)
    }

    /// Number of entries.
    package var count: Int { tokens.count }

    /// Adds `sequence → token` unless the sequence is already there (the first token of a
    /// sequence wins, as the vocabulary's order decides).
    package mutating func insertIfAbsent(_ sequence: UnsafeBufferPointer<UInt8>, token: Int) {
        let (hash, i, entry) = find(sequence)
        guard entry == nil else { return }
        tokens.append(Int32(truncatingIfNeeded: token))
        bytes.append(contentsOf: sequence)
        starts.append(Int32(truncatingIfNeeded: bytes.count))
        slots[i] = (hash >> 32) << 32 | UInt64(tokens.count)
        if 2 * tokens.count > slots.count { grow() }
    }

    /// The token of `sequence`, if it is an entry.
    package func token(of sequence: UnsafeBufferPointer<UInt8>) -> Int? {
        find(sequence).entry.map { Int(tokens[$0]) }
    }

    /// The hash of `sequence` and its slot: the entry there, or the empty slot it would take.
    private func find(_ sequence: UnsafeBufferPointer<UInt8>) -> (hash: UInt64, slot: Int, entry: Int?) {
        let hash = Self.hash(sequence)
        var i = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while slots[i] != 0 {
            if matches(slots[i], hash, sequence) { return (hash, i, Int(slots[i] & 0xFFFF_FFFF) - 1) }
            i = (i + 1) & (slots.count - 1)
        }
        return (hash, i, nil)
    }

    /// The token of `sequence`, if it is an entry.
    package func token(of sequence: [UInt8]) -> Int? {
        sequence.withUnsafeBufferPointer { token(of: $0) }
    }

    /// Whether `slot` holds `sequence`, whose hash is `hash`.
    private func matches(_ slot: UInt64, _ hash: UInt64, _ sequence: UnsafeBufferPointer<UInt8>) -> Bool {
        guard slot >> 32 == hash >> 32 else { return false }
        let e = Int(slot & 0xFFFF_FFFF) - 1
        let start = Int(starts[e]), end = Int(starts[e + 1])
        guard end - start == sequence.count else { return false }
        return bytes.withUnsafeBufferPointer { all in
            for k in 0..<sequence.count where all[start + k] != sequence[k] { return false }
            return true
        }
    }

    /// Doubles the slots and places every entry again.
    private mutating func grow() {
        var larger = [UInt64](repeating: 0, count: 2 * slots.count)
        for slot in slots where slot != 0 {
            let e = Int(slot & 0xFFFF_FFFF) - 1
            let hash = bytes.withUnsafeBufferPointer { all in
                Self.hash(UnsafeBufferPointer(rebasing: all[Int(starts[e])..<Int(starts[e + 1])]))
            }
            var i = Int(truncatingIfNeeded: hash) & (larger.count - 1)
            while larger[i] != 0 { i = (i + 1) & (larger.count - 1) }
            larger[i] = slot
        }
        slots = larger
    }

    /// 64-bit FNV-1a of the bytes, its bits mixed (the low bits choose the slot, the high 32
    /// are kept in it). Not keyed: only the vocabulary inserts, and text only looks up, so
    /// no input can lengthen a probe chain.
    private static func hash(_ sequence: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in sequence { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        h ^= h >> 31
        h &*= 0x7FB5_D329_728E_A185
        return h ^ h >> 27
    }
}
