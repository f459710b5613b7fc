import Foundation
import PocketKernels
import PocketTransformer

/// `pocket quantize IN OUT --type T [--pure] [--threads N]`: re-encodes a GGUF model.
///
/// A progress bar goes to stderr; the per-tensor table and the totals go to stdout.
enum QuantizeCommand {
    static func run(_ argv: ArraySlice<String>) throws {
        let arguments = try Arguments(argv, valueOptions: ["type", "threads"], switches: ["pure"])
        guard arguments.positionals.count == 2 else {
            throw CLIError.usage("quantize needs an input and an output path: pocket quantize IN.gguf OUT.gguf --type T")
        }
        guard let typeName = arguments.string("type") else {
            throw CLIError.usage("quantize needs --type (\(QuantizationTarget.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        let target: QuantizationTarget
        do { target = try QuantizationTarget(parsing: typeName) } catch { throw CLIError.usage(error.description) }
        let threads = try arguments.integer("threads", default: ThreadPool.defaultThreadCount, in: 1...1024)
        let (inputPath, outputPath) = (arguments.positionals[0], arguments.positionals[1])
        let recipe = QuantizationRecipe(target: target, pure: arguments.has("pure"))

        let summary: QuantizationSummary
        do {
            let quantizer = try ModelQuantizer(input: URL(fileURLWithPath: inputPath), recipe: recipe)
            Log.info("pocket: quantizing \(inputPath) to \(target.rawValue)\(recipe.pure ? " (pure)" : "") with \(threads) threads")
            var bar = ProgressBar()
            summary = try quantizer.write(to: URL(fileURLWithPath: outputPath), pool: ThreadPool(threads: threads)) {
                bar.update($0, of: $1)
            }
            bar.finish()
        } catch {
            throw CLIError.failure(error.description)
        }
        printTable(summary)
    }

    /// The per-tensor table and the totals, on stdout.
    static func printTable(_ summary: QuantizationSummary) {
        let nameWidth = max(6, summary.tensors.map(\.plan.name.count).max() ?? 0)
        func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
            let padding = String(repeating: " ", count: max(0, width - text.count))
            return right ? padding + text : text + padding
        }
        print(pad("tensor", nameWidth) + "  " + pad("shape", 12) + "  " + pad("input", 5) + " -> "
              + pad("output", 7) + "  " + pad("bytes", 10, right: true) + "  " + pad("rms error", 10, right: true)
              + "  " + pad("relative", 8, right: true))
        var fallbacks = false
        for report in summary.tensors {
            let plan = report.plan
            let shape = plan.dimensions.map(String.init).joined(separator: "x")
            let output = plan.outputType.name + (plan.choice.isFallback ? "*" : "")
            fallbacks = fallbacks || plan.choice.isFallback
            let relative = report.inputRMS > 0 ? String(format: "%.2f%%", 100 * report.rmsError / report.inputRMS) : "-"
            print(pad(plan.name, nameWidth) + "  " + pad(shape, 12) + "  " + pad(plan.inputType.name, 5) + " -> "
                  + pad(output, 7) + "  " + pad(String(plan.outputByteCount), 10, right: true) + "  "
                  + pad(String(format: "%.3e", report.rmsError), 10, right: true) + "  " + pad(relative, 8, right: true))
        }
        if fallbacks {
            print("* rows are not a multiple of the requested type's block: fallback q2_K/q3_K -> q4_0, q4_K -> q5_0, q6_K -> q8_0")
        }
        print(String(format: "total: %d tensors, %d weights, %d bytes (%.2f MiB), %.4f bits/weight, %.1f s",
                     summary.tensors.count, summary.elementCount, summary.fileByteCount,
                     Double(summary.fileByteCount) / 1_048_576, summary.bitsPerWeight, summary.seconds))
    }
}

/// A one-line progress bar on stderr, redrawn when the percentage changes.
struct ProgressBar {
    private var shown = -1
    private let width = 40

    mutating func update(_ done: Int, of total: Int) {
        let percent = total > 0 ? 100 * done / total : 100
        guard percent != shown else { return }
        shown = percent
        let filled = width * percent / 100
        Log.info("\r[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
                 + "] \(percent)%", newline: false)
    }

    func finish() { Log.info("") }
}
