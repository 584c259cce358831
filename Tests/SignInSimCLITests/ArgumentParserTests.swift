import Testing

@testable import SignInSimCLI

@Suite("Argument parsing")
struct ArgumentParserTests {
    static func parse(_ words: [String]) -> Result<ParseOutcome, ArgumentParser.Failure> {
        ArgumentParser.parse(words, root: SignInSimCLI.root)
    }

    /// Subcommands, options (both `--x v` and `--x=v`) and positionals are read.
    @Test("parses subcommands, options and positionals")
    func parsesCommandLine() throws {
        guard
            case .success(.run(let command, let parsed)) = Self.parse([
                "jwt", "verify", "tok", "--jwks=k.json", "--aud", "a",
            ])
        else {
            Issue.record("expected a command to run")
            return
        }
        #expect(command.name == "verify")
        #expect(parsed.positional(0) == "tok")
        #expect(parsed.value(SignInSimCLI.JWTVerifyOptions.jwks) == "k.json")
        #expect(parsed.value(SignInSimCLI.JWTVerifyOptions.audience) == "a")
    }

    /// Each mistake has the message swift-argument-parser would print.
    @Test(
        "usage errors",
        arguments: [
            (["jwt", "verify", "tok"], "Missing expected argument '--jwks <file-or-url>'"),
            (["jwt", "verify", "--jwks", "k"], "Missing expected argument '<token>'"),
            (["jwt", "decode", "a", "b"], "Unexpected argument 'b'"),
            (["jwt", "decode", "a", "--bogus"], "Unknown option '--bogus'"),
            (
                ["jwk", "generate", "--alg", "HS256"],
                "The value 'HS256' is invalid for '--alg <alg>'. Please provide one of 'ES256', 'RS256', 'PS256'."
            ),
            (["jwk", "generate", "--alg"], "Missing value for '--alg <alg>'"),
            (["jwt", "frobnicate"], "Unknown command 'frobnicate'"),
            (
                ["jwk", "generate", "--alg", "ES256", "--alg", "RS256"],
                "The option '--alg' can be given only once"
            ),
        ])
    func usageErrors(words: [String], message: String) {
        guard case .failure(let failure) = Self.parse(words) else {
            Issue.record("expected a usage error for \(words)")
            return
        }
        #expect(failure.error.message == message)
    }

    /// A near miss of a subcommand or long option names the one meant (issue 28); a word far
    /// from every name, or a single letter, gets no guess.
    @Test(
        "did you mean",
        arguments: [
            (["valdate"], "Unknown command 'valdate'; did you mean 'validate'?", ["signinsim"]),
            (
                ["jwt", "verfy", "tok"], "Unknown command 'verfy'; did you mean 'verify'?",
                ["signinsim", "jwt"]
            ),
            (["help", "valdate"], "Unknown command 'valdate'; did you mean 'validate'?", ["signinsim"]),
            (["frobnicate"], "Unknown command 'frobnicate'", ["signinsim"]),
            (
                ["run", "--jbos", "2"], "Unknown option '--jbos'; did you mean '--jobs'?",
                ["signinsim", "run"]
            ),
            (["run", "--jbos=2"], "Unknown option '--jbos'; did you mean '--jobs'?", ["signinsim", "run"]),
            (["run", "-jobs", "2"], "Unknown option '-jobs'; did you mean '--jobs'?", ["signinsim", "run"]),
            (["run", "-x"], "Unknown option '-x'", ["signinsim", "run"]),
            (["run", "--hepl"], "Unknown option '--hepl'; did you mean '--help'?", ["signinsim", "run"]),
            (["--verison"], "Unknown option '--verison'; did you mean '--version'?", ["signinsim"]),
            (["jwt", "--verison"], "Unknown option '--verison'", ["signinsim", "jwt"]),
            (
                ["completion", "bsh"],
                "The value 'bsh' is invalid for '<shell>'; did you mean 'bash'? Please provide one of 'bash',"
                    + " 'zsh', 'fish'.",
                ["signinsim", "completion"]
            ),
            (
                ["completion", "tcsh"],
                "The value 'tcsh' is invalid for '<shell>'. Please provide one of 'bash', 'zsh', 'fish'.",
                ["signinsim", "completion"]
            ),
        ])
    func didYouMean(words: [String], message: String, path: [String]) {
        guard case .failure(let failure) = Self.parse(words) else {
            Issue.record("expected a usage error for \(words)")
            return
        }
        #expect(failure.error.message == message)
        #expect(failure.path.map(\.name) == path)
    }

    /// A mistyped command is a usage error of the whole program: `Error:`, the usage line of the
    /// group it was typed in, exit 64, nothing on standard output.
    @Test("a mistyped command exits 64 with the suggestion on standard error")
    func mistypedCommandExit() async {
        let terminal = CapturedStreams()
        let status = await SignInSimCLI.run(["valdate", "scenarios"], context: terminal.context())
        #expect(status == 64)
        #expect(terminal.standardOutput.isEmpty)
        #expect(
            terminal.standardError.hasPrefix(
                "Error: Unknown command 'valdate'; did you mean 'validate'?\nUsage: signinsim <subcommand>\n")
        )
    }

    /// `--help`, `-h` and `help <command>` all ask for help on the right command.
    @Test("help requests")
    func helpRequests() {
        for words in [["jwt", "sign", "--help"], ["jwt", "sign", "-h"], ["help", "jwt", "sign"]] {
            guard case .success(.help(let path)) = Self.parse(words) else {
                Issue.record("expected help for \(words)")
                continue
            }
            #expect(path.map(\.name) == ["signinsim", "jwt", "sign"])
        }
    }

    /// Help has the OVERVIEW, USAGE, ARGUMENTS and OPTIONS sections, and SUBCOMMANDS on groups.
    @Test("help layout")
    func helpLayout() {
        let verify = [SignInSimCLI.root, SignInSimCLI.jwtCommand, SignInSimCLI.jwtVerifyCommand]
        let text = HelpFormatter.help(for: verify)
        #expect(text.hasPrefix("OVERVIEW: Verify a JWT's signature and claims."))
        #expect(text.contains("USAGE: signinsim jwt verify --jwks <file-or-url> [--iss <issuer>]"))
        #expect(text.contains("ARGUMENTS:\n  <token>"))
        #expect(text.contains("OPTIONS:\n"))
        #expect(text.contains("  -h, --help              Show help information."))
        let root = HelpFormatter.help(for: [SignInSimCLI.root])
        #expect(root.contains("SUBCOMMANDS:\n  version"))
        #expect(root.contains("See 'signinsim help <subcommand>' for detailed help."))
    }
}
