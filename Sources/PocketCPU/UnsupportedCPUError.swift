import Foundation

/// This build of Pocket needs CPU instructions the running CPU lacks (a Pocket addition).
///
/// Thrown where the alternative is an illegal-instruction crash; its description names the
/// missing features and how to get a build that runs. A class, so that throwing and passing it
/// on copies a pointer: code compiled for another CPU may hold it (see ``CPUFeatures``).
public final class UnsupportedCPUError: Error, LocalizedError, CustomStringConvertible, Equatable, Sendable {
    /// The instruction-set tier the build was compiled with.
    public let tier: InstructionSetTier
    /// The features the build requires.
    public let required: CPUFeatureSet
    /// The required features the CPU lacks; never empty.
    public let missing: CPUFeatureSet
    /// The fastest tier the CPU runs (``InstructionSetTier/fastest(for:)``), for the advice.
    public let fastestSupportedTier: InstructionSetTier

    /// The error for a build compiled for `required` with `tier`, on a CPU that lacks `missing`
    /// and whose fastest tier is `fastestSupportedTier`.
    public init(tier: InstructionSetTier, required: CPUFeatureSet, missing: CPUFeatureSet,
                fastestSupportedTier: InstructionSetTier) {
        self.tier = tier
        self.required = required
        self.missing = missing
        self.fastestSupportedTier = fastestSupportedTier
    }

    /// Whether the two errors report the same build and CPU.
    public static func == (lhs: UnsupportedCPUError, rhs: UnsupportedCPUError) -> Bool {
        lhs.tier == rhs.tier && lhs.required == rhs.required && lhs.missing == rhs.missing
            && lhs.fastestSupportedTier == rhs.fastestSupportedTier
    }

    /// What is wrong: the build's features and the missing ones.
    public var errorDescription: String? { text(writeProblem) }

    /// What to do: rebuild on this machine, or for its tier elsewhere, or as a dependency.
    public var recoverySuggestion: String? { text(writeRemedy) }

    /// The problem and the remedy, as one message.
    public var description: String { text(writeMessage) }

    /// Writes the message in pieces, without building a string: ``CPUFeatures`` writes it
    /// to standard error this way on CPUs the rest of the binary may not run on.
    func writeMessage(_ write: (StaticString) -> Void) {
        writeProblem(write)
        write(" ")
        writeRemedy(write)
    }

    private func writeProblem(_ write: (StaticString) -> Void) {
        write("This build of Pocket (instruction-set tier ")
        write(tier.staticName)
        write(") was compiled for a CPU with ")
        Self.writeNames(of: required, write)
        write("; this CPU lacks ")
        Self.writeNames(of: missing, write)
        write(".")
    }

    private func writeRemedy(_ write: (StaticString) -> Void) {
        write("Rebuild Pocket on this machine (a root build, `swift build -c release` in its checkout, compiles for the CPU it ")
        write("builds on), or build it elsewhere for this CPU with POCKET_TARGET_CPU=")
        write(fastestSupportedTier.targetCPU)
        write(" POCKET_ISA=")
        write(fastestSupportedTier.staticName)
        write(", or use Pocket as a package dependency (compiled for any x86-64 CPU).")
    }

    /// The names of `features`, comma-separated, in ``CPUIDFeatureBit/table`` order.
    private static func writeNames(of features: CPUFeatureSet, _ write: (StaticString) -> Void) {
        var first = true
        for entry in CPUIDFeatureBit.table where features.rawValue & entry.feature.rawValue != 0 {
            if !first { write(", ") }
            write(entry.staticName)
            first = false
        }
    }

    private func text(_ pieces: ((StaticString) -> Void) -> Void) -> String {
        var text = ""
        pieces { text += $0.description }
        return text
    }
}
