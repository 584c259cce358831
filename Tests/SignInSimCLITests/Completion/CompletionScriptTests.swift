import Foundation
import TestSupport
import Testing

@testable import SignInSimCLI

/// `signinsim completion bash|zsh|fish`: scripts generated from the command tree (issue 28).
@Suite("Shell completion")
struct CompletionScriptTests {
    static let tree = CompletionTree(root: SignInSimCLI.root)

    /// Every command of the tree by name, and the spellings of every option of two commands
    /// below the top (`jwt verify` and `run`), appear in each shell's script.
    @Test(
        "each script names every subcommand and every option of nested commands",
        arguments: CompletionShell.allCases)
    func namesTheTree(shell: CompletionShell) throws {
        let script = shell.script(for: SignInSimCLI.root)
        for node in Self.tree.nodes.dropFirst() {
            #expect(script.contains(node.path.last ?? "-"), "\(shell) lacks \(node.key)")
        }
        for path in [["jwt", "verify"], ["run"]] {
            let node = try #require(Self.tree.nodes.first { Array($0.path.dropFirst()) == path })
            for option in node.options {
                let long = shell == .fish ? "-l \(option.long)" : "--" + option.long
                #expect(script.contains(long), "\(shell) lacks --\(option.long) of \(node.key)")
                if let short = option.short {
                    let spelled = shell == .fish ? "-s \(short)" : "-\(short)"
                    #expect(script.contains(spelled), "\(shell) lacks -\(short) of \(node.key)")
                }
            }
        }
        // Options' allowed values, from the tree.
        #expect(script.contains("strict new-episodes sequential"), "\(shell) lacks replay's --mode values")
        #expect(script.contains("ES256 RS256 PS256"), "\(shell) lacks jwk generate's --alg values")
    }

    /// A tree that is not signinsim's gives a script of its own names: nothing is written per
    /// command by hand.
    @Test("the script follows the tree it is given", arguments: CompletionShell.allCases)
    func followsTheTree(shell: CompletionShell) {
        let leaf = CommandSpec(
            name: "brew", abstract: "Brew it.",
            options: [
                .option(
                    "strength", short: "s", value: "level", help: "How strong.", allowed: ["mild", "bold"]),
                .flag("iced", help: "Over ice."),
            ],
            run: { _, _ in .success })
        let root = CommandSpec(
            name: "kettle", abstract: "A kettle.",
            subcommands: [CommandSpec(name: "tea", abstract: "Tea.", subcommands: [leaf])])
        let script = shell.script(for: root)
        for word in ["kettle", "tea", "brew", "strength", "iced", "mild bold"] {
            #expect(script.contains(word), "\(shell) lacks \(word)")
        }
        #expect(!script.contains("signinsim"))
        #expect(!script.contains("validate"))
    }

    /// The command prints the script for the shell named, and exits 0.
    @Test("signinsim completion prints the script", arguments: CompletionShell.allCases)
    func command(shell: CompletionShell) async {
        let streams = CapturedStreams()
        let status = await SignInSimCLI.run(["completion", shell.rawValue], context: streams.context())
        #expect(status == 0)
        #expect(streams.standardOutput == shell.script(for: SignInSimCLI.root))
        #expect(streams.standardError.isEmpty)
    }

    /// The bash script, sourced in bash, completes as a person at the prompt expects.
    @Test(
        "bash completes subcommands, options and values",
        .enabled(if: ExecutableSearch.path(named: "bash") != nil, "bash is not installed"),
        arguments: [
            (["signinsim", "va"], ["validate"]),
            (["signinsim", "run", "--jo"], ["--jobs"]),
            (["signinsim", "jwt", "ve"], ["verify"]),
            (["signinsim", "help", "ru"], ["run"]),
            (["signinsim", "help", "jwt", "ve"], ["verify"]),
            (["signinsim", "jw"], ["jwk", "jwt"]),
            (["signinsim", "jwt", "verify", "--le"], ["--leeway"]),
            (["signinsim", "replay", "x.har", "--mode", "s"], ["strict", "sequential"]),
            (["signinsim", "replay", "--mode", "=", "n"], ["new-episodes"]),
            (["signinsim", "run", "-e", "--jobs", "--fa"], ["--fail-fast"]),
            (["signinsim", "completion", ""], ["bash", "zsh", "fish"]),
            (["signinsim", "--ver"], ["--version"]),
            (["signinsim", "run", "--jobs", ""], []),
        ])
    func bash(words: [String], expected: [String]) async throws {
        #expect(try await BashSession.complete(words) == expected)
    }

