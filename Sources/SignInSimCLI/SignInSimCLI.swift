/// The `signinsim` command: a thin layer that parses arguments and calls the library modules.
public enum SignInSimCLI {
    static let version = "0.1.0"

    /// The command tree.
    static let root = CommandSpec(
        name: "signinsim",
        abstract: "A headless simulator of mobile sign-in.",
        discussion: """
            Replays native-app sign-in (web authentication session, PKCE, ID token checks,
            keychain, refresh) against an OpenID Connect issuer, with tools for the JOSE
            objects involved.
            """,
        subcommands: [
            versionCommand, jwkCommand, jwtCommand, serveCommand, signInCommand, appleSignInCommand, auditCommand,
            runCommand,
            mergeReportsCommand, matrixCommand, validateCommand, listCommand, schemaCommand, replayCommand,
            importHARCommand,
            completionCommand,
        ])

    /// Runs the process's command line and exits.
    public static func main() async -> Never {
        let code = await run(Array(CommandLine.arguments.dropFirst()), context: .live())
        exit(code)
    }

    /// Runs a command line and returns the exit status (tests call this in-process).
    static func run(_ arguments: [String], context: CLIContext) async -> Int32 {
        switch ArgumentParser.parse(arguments, root: root) {
        case .failure(let failure):
            context.writeError(HelpFormatter.usageError(failure.error, path: failure.path))
            return ExitCode.usage.rawValue
        case .success(.help(let path)):
            context.writeOut(HelpFormatter.help(for: path))
            return ExitCode.success.rawValue
        case .success(.version):
            context.writeOut("signinsim \(version)\n")
            return ExitCode.success.rawValue
        case .success(.run(let command, let parsed)):
            guard let body = command.run else { return ExitCode.usage.rawValue }
            do {
                return try await body(parsed, context).rawValue
            } catch let error as UsageError {
                let path = pathOf(parsed)
                context.writeError(HelpFormatter.usageError(error, path: path))
                return ExitCode.usage.rawValue
            } catch let failure as CommandFailure {
                context.writeError("Error: \(failure.message)\n")
                return failure.exitCode.rawValue
            } catch {
                context.writeError("Error: \(error)\n")
                return ExitCode.failure.rawValue
            }
        }
    }

    private static func pathOf(_ parsed: ParsedArguments) -> [CommandSpec] {
        var path = [root]
        for name in parsed.commandPath.dropFirst() {
            guard let next = path.last?.subcommand(named: name) else { break }
            path.append(next)
        }
        return path
    }

    static let versionCommand = CommandSpec(
        name: "version", abstract: "Print the version of signinsim.",
        run: { _, context in
            context.writeOut("signinsim \(version)\n")
            return .success
        })
}

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif
