import Foundation
import PocketGGUF
import PocketTransformer

/// `pocket info`: what is inside a model file.
enum InfoCommand {
    static func run(_ argv: ArraySlice<String>) throws {
        let arguments = try Arguments(argv, valueOptions: ["model"], switches: [])
        guard arguments.positionals.isEmpty else {
            throw CLIError.usage("unexpected argument '\(arguments.positionals[0])'")
        }
        let url = try ModelLocator.locate(arguments.string("model"))
        let file: GGUFFile
        do { file = try GGUFFile(contentsOf: url) } catch { throw CLIError.failure("\(error)") }

        print("file: \(url.path)")
        print("GGUF version \(file.version), \(file.byteCount) bytes, \(file.tensors.count) tensors, alignment \(file.alignment)")
        do {
            let c = try ModelConfiguration(metadata: file.metadata)
            print("""
                architecture: \(c.architecture.rawValue)
                  layers \(c.layerCount), embedding \(c.embeddingLength), feed-forward \(c.feedForwardLength)
                  heads \(c.headCount) (key/value \(c.keyValueHeadCount)), head dimension \(c.headDimension)
                  RoPE base \(c.ropeFrequencyBase) over \(c.ropeDimensionCount) dims, RMS epsilon \(c.rmsNormEpsilon)
                  trained context \(c.trainedContextLength), vocabulary \(c.vocabularySize)
                """)
            if let window = c.slidingWindow {
                let local = (0..<c.layerCount).filter(c.isSlidingWindowLayer)
                print("  sliding window \(window) on \(local.count) of \(c.layerCount) layers (RoPE base \(c.ropeFrequencyBase(layer: local.first ?? 0)) there)")
            }
        } catch {
            print("architecture: \(file.architecture ?? "unknown") (not runnable: \(error))")
        }
        let parameters = file.tensors.reduce(0) { $0 + $1.elementCount }
        print(String(format: "parameters: %.1f M", Double(parameters) / 1e6))

        print("\nmetadata (\(file.metadata.keys.count) keys):")
        for key in file.metadata.keys {
            print("  \(key) = \(summary(file.metadata[key]!))")
        }

        print("\ntensors by type:")
        var byType: [GGMLType: (count: Int, bytes: Int, elements: Int)] = [:]
        for t in file.tensors {
            byType[t.type, default: (0, 0, 0)].count += 1
            byType[t.type]!.bytes += t.byteCount
            byType[t.type]!.elements += t.elementCount
        }
        for (type, entry) in byType.sorted(by: { $0.value.bytes > $1.value.bytes }) {
            print(String(format: "  %-6@ %5d tensors %10.2f MB  %.3f bits/weight",
                         type.name, entry.count, Double(entry.bytes) / 1e6,
                         Double(entry.bytes * 8) / Double(max(entry.elements, 1))))
        }
        print("\ntensors:")
        for t in file.tensors {
            let shape = t.dimensions.map(String.init).joined(separator: " × ")
            print("  \(t.name.padding(toLength: 28, withPad: " ", startingAt: 0)) \(t.type.name.padding(toLength: 6, withPad: " ", startingAt: 0)) \(shape)")
        }
    }

    /// A one-line rendering of a metadata value; long arrays are abbreviated.
    static func summary(_ value: GGUFValue) -> String {
        switch value {
        case .string(let s):
            let line = s.replacingOccurrences(of: "\n", with: "\\n")
            return line.count > 80 ? "\"\(line.prefix(77))...\" (\(s.utf8.count) bytes)" : "\"\(line)\""
        case .array(let items):
            let head = items.prefix(5).map(summary).joined(separator: ", ")
            return items.count > 5 ? "[\(head), ...] (\(items.count) items)" : "[\(head)]"
        case .bool(let b): return String(b)
        default:
            if let i = value.integerValue { return String(i) }
            if let f = value.floatValue { return String(f) }
            return "\(value)"
        }
    }
}