    /// File and folder values complete from the disk.
    @Test(
        "bash completes file and folder names",
        .enabled(if: ExecutableSearch.path(named: "bash") != nil, "bash is not installed"))
    func bashFiles() async throws {
        let folder = try TemporaryDirectory()
        _ = try folder.write("name: x\nsteps: [launch]\n", named: "smoke.yaml")
        try FileManager.default.createDirectory(
            atPath: folder.url.path + "/snapshots", withIntermediateDirectories: true)
        let prefix = folder.url.path + "/s"
        #expect(
            try await BashSession.complete(["signinsim", "run", prefix]).sorted()
                == [prefix + "moke.yaml", prefix + "napshots"])
        #expect(
            try await BashSession.complete(["signinsim", "run", "--har-dir", prefix]) == [prefix + "napshots"]
        )
        #expect(try await BashSession.complete(["signinsim", "jwt", "decode", prefix]) == [])
    }

    /// zsh and fish are checked by their own parsers where they are installed.
    @Test(
        "the zsh script parses",
        .enabled(if: ExecutableSearch.path(named: "zsh") != nil, "zsh is not installed"))
    func zshSyntax() async throws {
        let result = try await ShellCheck.parse(.zsh, flag: "-n")
        #expect(result.status == 0, "\(result.standardError)")
    }

    @Test(
        "the fish script parses",
        .enabled(if: ExecutableSearch.path(named: "fish") != nil, "fish is not installed"))
    func fishSyntax() async throws {
        let result = try await ShellCheck.parse(.fish, flag: "--no-execute")
        #expect(result.status == 0, "\(result.standardError)")
    }
}

/// Finds a program on `PATH`.
enum ExecutableSearch {
    static func path(named name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(
            separator: ":")
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// The bash script sourced in a `bash -c`, its function called as bash's completion calls it.
enum BashSession {
    /// The completions offered for the last of `words` (the word under the cursor).
    static func complete(_ words: [String]) async throws -> [String] {
        let bash = try #require(ExecutableSearch.path(named: "bash"))
        let script = try TemporaryDirectory.shared.write(
            CompletionShell.bash.script(for: SignInSimCLI.root), named: "signinsim-\(UUID().uuidString).bash")
        let program = """
            source "$1" || exit 3
            COMP_CWORD=$2
            shift 2
            COMP_WORDS=("$@")
            _signinsim || exit 4
            (( ${#COMPREPLY[@]} )) && printf '%s\\n' "${COMPREPLY[@]}"
            exit 0
            """
        let result = try await ProcessRunner.run(
            URL(fileURLWithPath: bash), ["-c", program, "bash", script, String(words.count - 1)] + words)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
        return result.standardOutput.split(separator: "\n").map(String.init)
    }
}

/// A shell's own parser run over its script, executing nothing.
enum ShellCheck {
    static func parse(_ shell: CompletionShell, flag: String) async throws -> ProcessResult {
        let executable = try #require(ExecutableSearch.path(named: shell.rawValue))
        let script = try TemporaryDirectory.shared.write(
            shell.script(for: SignInSimCLI.root), named: "signinsim-\(UUID().uuidString).\(shell.rawValue)")
        return try await ProcessRunner.run(URL(fileURLWithPath: executable), [flag, script])
    }
}
