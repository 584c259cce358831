/// A command of the `signinsim` tree, declared as data so that parsing, help and usage lines
/// all come from one description (the conventions of swift-argument-parser, hand-rolled
/// because no outside package can be fetched here).
struct CommandSpec: Sendable {
    typealias Run = @Sendable (ParsedArguments, CLIContext) async throws -> ExitCode

    var name: String
    var abstract: String
    var discussion: String?
    var options: [OptionSpec] = []
    var arguments: [ArgumentSpec] = []
    var subcommands: [CommandSpec] = []
    var run: Run?

    init(
        name: String, abstract: String, discussion: String? = nil, options: [OptionSpec] = [],
        arguments: [ArgumentSpec] = [], subcommands: [CommandSpec] = [], run: Run? = nil
    ) {
        self.name = name
        self.abstract = abstract
        self.discussion = discussion
        self.options = options
        self.arguments = arguments
        self.subcommands = subcommands
        self.run = run
    }

    func subcommand(named name: String) -> CommandSpec? {
        subcommands.first { $0.name == name }
    }
}

/// A named option (`--key <file>`) or flag (`--refresh`).
struct OptionSpec: Sendable {
    var long: String
    var short: Character?
    /// The value's placeholder; `nil` makes this a flag.
    var valueName: String?
    var help: String
    var isRequired = false
    var isRepeatable = false
    /// The only values accepted, when the option is an enumeration.
    var allowedValues: [String]?

    static func option(
        _ long: String, short: Character? = nil, value: String, help: String, required: Bool = false,
        repeatable: Bool = false, allowed: [String]? = nil
    ) -> OptionSpec {
        OptionSpec(
            long: long, short: short, valueName: value, help: help, isRequired: required,
            isRepeatable: repeatable,
            allowedValues: allowed)
    }

    static func flag(_ long: String, short: Character? = nil, help: String) -> OptionSpec {
        OptionSpec(long: long, short: short, valueName: nil, help: help)
    }

    var isFlag: Bool { valueName == nil }

    /// `--key <file>` as usage and help show it.
    var synopsis: String {
        valueName.map { "--\(long) <\($0)>" } ?? "--\(long)"
    }

    var helpLabel: String {
        let prefix = short.map { "-\($0), " } ?? ""
        return prefix + synopsis
    }

    /// What a shell offers for the option's value; nothing for a flag.
    var valueCompletion: ValueCompletion {
        valueName.map { ValueCompletion(placeholder: $0, allowedValues: allowedValues) } ?? .nothing
    }
}

/// A positional argument (`<token>`).
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    var isOptional = false
    var isVariadic = false
    /// The only values accepted, when the argument is an enumeration (`completion <shell>`).
    var allowedValues: [String]?

    static func argument(
        _ name: String, help: String, optional: Bool = false, variadic: Bool = false, allowed: [String]? = nil
    ) -> ArgumentSpec {
        ArgumentSpec(
            name: name, help: help, isOptional: optional, isVariadic: variadic, allowedValues: allowed)
    }

    /// What a shell offers for the argument.
    var valueCompletion: ValueCompletion {
        ValueCompletion(placeholder: name, allowedValues: allowedValues)
    }

    var synopsis: String {
        let core = "<\(name)>" + (isVariadic ? " ..." : "")
        return isOptional ? "[\(core)]" : core
    }
}

/// What a shell's completion offers for a value, read from the command tree.
enum ValueCompletion: Equatable, Sendable {
    /// One of these words.
    case choices([String])
    /// A file name (or a folder on the way to one).
    case files
    /// A folder name.
    case directories
    /// Nothing to offer: a number, a name, a token.
    case nothing

    /// Placeholders that name a path on disk: `--key <file>`, `--jwks <file-or-url>`,
    /// `<path> ...`, `<capture>`.
    static let filePlaceholders: Set<String> = ["file", "file-or-url", "path", "capture"]
    /// Placeholders that name a folder: `--har-dir <dir>`.
    static let directoryPlaceholders: Set<String> = ["dir"]

    /// The allowed values when there are some, else what the placeholder names.
    init(placeholder: String, allowedValues: [String]?) {
        if let allowedValues {
            self = .choices(allowedValues)
        } else if Self.filePlaceholders.contains(placeholder) {
            self = .files
        } else if Self.directoryPlaceholders.contains(placeholder) {
            self = .directories
        } else {
            self = .nothing
        }
    }
}

/// How the process ends (sysexits(3) for usage).
struct ExitCode: Hashable, Sendable {
    let rawValue: Int32

    static let success = ExitCode(rawValue: 0)
    static let failure = ExitCode(rawValue: 1)
    static let invalidInput = ExitCode(rawValue: 2)
    /// EX_USAGE: the command was used incorrectly.
    static let usage = ExitCode(rawValue: 64)
    /// 128 + SIGINT, as shells report an interrupted command.
    static let interrupted = ExitCode(rawValue: 130)
}
