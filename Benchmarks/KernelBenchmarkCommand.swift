import Foundation
import PocketGGUF
import PocketKernels

/// `pocket-bench kernels`: each format's dot-product kernels on one thread, portable Swift SIMD
/// against this build's per-ISA kernel, in alternating rounds so both see the same machine.
///
/// A 256-row matrix of random blocks (rows of 4096 weights, 0.3–1.1 MB) is multiplied four
/// times with one activation vector (`dot`, decode) and with four (`dot4`, prefill). Rates are
/// G weights per second, best of the rounds; the matrix stays in the caches, so this measures
/// the kernels' arithmetic, not memory bandwidth. Formats whose kernel reads row groups
/// (``RowGroups``) are measured a third time on the matrix repacked that way, the layout the
/// model's products use.
enum KernelBenchmarkCommand {
    static func run(_ arguments: [String]) throws {
        var rounds = 5
        var i = 0
        while i < arguments.count {
            switch arguments[i] {
            case "--rounds":
                guard i + 1 < arguments.count, let r = Int(arguments[i + 1]), r > 0 else { throw BenchError.usage("--rounds needs a positive number") }
                rounds = r
                i += 2
            default: throw BenchError.usage("unknown option \(arguments[i])")
            }
        }
        print("kernel   portable dot  dot4    this build dot  dot4    row groups dot  dot4   (G weights/s, one thread, best of \(rounds))")
        /// Measures and prints the row of each format with an integer kernel.
        struct Row: BlockFormatVisitor {
            let rounds: Int
            func visit<F: BlockFormat>(plain format: F.Type) {}
            func visit<F: QuantizedDotFormat>(quantized format: F.Type) {
                let portable = KernelBenchmarkCommand.measure(F.self, .portable, rounds: rounds)
                let native = F.Kernel.self == F.self ? portable : KernelBenchmarkCommand.measure(F.self, .rows, rounds: rounds)
                let grouped = F.Kernel.self is any RowGroupKernel.Type
                    ? KernelBenchmarkCommand.measure(F.self, .rowGroups, rounds: rounds) : nil
                print(String(format: "%-8@ %8.1f %6.1f        %8.1f %6.1f%@", F.type.name as NSString, portable.0, portable.1,
                             native.0, native.1, (F.Kernel.self == F.self ? "  (portable)" : "") as NSString)
                      + (grouped.map { String(format: "        %8.1f %6.1f", $0.0, $0.1) } ?? ""))
            }
        }
        for type in GGMLType.allCases { _ = BlockFormats.visit(type, Row(rounds: rounds)) }
    }

    /// What ``measure(_:_:rounds:)`` times.
    enum Path {
        /// The portable kernel, called directly.
        case portable
        /// This build's kernel through `MatrixMultiply` on one thread: the path the model runs,
        /// specialized per kernel where the kernel table is.
        case rows
        /// As `rows`, on the matrix repacked into ``RowGroups``.
        case rowGroups
    }

    /// (dot, dot4) rates on random rows of format `F` along `path`, with one and four
    /// activation vectors (the activations are quantized once, outside the timing).
    static func measure<F: QuantizedDotFormat>(_ format: F.Type, _ path: Path, rounds: Int) -> (Double, Double) {
        let portable = path == .portable
        let columns = 4096, rows = 256, passes = 4
        let rowBytes = F.type.byteCount(elements: columns)!
        let bytes = randomBlocks(byteCount: rows * rowBytes)
        defer { bytes.deallocate() }
        let x = (0..<(4 * columns)).map { Float(($0 * 7919) % 255) / 127 - 1 }
        let one = Q8Activations(), four = Q8Activations()
        x.withUnsafeBufferPointer { one.quantize($0.baseAddress!, tokens: 1, columns: columns) }
        x.withUnsafeBufferPointer { four.quantize($0.baseAddress!, tokens: 4, columns: columns) }
        var weights = try! WeightMatrix(type: F.type, rows: rows, columns: columns, data: bytes, byteCount: rows * rowBytes)
        if path == .rowGroups { weights = weights.withRowGroups() }
        let pool = ThreadPool(threads: 1)
        var y = [Float](repeating: 0, count: 4 * rows)
        var sink: Float = 0
        var best = (0.0, 0.0)
        for _ in 0..<rounds {
            let single = Machine.time {
                for _ in 0..<passes {
                    if portable {
                        let v = one.vector(token: 0)
                        for r in 0..<rows { sink += F.dot(row: bytes + r * rowBytes, v, blocks: columns / 32) }
                    } else {
                        MatrixMultiply.multiply(weights, x, tokens: 1, into: &y, scratch: one, pool: pool, inputUnchanged: true)
                        sink += y[0]
                    }
                }
            }
            let batch = Machine.time {
                for _ in 0..<passes {
                    if portable {
                        let v = (four.vector(token: 0), four.vector(token: 1), four.vector(token: 2), four.vector(token: 3))
                        for r in 0..<rows { sink += F.dot4(row: bytes + r * rowBytes, v, blocks: columns / 32).sum() }
                    } else {
                        MatrixMultiply.multiply(weights, x, tokens: 4, into: &y, scratch: four, pool: pool, inputUnchanged: true)
                        sink += y[0]
                    }
                }
            }
            best = (max(best.0, Double(passes * rows * columns) / single / 1e9), max(best.1, Double(4 * passes * rows * columns) / batch / 1e9))
        }
        if sink.isNaN { FileHandle.standardError.write(Data("(NaN)\n".utf8)) }
        return best
    }

    /// `byteCount` bytes of random blocks (64-byte aligned; the caller deallocates them), every
    /// fp16 field finite.
    static func randomBlocks(byteCount: Int) -> UnsafeMutableRawPointer {
        let bytes = UnsafeMutableRawPointer.allocate(byteCount: byteCount, alignment: 64)
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for k in 0..<byteCount {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            bytes.storeBytes(of: UInt8(truncatingIfNeeded: state >> 33), toByteOffset: k, as: UInt8.self)
        }
        // Keep every fp16 field finite: a byte pattern with exponent 31 would be NaN or infinite.
        for k in stride(from: 1, to: byteCount, by: 2) {
            let byte = bytes.load(fromByteOffset: k, as: UInt8.self)
            bytes.storeBytes(of: byte & 0x3B, toByteOffset: k, as: UInt8.self)
        }
        return bytes
    }
}
