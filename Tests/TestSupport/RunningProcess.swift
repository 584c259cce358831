public import Foundation
import Locking

/// A program left running while a test talks to it (`signinsim serve`): its output streams are
/// collected as they arrive, signals can be sent, and every wait is bounded.
///
/// A process still running when this is released is killed, so a failed test leaves nothing
/// behind.
public final class RunningProcess {
    public let process: ChildProcess
    private let output: StreamCollector
    private let errors: StreamCollector

    public init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        let outputPipe = try ClosedOnExecPipe()
        let errorPipe = try ClosedOnExecPipe()
        let nullDevice = open("/dev/null", O_RDONLY | O_CLOEXEC)
        defer {
            close(outputPipe.writeEnd)
            close(errorPipe.writeEnd)
            close(nullDevice)
        }
        do {
            process = try ChildProcess(
                executable.path, arguments, environment: ChildProcess.environment(with: environment),
                streams: .init(input: nullDevice, output: outputPipe.writeEnd, error: errorPipe.writeEnd))
        } catch {
            close(outputPipe.readEnd)
            close(errorPipe.readEnd)
            throw error
        }
        output = StreamCollector(reading: outputPipe.readEnd)
        errors = StreamCollector(reading: errorPipe.readEnd)
    }

    /// Starts the built `signinsim` binary.
    public static func signInSim(_ arguments: [String], environment: [String: String] = [:]) throws
        -> RunningProcess
    {
        try RunningProcess(SignInSimBinary.url, arguments, environment: environment)
    }

    /// Everything written to standard output so far.
    public var standardOutput: String { output.text }
    /// Everything written to standard error so far.
    public var standardError: String { errors.text }

    /// Sends a signal (`SIGTERM`, `SIGINT`) to the process.
    public func send(_ signal: Int32) { process.send(signal) }

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
            guard let exit = process.exit, output.isFinished, errors.isFinished else { return nil }
            return exit
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
    public let reason: Reason

    public enum Reason: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    /// Exited by itself with status 0.
    public var isCleanExit: Bool { reason == .exit && status == 0 }
}

/// One output stream of a child process, read on a thread of its own as it is written.
private final class StreamCollector: Sendable {
    private let buffer = StreamBuffer()

    init(reading descriptor: Int32) {
        let buffer = self.buffer
        let thread = Thread {
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer.append(Data(chunk[..<count]))
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            close(descriptor)
            buffer.finish()
        }
        thread.start()
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
