/// The options, flags and positional values given to one command.
struct ParsedArguments: Sendable {
    /// The command path, e.g. `["signinsim", "jwt", "sign"]`.
    var commandPath: [String]
    var values: [String: [String]] = [:]
    var flags: Set<String> = []
    var positionals: [String] = []

    func value(_ long: String) -> String? { values[long]?.last }
    func allValues(_ long: String) -> [String] { values[long] ?? [] }
    func flag(_ long: String) -> Bool { flags.contains(long) }
    func positional(_ index: Int) -> String? {
        positionals.indices.contains(index) ? positionals[index] : nil
    }

    /// An option the parser made required: its value, or the parser's usage error should a
    /// command ever be declared without `required: true`.
    func requiredValue(_ long: String) throws(UsageError) -> String {
        guard let text = value(long) else { throw UsageError("Missing expected argument '--\(long)'") }
        return text
    }

    /// A positional argument the parser made required: its value, or a usage error.
    func requiredPositional(_ index: Int, name: String) throws(UsageError) -> String {
        guard let text = positional(index) else { throw UsageError("Missing expected argument '<\(name)>'") }
        return text
    }

    /// An integer option, or a usage error naming the option.
    func integer(_ long: String, valueName: String) throws(UsageError) -> Int64? {
        guard let text = value(long) else { return nil }
        guard let number = Int64(text) else {
            throw UsageError(
                "The value '\(text)' is invalid for '--\(long) <\(valueName)>': expected an integer")
        }
        return number
    }

    /// `--seed <n>`: a seed for reproducible randomness, or `nil` when not given.
    func seed() throws(UsageError) -> UInt64? {
        guard let seed = try integer("seed", valueName: "n") else { return nil }
        guard seed >= 0 else { throw UsageError("The value for '--seed <n>' must not be negative") }
        return UInt64(seed)
    }
}

/// A command-line mistake: reported as `Error: …` plus the usage line, exit 64.
struct UsageError: Error, Sendable {
    let message: String
    init(_ message: String) { self.message = message }
}

/// A failure of the work itself: reported as `Error: …`, exit 1 (or the given code).
struct CommandFailure: Error, Sendable {
    let message: String
    let exitCode: ExitCode
    init(_ message: String, exitCode: ExitCode = .failure) {
        self.message = message
        self.exitCode = exitCode
    }
}
