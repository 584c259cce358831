import Errors
import Scenario

/// What the command line asked for.
enum ParseOutcome: Sendable {
    case run(CommandSpec, ParsedArguments)
    case help(path: [CommandSpec])
    case version
}

/// Parses `argv` against a command tree.
enum ArgumentParser {
    struct Failure: Error {
        let error: UsageError
        let path: [CommandSpec]
    }

    static func parse(_ arguments: [String], root: CommandSpec) -> Result<ParseOutcome, Failure> {
        var path = [root]
        do throws(UsageError) {
            var index = 0
            let (command, wantsHelp) = try descend(arguments, path: &path, index: &index)
            if wantsHelp { return .success(.help(path: path)) }
            var parsed = ParsedArguments(commandPath: path.map(\.name), declaring: command.options)
            if let outcome = try readOptions(arguments, from: index, path: path, into: &parsed) {
                return .success(outcome)
            }
            return .success(try complete(parsed, path: path, command: command))
        } catch {
            return .failure(Failure(error: error, path: path))
        }
    }

    /// Walks down the subcommands the first words name, appending each to `path` and moving
    /// `index` past it; `help` as a word shows help for what follows it.
    /// - Returns: the command reached, and whether `help` was asked for.
    private static func descend(
        _ arguments: [String], path: inout [CommandSpec], index: inout Int
    ) throws(UsageError) -> (command: CommandSpec, wantsHelp: Bool) {
        var command = path[0]
        var wantsHelp = false
        while index < arguments.count {
            let word = arguments[index]
            if path.count == 1, word == "help" {
                wantsHelp = true
                index += 1
                continue
            }
            guard let next = command.subcommand(named: word) else {
                // A group runs nothing itself: a bare word there can only be a mistyped command.
                if command.run == nil, !command.subcommands.isEmpty, !word.hasPrefix("-") {
                    throw unknownCommand(word, in: command)
                }
                break
            }
            path.append(next)
            command = next
            index += 1
        }
        return (command, wantsHelp)
    }

    /// Reads the options and positionals from `index` on into `parsed`.
    /// - Returns: `help` or `version` when a word asks for it, which ends the parse; else nil.
    private static func readOptions(
        _ arguments: [String], from start: Int, path: [CommandSpec], into parsed: inout ParsedArguments
    ) throws(UsageError) -> ParseOutcome? {
        let command = path[path.count - 1]
        var index = start
        var onlyPositionals = false
        while index < arguments.count {
            let word = arguments[index]
            index += 1
            if onlyPositionals || word == "-" || !word.hasPrefix("-") {
                parsed.positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            if word == "-h" || word == "--help" { return .help(path: path) }
            if path.count == 1, word == "--version" { return .version }
            var name = word
            var inlineValue: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            guard let option = find(name, in: command) else {
                throw unknownOption(name, in: command, isRoot: path.count == 1)
            }
            if option.isFlag {
                if inlineValue != nil { throw UsageError("The flag '--\(option.long)' takes no value") }
                parsed.record(flag: option)
                continue
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("Missing value for '\(option.synopsis)'")
            }
            try record(value, for: option, in: &parsed)
        }
        return nil
    }

    /// Records an option's value, checking it against the option's allowed values and its
    /// being given once.
    private static func record(
        _ value: String, for option: OptionSpec, in parsed: inout ParsedArguments
    ) throws(UsageError) {
        if let allowed = option.allowedValues, !allowed.contains(value) {
            let list = allowed.map { "'\($0)'" }.joined(separator: ", ")
            throw UsageError(
                "The value '\(value)' is invalid for '\(option.synopsis)'. Please provide one of \(list)."
            )
        }
        if !option.isRepeatable, parsed.contains(option) {
            throw UsageError("The option '--\(option.long)' can be given only once")
        }
        parsed.record(value, for: option)
    }

    /// What the parsed words ask of `command`, once every word is read: its run, with the
    /// required options and arguments present and valid, or a group's help.
    private static func complete(
        _ parsed: ParsedArguments, path: [CommandSpec], command: CommandSpec
    ) throws(UsageError) -> ParseOutcome {
        if command.run == nil {
            if let stray = parsed.positionals.first { throw unknownCommand(stray, in: command) }
            return .help(path: path)
        }
        for option in command.options where option.isRequired && !parsed.contains(option) {
            throw UsageError("Missing expected argument '\(option.synopsis)'")
        }
        let required = command.arguments.filter { !$0.isOptional }.count
        if parsed.positionals.count < required {
            let missing = command.arguments[parsed.positionals.count]
            throw UsageError("Missing expected argument '<\(missing.name)>'")
        }
        for (argument, value) in zip(command.arguments, parsed.positionals) {
            guard let allowed = argument.allowedValues, !allowed.contains(value) else { continue }
            let list = allowed.map { "'\($0)'" }.joined(separator: ", ")
            let guess =
                NearMiss.suggestion(for: value, among: allowed).map { "; did you mean '\($0)'?" } ?? "."
            throw UsageError(
                "The value '\(value)' is invalid for '<\(argument.name)>'\(guess) Please provide one of \(list)."
            )
        }
        let variadic = command.arguments.contains { $0.isVariadic }
        if !variadic, parsed.positionals.count > command.arguments.count {
            let extra = parsed.positionals[command.arguments.count]
            throw UsageError("Unexpected argument '\(extra)'")
        }
        return .run(command, parsed)
    }

    /// `Unknown command 'valdate'; did you mean 'validate'?`: the closest subcommand of the
    /// group, when one is close enough (`NearMiss`).
    static func unknownCommand(_ word: String, in group: CommandSpec) -> UsageError {
        let names = group.subcommands.map(\.name)
        return UsageError(
            "Unknown command '\(word)'" + didYouMean(NearMiss.suggestion(for: word, among: names)))
    }

    /// `Unknown option '--jbos'; did you mean '--jobs'?`. Only long names are suggested: a
    /// single letter is one edit away from every other single letter, so a guess at `-x`
    /// would be noise; `-jobs` does find `--jobs`.
    static func unknownOption(_ name: String, in command: CommandSpec, isRoot: Bool) -> UsageError {
        var names = command.options.map { "--" + $0.long } + ["--help"]
        if isRoot { names.append("--version") }
        let suggestion = name.count > 2 ? NearMiss.suggestion(for: name, among: names) : nil
        return UsageError("Unknown option '\(name)'" + didYouMean(suggestion))
    }

    /// `; did you mean 'x'?`, in the quotes of the parser's other messages, or nothing.
    private static func didYouMean(_ suggestion: String?) -> String {
        suggestion.map { "; did you mean '\($0)'?" } ?? ""
    }

    private static func find(_ name: String, in command: CommandSpec) -> OptionSpec? {
        if name.hasPrefix("--") {
            let long = name.dropFirst(2)
            return command.options.first { $0.long == long }
        }
        guard name.count == 2, let letter = name.last else { return nil }
        return command.options.first { $0.short == letter }
    }
}
