import Foundation

/// The command tree as a completion script sees it: every command by its path, with the
/// options the parser accepts there (`-h`/`--help` everywhere, `--version` at the top).
struct CompletionTree {
    /// One command of the tree.
    struct Node {
        /// The words that reach it, the program's name first: `["signinsim", "jwt", "verify"]`.
        var path: [String]
        var command: CommandSpec
        var options: [OptionSpec]

        /// `signinsim jwt verify`.
        var key: String { path.joined(separator: " ") }
        var isGroup: Bool { command.run == nil && !command.subcommands.isEmpty }
        /// What a shell offers for the words typed so far: subcommands on a group (`help` too
        /// at the top, as the parser reads `signinsim help run`), nothing on a leaf.
        var subcommandWords: [(name: String, summary: String)] {
            var words = command.subcommands.map { ($0.name, CompletionTree.summary(of: $0.abstract)) }
            if path.count == 1 { words.insert(("help", "Show help for a command."), at: 0) }
            return words
        }
    }

    /// The parser's own help option, accepted by every command.
    static let helpOption = OptionSpec.flag("help", short: "h", help: "Show help information.")
    /// The parser's `--version`, accepted at the top only.
    static let versionOption = OptionSpec.flag("version", help: "Show the version.")
    /// The word before a command that asks for its help (`signinsim help run`).
    static let helpWord = "help"

    let programName: String
    /// Depth first, the root first.
    let nodes: [Node]

    init(root: CommandSpec) {
        programName = root.name
        var nodes: [Node] = []
        func visit(_ command: CommandSpec, path: [String]) {
            var options = command.options + [Self.helpOption]
            if path.count == 1 { options.append(Self.versionOption) }
            nodes.append(Node(path: path, command: command, options: options))
            for subcommand in command.subcommands { visit(subcommand, path: path + [subcommand.name]) }
        }
        visit(root, path: [root.name])
        self.nodes = nodes
    }

    /// The first sentence of a help text, without its full stop: short enough for a menu.
    static func summary(of help: String) -> String {
        let flat = help.split(whereSeparator: \.isNewline).joined(separator: " ")
        let sentence = flat.range(of: ". ").map { String(flat[..<$0.lowerBound]) } ?? flat
        return sentence.hasSuffix(".") ? String(sentence.dropLast()) : sentence
    }

    /// A name usable in a shell function's name: letters, digits and `_`.
    static func identifier(_ path: [String]) -> String {
        String(path.joined(separator: "_").map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }
}

/// Quoting for the shells' single-quoted strings.
enum ShellQuoting {
    /// `'it'\''s'`: bash and zsh, where nothing inside single quotes is special but the quote.
    static func posix(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }

    /// `'it\'s'`: fish, where a backslash escapes a quote or a backslash inside single quotes.
    static func fish(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: #"\"#, with: #"\\"#).replacingOccurrences(of: "'", with: #"\'"#)
            + "'"
    }
}
