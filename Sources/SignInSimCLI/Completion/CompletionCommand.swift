/// The shells `signinsim completion` writes a script for.
enum CompletionShell: String, CaseIterable, Sendable {
    case bash
    case zsh
    case fish

    /// The script for this shell, generated from the command tree under `root`.
    func script(for root: CommandSpec) -> String {
        let tree = CompletionTree(root: root)
        switch self {
        case .bash: return BashCompletion.script(for: tree)
        case .zsh: return ZshCompletion.script(for: tree)
        case .fish: return FishCompletion.script(for: tree)
        }
    }
}

extension SignInSimCLI {
    static let completionCommand: CommandSpec = CommandSpec(
        name: "completion",
        abstract: "Print a shell completion script for signinsim.",
        discussion: """
            The script is generated from the command tree: subcommands, options, and the values
            an option accepts. Install it once:
              bash  signinsim completion bash > ~/.local/share/bash-completion/completions/signinsim
              zsh   signinsim completion zsh > "${fpath[1]}/_signinsim"
              fish  signinsim completion fish > ~/.config/fish/completions/signinsim.fish
            or load it for one session: source <(signinsim completion bash).
            """,
        arguments: [
            .argument(
                "shell", help: "bash, zsh or fish.", allowed: CompletionShell.allCases.map(\.rawValue))
        ],
        run: { arguments, context in
            let name = try arguments.requiredPositional(0, name: "shell")
            guard let shell = CompletionShell(rawValue: name) else {
                throw UsageError("The value '\(name)' is invalid for '<shell>'")
            }
            context.writeOut(shell.script(for: root))
            return .success
        })
}
