import Foundation
import PocketGGUF
import PocketKernels
import PocketQuantizer
import PocketTokenizer
import PocketTransformer

/// `pocket quantize IN OUT --type T [--pure | --bpw B] [--calibration FILE | --no-calibration] [--threads N]`:
/// re-encodes a GGUF model.
///
/// Unless `--pure` or `--no-calibration`, the model first runs on a calibration text (the
/// built-in ``CalibrationText/default`` or `--calibration FILE`) to collect the column
/// importances the encoders weight errors by (``ImportanceMatrix``). Without `--pure`:
/// - `--bpw B`: the size-budgeted planner (``QuantizationPlanner``) fits B bits per weight over
///   all tensors, on the ladder of the target's family (k-quants, or i-quants for `iq*`);
/// - otherwise, for `q2_k` and `q3_k` the same planner within the size of llama.cpp's mix, and
///   for the i-quant targets llama.cpp's mix itself (``ReferenceMix``).
///
/// A plan is printed before anything is written.
///
/// A progress bar goes to stderr; the plan, the per-tensor table and the totals go to stdout.
enum QuantizeCommand {
    static func run(_ argv: ArraySlice<String>) throws {
        let arguments = try Arguments(argv, valueOptions: ["type", "threads", "calibration", "bpw"], switches: ["pure", "no-calibration"])
        guard arguments.positionals.count == 2 else {
            throw CLIError.usage("quantize needs an input and an output path: pocket quantize IN.gguf OUT.gguf --type T")
        }
        guard let typeName = arguments.string("type") else {
            throw CLIError.usage("quantize needs --type (\(QuantizationTarget.allCases.map(\.name).joined(separator: ", ")))")
        }
        let target: QuantizationTarget
        do { target = try QuantizationTarget(parsing: typeName) } catch { throw CLIError.usage(error.description) }
        let threads = try arguments.integer("threads", default: ThreadPool.defaultThreadCount, in: 1...1024)
        let (inputPath, outputPath) = (arguments.positionals[0], arguments.positionals[1])
        let recipe = QuantizationRecipe(target: target, pure: arguments.has("pure"))
        if arguments.has("no-calibration") && arguments.string("calibration") != nil {
            throw CLIError.usage("--calibration and --no-calibration exclude each other")
        }
        let calibrate = arguments.string("calibration") != nil || !(recipe.pure || arguments.has("no-calibration"))
        let bitsPerWeight: Float? = arguments.string("bpw") == nil ? nil : try arguments.float("bpw", default: 0, in: 0.5...32)
        if bitsPerWeight != nil && recipe.pure { throw CLIError.usage("--bpw and --pure exclude each other") }

        let summary: QuantizationSummary
        do {
            let pool = ThreadPool(threads: threads)
            let file: GGUFFile
            do { file = try GGUFFile(contentsOf: URL(fileURLWithPath: inputPath)) } catch {
                throw QuantizationError.unreadableInput(path: inputPath, reason: error.description)
            }
            // Before the calibration run and the encoding, not after them.
            try ModelQuantizer.checkDestination(URL(fileURLWithPath: outputPath))
            let importance = calibrate ? try collectImportance(file, calibration: arguments.string("calibration"), pool: pool) : nil
            var types: [String: GGMLType] = [:]
            if let bitsPerWeight {
                let budget = QuantizationPlanner.budget(of: file, bitsPerWeight: Double(bitsPerWeight))
                if let plan = try QuantizationPlanner.plan(input: file, target: target, importance: importance, budget: budget, pool: pool) {
                    printPlan(plan, budget: String(format: "%.3g bits per weight", bitsPerWeight))
                    types = plan.types
                }
            } else if !recipe.pure && ReferenceMix.iQuantTargets.contains(target.type) {
                types = ReferenceMix.types(of: file, target: target) ?? [:]
            } else if !recipe.pure, let plan = try QuantizationPlanner.plan(input: file, target: target, importance: importance, pool: pool) {
                printPlan(plan, budget: "llama.cpp's mix")
                types = plan.types
            }
            let quantizer = try ModelQuantizer(input: file, recipe: recipe, importance: importance, types: types)
            Log.info("pocket: quantizing \(inputPath) to \(target.name)\(recipe.pure ? " (pure)" : "")"
                     + "\(importance == nil ? "" : " (importance-weighted)") with \(threads) threads")
            var bar = ProgressBar()
            summary = try quantizer.write(to: URL(fileURLWithPath: outputPath), pool: pool) {
                bar.update($0, of: $1)
            }
            bar.finish()
        } catch let error as QuantizationError {
            throw CLIError.failure(error.description)
        } catch {
            throw CLIError.failure("\(error)")
        }
        printTable(summary)
    }

    /// Runs the model over the calibration text (`path`, or the built-in one) and returns its
    /// column statistics; logs the time taken.
    static func collectImportance(_ file: GGUFFile, calibration path: String?, pool: ThreadPool) throws -> ImportanceMatrix {
        let text = try path.map { path throws(QuantizationError) in try CalibrationText(contentsOf: URL(fileURLWithPath: path)) } ?? .default
        let started = ContinuousClock.now
        let model: Transformer, tokenizer: Tokenizer
        do {
            model = try Transformer(file: file, contextLength: 512, pool: pool)
            tokenizer = try Tokenizer(gguf: file)
        } catch {
            throw QuantizationError.calibrationFailed(reason: "\(error)")
        }
        var bar = ProgressBar()
        Log.info("pocket: collecting activation statistics on \(text.name)")
        let tokens = tokenizer.encode(text.text, parseSpecial: false)
        let bos = tokenizer.addsBOS ? tokenizer.bosToken : nil
        let matrix = try ImportanceMatrix.collect(model: model, tokens: tokens, beginningOfSequence: bos) { bar.update($0, of: $1) }
        bar.finish()
        Log.info(String(format: "pocket: %d calibration tokens, %.1f s", matrix.tokenCount, (ContinuousClock.now - started).seconds))
        return matrix
    }

    /// The budgeted plan, on stdout: one line per tensor (type, bytes, estimated error) and the
    /// totals against the budget.
    static func printPlan(_ plan: QuantizationPlan, budget: String) {
        let nameWidth = max(6, plan.entries.map(\.name.count).max() ?? 0)
        func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
            let padding = String(repeating: " ", count: max(0, width - text.count))
            return right ? padding + text : text + padding
        }
        print("plan: " + pad("tensor", nameWidth) + "  " + pad("type", 5) + "  " + pad("bytes", 10, right: true)
              + "  " + pad("est. error", 10, right: true))
        for entry in plan.entries {
            print("plan: " + pad(entry.name, nameWidth) + "  " + pad(entry.type.name, 5) + "  "
                  + pad(String(entry.bytes), 10, right: true) + "  " + pad(String(format: "%.3e", entry.error), 10, right: true))
        }
        print(String(format: "plan: %d bytes of tensor data within a budget of %d", plan.byteCount, plan.budget)
              + " (\(budget))" + String(format: ", estimated error %.4f", plan.expectedError))
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
            print("* rows are not a multiple of the requested type's block: fallback q2_K/q3_K -> q4_0, q4_K -> q5_0, q6_K -> q8_0, i-quants -> iq4_nl")
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
