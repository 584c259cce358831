import Testing

@testable import SignInSimCLI

/// Options are read through their declarations (issue 40): each command declares a name once,
/// and reading an option the running command does not declare is a programmer error.
@Suite("Declared options")
struct DeclaredOptionsTests {
    /// Every command of the tree, with its path.
    static func commands(_ command: CommandSpec = SignInSimCLI.root, path: [String] = []) -> [(
        path: String, command: CommandSpec
    )] {
        let here = path + [command.name]
        return [(here.joined(separator: " "), command)]
            + command.subcommands.flatMap { commands($0, path: here) }
    }

    /// A name declared twice would make the reader of one read the other's value.
    @Test("every command declares each long and short name once")
    func namesAreUnique() {
        for (path, command) in Self.commands() {
            let longs = command.options.map(\.long)
            #expect(Set(longs).count == longs.count, "\(path) declares a long name twice: \(longs)")
            let shorts = command.options.compactMap(\.short)
            #expect(Set(shorts).count == shorts.count, "\(path) declares a short name twice: \(shorts)")
        }
    }

    /// The parser records what the command declares; its readers take the declarations.
    @Test("a parsed command reads the options it declares")
    func readsDeclaredOptions() throws {
        let parsed = try Self.parsed(["run", "-j", "3", "--fail-fast", "-e", "A=1", "-e", "B"])
        #expect(parsed.declares(RunOptions.jobs))
        #expect(!parsed.declares(SignInSimCLI.JWTVerifyOptions.jwks))
        #expect(try parsed.integer(RunOptions.jobs) == 3)
        #expect(parsed.flag(RunOptions.failFast))
        #expect(!parsed.flag(RunOptions.noRedact))
        #expect(parsed.allValues(SignInSimCLI.envOption) == ["A=1", "B"])
        #expect(parsed.value(RunOptions.html) == nil)
    }

    /// Reading an option the command does not declare stops the process, as a typo in a
    /// swift-argument-parser property would not compile.
    @Test("reading an undeclared option is a precondition failure")
    func undeclaredOptionTraps() async {
        await #expect(processExitsWith: .failure) {
            let parsed = try DeclaredOptionsTests.parsed(["jwt", "decode", "tok"])
            _ = parsed.value(RunOptions.html)
        }
    }

    static func parsed(_ words: [String]) throws -> ParsedArguments {
        guard case .success(.run(_, let parsed)) = ArgumentParser.parse(words, root: SignInSimCLI.root) else {
            throw UsageError("\(words) did not parse as a command to run")
        }
        return parsed
    }
}
