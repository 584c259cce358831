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
        var command = root
        var index = 0
        // Walk down subcommands first; `help` as a word shows help for what follows it.
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
                    return .failure(Failure(error: unknownCommand(word, in: command), path: path))
                }
                break
            }
            path.append(next)
            command = next
            index += 1
        }
        if wantsHelp { return .success(.help(path: path)) }
        var parsed = ParsedArguments(commandPath: path.map(\.name), declaring: command.options)
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
            if word == "-h" || word == "--help" { return .success(.help(path: path)) }
            if path.count == 1, word == "--version" { return .success(.version) }
            var name = word
            var inlineValue: String?
            if word.hasPrefix("--"), let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            guard let option = find(name, in: command) else {
                return .failure(
                    Failure(error: unknownOption(name, in: command, isRoot: path.count == 1), path: path))
            }
            if option.isFlag {
                if inlineValue != nil {
                    return .failure(
                        Failure(error: UsageError("The flag '--\(option.long)' takes no value"), path: path))
                }
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
                return .failure(
                    Failure(error: UsageError("Missing value for '\(option.synopsis)'"), path: path))
            }
            if let allowed = option.allowedValues, !allowed.contains(value) {
                let list = allowed.map { "'\($0)'" }.joined(separator: ", ")
                return .failure(
                    Failure(
                        error: UsageError(
                            "The value '\(value)' is invalid for '\(option.synopsis)'. Please provide one of \(list)."
                        ),
                        path: path))
            }
            if !option.isRepeatable, parsed.contains(option) {
                return .failure(
                    Failure(
                        error: UsageError("The option '--\(option.long)' can be given only once"), path: path)
                )
            }
            parsed.record(value, for: option)
        }
        if command.run == nil {
            if let stray = parsed.positionals.first {
                return .failure(Failure(error: unknownCommand(stray, in: command), path: path))
            }
            return .success(.help(path: path))
        }
        for option in command.options where option.isRequired && !parsed.contains(option) {
            return .failure(
                Failure(error: UsageError("Missing expected argument '\(option.synopsis)'"), path: path))
        }
        let required = command.arguments.filter { !$0.isOptional }.count
        if parsed.positionals.count < required {
            let missing = command.arguments[parsed.positionals.count]
            return .failure(
                Failure(error: UsageError("Missing expected argument '<\(missing.name)>'"), path: path))
        }
        for (argument, value) in zip(command.arguments, parsed.positionals) {
            guard let allowed = argument.allowedValues, !allowed.contains(value) else { continue }
            let list = allowed.map { "'\($0)'" }.joined(separator: ", ")
            let guess =
                NearMiss.suggestion(for: value, among: allowed).map { "; did you mean '\($0)'?" } ?? "."
            return .failure(
                Failure(
                    error: UsageError(
                        "The value '\(value)' is invalid for '<\(argument.name)>'\(guess) Please provide one of \(list)."
                    ),
                    path: path))
        }
        let variadic = command.arguments.contains { $0.isVariadic }
        if !variadic, parsed.positionals.count > command.arguments.count {
            let extra = parsed.positionals[command.arguments.count]
            return .failure(Failure(error: UsageError("Unexpected argument '\(extra)'"), path: path))
        }
        return .success(.run(command, parsed))
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
