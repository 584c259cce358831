/// The options, flags and positional values given to one command.
///
/// Options are read through their declarations (`arguments.value(Options.issuer)`), never by
/// name, as swift-argument-parser's property wrappers are: a typo cannot compile, and reading
/// an option the running command does not declare stops the program (a programmer error).
struct ParsedArguments: Sendable {
    /// The command path, e.g. `["signinsim", "jwt", "sign"]`.
    var commandPath: [String]
    /// The long names of the options and flags the command declares; the readers check them.
    private(set) var declaredOptions: Set<String>
    /// Each option's values, in the order given, by long name: read through the declarations.
    private var values: [String: [String]] = [:]
    /// The flags given, by long name: read through the declarations.
    private var flags: Set<String> = []
    var positionals: [String] = []

    /// Arguments for the command at `commandPath`, which declares `options`.
    init(commandPath: [String], declaring options: [OptionSpec]) {
        self.commandPath = commandPath
        self.declaredOptions = Set(options.map(\.long))
    }

    /// Records a value given for `option` (the parser's side).
    mutating func record(_ value: String, for option: OptionSpec) {
        values[declared(option), default: []].append(value)
    }

    /// Records that the flag `option` was given (the parser's side).
    mutating func record(flag option: OptionSpec) {
        flags.insert(declared(option))
    }

    /// Whether the command declares `option`: for readers shared by commands that declare
    /// different sets (the authorization request options of `sign-in`, not `apple-sign-in`).
    func declares(_ option: OptionSpec) -> Bool {
        declaredOptions.contains(option.long)
    }

    /// Every option given, by long name in alphabetical order, with its values: the command
    /// line as reports echo it (`RunCommand.displayed`), not a way to read one option.
    var givenOptions: [(name: String, values: [String])] {
        values.keys.sorted().map { ($0, values[$0] ?? []) }
    }

    /// Every flag given, by long name in alphabetical order (as `givenOptions`).
    var givenFlags: [String] { flags.sorted() }

    /// Whether `option` was given at least once.
    func contains(_ option: OptionSpec) -> Bool {
        option.isFlag ? flags.contains(declared(option)) : values[declared(option)] != nil
    }

    /// The option's value (the last one, should it be given twice), or `nil`.
    func value(_ option: OptionSpec) -> String? {
        precondition(!option.isFlag, "'--\(option.long)' is a flag: read it with flag(_:)")
        return values[declared(option)]?.last
    }

    /// Every value of a repeatable option, in the order given.
    func allValues(_ option: OptionSpec) -> [String] {
        precondition(!option.isFlag, "'--\(option.long)' is a flag: read it with flag(_:)")
        return values[declared(option)] ?? []
    }

    /// Whether the flag was given.
    func flag(_ option: OptionSpec) -> Bool {
        precondition(option.isFlag, "'--\(option.long)' takes a value: read it with value(_:)")
        return flags.contains(declared(option))
    }

    func positional(_ index: Int) -> String? {
        positionals.indices.contains(index) ? positionals[index] : nil
    }

    /// An option the parser made required: its value, or the parser's usage error should a
    /// command ever be declared without `required: true`.
    func requiredValue(_ option: OptionSpec) throws(UsageError) -> String {
        guard let text = value(option) else {
            throw UsageError("Missing expected argument '--\(option.long)'")
        }
        return text
    }

    /// A positional argument the parser made required: its value, or a usage error.
    func requiredPositional(_ index: Int, name: String) throws(UsageError) -> String {
        guard let text = positional(index) else { throw UsageError("Missing expected argument '<\(name)>'") }
        return text
    }

    /// An integer option, or a usage error naming the option as its declaration spells it.
    func integer(_ option: OptionSpec) throws(UsageError) -> Int64? {
        guard let text = value(option) else { return nil }
        guard let number = Int64(text) else {
            throw UsageError("The value '\(text)' is invalid for '\(option.synopsis)': expected an integer")
        }
        return number
    }

    /// A seed for reproducible randomness from the `--seed <n>` option `option` (each command
    /// words its help), or `nil` when not given.
    func seed(_ option: OptionSpec) throws(UsageError) -> UInt64? {
        guard let seed = try integer(option) else { return nil }
        guard seed >= 0 else { throw UsageError("The value for '\(option.synopsis)' must not be negative") }
        return UInt64(seed)
    }

    /// `option`'s long name, once it is known to be one of the command's: reading an option the
    /// command does not declare is a programmer error, caught as swift-argument-parser does.
    private func declared(_ option: OptionSpec) -> String {
        precondition(
            declaredOptions.contains(option.long),
            "'--\(option.long)' is not declared by '\(commandPath.joined(separator: " "))'")
        return option.long
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
