/// Help and usage text in the layout of swift-argument-parser.
enum HelpFormatter {
    private static let labelWidth = 24

    static func usage(for path: [CommandSpec]) -> String {
        guard let command = path.last else { return "" }
        var parts = [path.map(\.name).joined(separator: " ")]
        if command.run == nil {
            parts.append("<subcommand>")
        } else {
            for option in command.options {
                let repeated = option.isRepeatable ? " ..." : ""
                parts.append(
                    option.isRequired ? option.synopsis + repeated : "[\(option.synopsis)]" + repeated)
            }
            parts.append(contentsOf: command.arguments.map(\.synopsis))
        }
        return parts.joined(separator: " ")
    }

    static func help(for path: [CommandSpec]) -> String {
        guard let command = path.last else { return "" }
        var lines: [String] = ["OVERVIEW: \(command.abstract)"]
        if let discussion = command.discussion {
            lines.append("")
            lines.append(
                contentsOf: discussion.split(separator: "\n", omittingEmptySubsequences: false).map(
                    String.init))
        }
        lines.append("")
        lines.append("USAGE: \(usage(for: path))")
        if !command.arguments.isEmpty {
            lines.append("")
            lines.append("ARGUMENTS:")
            for argument in command.arguments {
                lines.append(row("<\(argument.name)>", argument.help))
            }
        }
        lines.append("")
        lines.append("OPTIONS:")
        for option in command.options {
            var help = option.help
            if let allowed = option.allowedValues { help += " (values: \(allowed.joined(separator: ", ")))" }
            lines.append(row(option.helpLabel, help))
        }
        if path.count == 1 { lines.append(row("--version", "Show the version.")) }
        lines.append(row("-h, --help", "Show help information."))
        if !command.subcommands.isEmpty {
            lines.append("")
            lines.append("SUBCOMMANDS:")
            for subcommand in command.subcommands {
                lines.append(row(subcommand.name, subcommand.abstract))
            }
            lines.append("")
            let nested = path.dropFirst().map { $0.name + " " }.joined()
            lines.append("  See '\(path[0].name) help \(nested)<subcommand>' for detailed help.")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The block printed for a usage error.
    static func usageError(_ error: UsageError, path: [CommandSpec]) -> String {
        let name = path.map(\.name).joined(separator: " ")
        return """
            Error: \(error.message)
            Usage: \(usage(for: path))
              See '\(name) --help' for more information.

            """
    }

    private static func row(_ label: String, _ help: String) -> String {
        let padded = "  " + label
        if padded.count >= labelWidth + 2 {
            return padded + "\n" + String(repeating: " ", count: labelWidth + 2) + help
        }
        return padded + String(repeating: " ", count: labelWidth + 2 - padded.count) + help
    }
}
