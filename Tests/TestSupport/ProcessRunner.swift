public import Foundation

/// The outcome of running a program.
public struct ProcessResult: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String
}

/// Runs the built `signinsim` binary the way a user would.
public enum SignInSimBinary {
    /// The binary next to the test bundle, or `$SIGNINSIM_BINARY`.
    public static var url: URL {
        if let explicit = ProcessInfo.processInfo.environment["SIGNINSIM_BINARY"] {
            return URL(fileURLWithPath: explicit)
        }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        // Inside an .xctest bundle directory (macOS layout), step out of it.
        while directory.path.contains(".xctest") { directory.deleteLastPathComponent() }
        return directory.appendingPathComponent("signinsim")
    }

    /// Runs the binary with arguments and optional standard input, waiting at most `timeout`.
    public static func run(
        _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        timeout: Duration = .seconds(60)
    ) async throws -> ProcessResult {
        try await ProcessRunner.run(url, arguments, input: input, environment: environment, timeout: timeout)
    }
}

/// Runs a program with captured streams and a time limit.
public enum ProcessRunner {
    public struct Timeout: Error, CustomStringConvertible {
        public let description: String
    }

    /// Waits by sleeping the task, not the thread: a test that runs a program for seconds must
    /// not hold one of the few threads of Swift's task pool (two on this machine), or every
    /// other test's timers wait with it.
    public static func run(
        _ executable: URL, _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
        timeout: Duration = .seconds(60)
    ) async throws -> ProcessResult {
        let outputFile = try TemporaryDirectory.shared.file(named: "out-\(UUID().uuidString)")
        let errorFile = try TemporaryDirectory.shared.file(named: "err-\(UUID().uuidString)")
        let output = open(outputFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let error = open(errorFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let inputPipe = try ClosedOnExecPipe()
        defer {
            close(output)
            close(error)
            try? FileManager.default.removeItem(at: outputFile)
            try? FileManager.default.removeItem(at: errorFile)
        }
        let process: ChildProcess
        do {
            defer { close(inputPipe.readEnd) }
            process = try ChildProcess(
                executable.path, arguments, environment: ChildProcess.environment(with: environment),
                streams: .init(input: inputPipe.readEnd, output: output, error: error))
        } catch {
            close(inputPipe.writeEnd)
            throw error
        }
        if let input {
            // The child reads as we write; a child that exits early closes its end (EPIPE).
            var bytes = Array(input.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { write(inputPipe.writeEnd, $0.baseAddress, $0.count) }
                if written < 0 && errno == EINTR { continue }
                guard written > 0 else { break }
                bytes = bytes.dropFirst(written)
            }
        }
        close(inputPipe.writeEnd)
        let deadline = ContinuousClock.now + timeout
        var exit = process.exit
        while exit == nil {
            if ContinuousClock.now > deadline {
                process.send(SIGKILL)
                throw Timeout(
                    description: "\(executable.lastPathComponent) \(arguments) ran longer than \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(5))
            exit = process.exit
        }
        return ProcessResult(
            status: exit!.status,
            standardOutput: String(decoding: try Data(contentsOf: outputFile), as: UTF8.self),
            standardError: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
    }
}

/// A directory for one test process's files, removed by nobody (the OS temp cleaner does).
public final class TemporaryDirectory: Sendable {
    public static let shared = try! TemporaryDirectory()

    public let url: URL

    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "signinsim-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func file(named name: String) throws -> URL { url.appendingPathComponent(name) }

    /// Writes text to a new file and returns its path.
    public func write(_ text: String, named name: String) throws -> String {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file, options: .atomic)
        return file.path
    }
}
