public import Foundation
import Synchronization

/// A program left running while a test talks to it (`signinsim serve`): its output streams are
/// collected as they arrive, signals can be sent, and every wait is bounded.
///
/// A process still running when this is released is killed, so a failed test leaves nothing
/// behind.
public final class RunningProcess {
    public let process: Process
    private let output = StreamCollector()
    private let errors = StreamCollector()

    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        process.environment = merged
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output.pipe
        process.standardError = errors.pipe
        try process.run()
    }

    /// Starts the built `signinsim` binary.
    public static func signInSim(_ arguments: [String], environment: [String: String] = [:]) throws
        -> RunningProcess
    {
        try RunningProcess(SignInSimBinary.url, arguments, environment: environment)
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    /// Everything written to standard output so far.
    public var standardOutput: String { output.text }
    /// Everything written to standard error so far.
    public var standardError: String { errors.text }

    /// Sends a signal (`SIGTERM`, `SIGINT`) to the process.
    public func send(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// The first line of standard output, without its newline, once it is complete.
    public func firstLine(within limit: Duration = .seconds(30)) async throws -> String {
        try await poll(limit, waitingFor: "a first line on standard output") {
            let text = output.text
            return text.firstIndex(of: "\n").map { String(text[..<$0]) }
        }
    }

    /// The first line of standard error that contains `fragment`, once it is complete.
    public func standardErrorLine(containing fragment: String, within limit: Duration = .seconds(30))
        async throws -> String
    {
        try await poll(limit, waitingFor: "a line containing \"\(fragment)\" on standard error") {
            errors.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                .first { $0.contains(fragment) }.map(String.init)
        }
    }

    /// Waits for the process to end and both streams to be read to their end.
    public func waitForExit(within limit: Duration = .seconds(30)) async throws -> ProcessExit {
        try await poll(limit, waitingFor: "the process to exit") {
            guard !process.isRunning, output.isFinished, errors.isFinished else { return nil }
            return ProcessExit(status: process.terminationStatus, reason: process.terminationReason)
        }
    }

    private func poll<T>(_ limit: Duration, waitingFor what: String, _ check: () -> T?) async throws -> T {
        let deadline = ContinuousClock.now + limit
        while true {
            if let value = check() { return value }
            guard ContinuousClock.now < deadline else {
                throw ProcessRunner.Timeout(
                    description: "waited \(limit) for \(what); stdout: \(standardOutput.debugDescription); "
                        + "stderr: \(standardError.debugDescription)")
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// How a process ended: its exit status, or the signal that killed it.
public struct ProcessExit: Sendable, Equatable {
    public let status: Int32
    public let reason: Process.TerminationReason

    /// Exited by itself with status 0.
    public var isCleanExit: Bool { reason == .exit && status == 0 }
}

/// One output stream of a child process, read as it is written.
private final class StreamCollector {
    let pipe = Pipe()
    private let buffer = StreamBuffer()

    init() {
        let buffer = self.buffer
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            if chunk.isEmpty {
                handle.readabilityHandler = nil
                buffer.finish()
            } else {
                buffer.append(chunk)
            }
        }
    }

    var text: String { String(decoding: buffer.data, as: UTF8.self) }
    var isFinished: Bool { buffer.isFinished }
}

/// The bytes read so far and whether the stream has ended, shared with the reading thread.
private final class StreamBuffer: Sendable {
    private let state = Mutex((data: Data(), finished: false))

    func append(_ chunk: Data) { state.withLock { $0.data.append(chunk) } }
    func finish() { state.withLock { $0.finished = true } }
    var data: Data { state.withLock { $0.data } }
    var isFinished: Bool { state.withLock { $0.finished } }
}
