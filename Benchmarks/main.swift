import Foundation
import PocketKernels

// `pocket-bench`: throughput and memory of Pocket's engine.
//
//   pocket-bench [--model PATH ...] [--threads N] [--repetitions R] [--depth N] [--json] [--prefetch D,...]
//   pocket-bench synth [--output PATH]
//
// Results go to stdout (a table per model, or JSON); progress to stderr.

// First of all: a build for a CPU this one is not refuses here, rather than crash later on an
// instruction the CPU lacks.
CPUFeatures.exitUnlessSupported(messagePrefix: "pocket-bench: ")

let benchUsage = """
    usage: pocket-bench [--model PATH ...] [--threads N] [--repetitions R] [--depth N] [--json] [--prefetch D,...]
           pocket-bench synth [--output PATH]      write the synthetic 3B Q2_K model (random weights)
           pocket-bench grammar [--model PATH] [--json]  grammar mask and compile timings ($POCKET_MODEL)
           pocket-bench kernels [--rounds N]       dot-product kernels, portable against this build's
           pocket-bench products [--threads N] [--rounds N] [--verbose] [--prefetch D,...]
                                                    matrix products alone: decode streamed from memory
                                                    against the bandwidth probe, prefill of 512 vectors
           pocket-bench shortcuts [--model PATH] [--rounds N] [--json] [--show]
                                                    forced tokens and prompt lookup in sessions: a
                                                    @Generable card and a quoting reply, on and off

    Without --model: the default model, its q2_K requantization (written with Pocket's quantizer
    when missing) and the synthetic 3B Q2_K model, each if present in Weights/ (missing ones are
    listed with the command that creates them). --depth N measures prefill and decode
    after N tokens already in the cache, as llama-bench's -d N (long-context attention).
    Decode is reported against the memory bandwidth probed just before and after it. With
    POCKET_BENCH_LOG=FILE set, each model's full result is also appended to FILE as a JSON line.
    --prefetch D,... (for example 0,2048; formerly --read-ahead) times only decode (tg128, or
    the products of one vector) at each prefetch distance in bytes (ColumnPrefetch's: how far
    ahead each weight column asks for cache lines; 0: off), in turns within one process.
    """

var arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "synth": try SyntheticModelCommand.run(Array(arguments.dropFirst()))
    case "grammar": try GrammarBenchmarkCommand.run(Array(arguments.dropFirst()))
    case "kernels": try KernelBenchmarkCommand.run(Array(arguments.dropFirst()))
    case "products": try MatrixProductCommand.run(Array(arguments.dropFirst()))
    case "shortcuts": try ShortcutsBenchmarkCommand.run(Array(arguments.dropFirst()))
    case "-h", "--help", "help": print(benchUsage)
    default: try ThroughputCommand.run(arguments)
    }
} catch let error as BenchError {
    FileHandle.standardError.write(Data("pocket-bench: \(error.message)\n".utf8))
    exit(error.isUsage ? 2 : 1)
} catch {
    FileHandle.standardError.write(Data("pocket-bench: \(error)\n".utf8))
    exit(1)
}

/// A failure with the message to print.
struct BenchError: Error {
    var message: String
    var isUsage = false
    static func usage(_ message: String) -> BenchError { BenchError(message: message + "\n\n" + benchUsage, isUsage: true) }
}
