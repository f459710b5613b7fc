/// A minimal command-line parser: `--name value` options, `--flag` switches, short aliases
/// (`-n`), and positional arguments. Unknown options are errors, never silently ignored.
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `arguments` given the names that take a value and the names that are switches.
    ///
    /// - Parameters:
    ///   - valueOptions: Long names (without dashes) that take a value.
    ///   - switches: Long names that take none.
    ///   - aliases: Short forms, e.g. `["n": "tokens"]`.
    init(_ arguments: ArraySlice<String>, valueOptions: Set<String>, switches: Set<String>,
         aliases: [String: String] = [:]) throws(CLIError) {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--" { positionals += rest; break }
            guard argument.hasPrefix("-"), argument.count > 1, Double(argument) == nil else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.drop(while: { $0 == "-" }))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            name = aliases[name] ?? name
            if switches.contains(name) {
                flags.insert(name)
            } else if valueOptions.contains(name) {
                guard let value = inlineValue ?? rest.popFirst() else {
                    throw CLIError.usage("option --\(name) needs a value")
                }
                options[name] = value
            } else {
                throw CLIError.usage("unknown option \(argument)")
            }
        }
    }

    /// The value of option `name`, if given.
    func string(_ name: String) -> String? { options[name] }

    /// Option `name` as an integer within `range`.
    func integer(_ name: String, default value: Int, in range: ClosedRange<Int>) throws(CLIError) -> Int {
        guard let text = options[name] else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw CLIError.usage("--\(name) must be an integer in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// Option `name` as a float within `range`.
    func float(_ name: String, default value: Float, in range: ClosedRange<Float>) throws(CLIError) -> Float {
        guard let text = options[name] else { return value }
        guard let number = Float(text), range.contains(number) else {
            throw CLIError.usage("--\(name) must be a number in \(range.lowerBound)...\(range.upperBound), got '\(text)'")
        }
        return number
    }

    /// Whether switch `name` was given.
    func has(_ name: String) -> Bool { flags.contains(name) }
}

/// A failure reported to the user, with the exit status to use.
enum CLIError: Error, CustomStringConvertible {
    /// The command line is wrong (exit status 2).
    case usage(String)
    /// The input (arguments or standard input) cannot be used, such as invalid UTF-8
    /// (exit status 2, like a usage error, but without the usage text).
    case input(String)
    /// The command failed (exit status 1).
    case failure(String)

    var description: String {
        switch self {
        case .usage(let message), .input(let message), .failure(let message): message
        }
    }

    var exitStatus: Int32 {
        switch self {
        case .usage, .input: 2
        case .failure: 1
        }
    }
}
