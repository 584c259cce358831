import Foundation
import Locking

/// A child process started with `posix_spawn`, for tests that run the `signinsim` binary.
///
/// Foundation's `Process.run()` on Linux crashed here when tests started processes in
/// parallel, and its pipes are not close-on-exec, so one child could hold another's output
/// open. This spawns directly: every descriptor the parent makes is close-on-exec, the child
/// gets exactly its three standard streams.
public final class ChildProcess: Sendable {
    public let pid: Int32
    private let status = Mutex<ProcessExit?>(nil)

    /// How the child's three standard streams are connected: descriptors of the parent's that
    /// the child gets as 0, 1 and 2.
    public struct Streams {
        public var input: Int32
        public var output: Int32
        public var error: Int32
    }

    public init(_ executable: String, _ arguments: [String], environment: [String: String], streams: Streams)
        throws
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, streams.input, 0)
        posix_spawn_file_actions_adddup2(&actions, streams.output, 1)
        posix_spawn_file_actions_adddup2(&actions, streams.error, 2)

        let argv = ([executable] + arguments).map { strdup($0) }
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") }
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let result = Self.descriptorLock.withLock { _ in
            (argv + [nil]).withUnsafeBufferPointer { argvBuffer in
                (envp + [nil]).withUnsafeBufferPointer { envpBuffer in
                    posix_spawn(
                        &child, executable, &actions, nil,
                        UnsafeMutablePointer(mutating: argvBuffer.baseAddress!),
                        UnsafeMutablePointer(mutating: envpBuffer.baseAddress!))
                }
            }
        }
        guard result == 0 else {
            throw ChildProcessError(
                description: "posix_spawn \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
    }

    /// Held while descriptors are made and flagged close-on-exec, and while a child is
    /// spawned, so that no child inherits a descriptor in between.
    static let descriptorLock: Mutex<Void> = {
        // A child that exits before reading its input must not kill the tests with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        return Mutex(())
    }()

    /// The environment of this test process with `overrides` applied.
    public static func environment(with overrides: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(overrides) { _, new in new }
    }

    /// How the child ended, or nil while it runs. Reaps it the first time it is seen ended.
    public var exit: ProcessExit? {
        status.withLock { known in
            if let known { return known }
            var raw: Int32 = 0
            guard waitpid(pid, &raw, WNOHANG) == pid else { return nil }
            let signal = raw & 0x7f
            known =
                signal == 0
                ? ProcessExit(status: (raw >> 8) & 0xff, reason: .exit)
                : ProcessExit(status: signal, reason: .uncaughtSignal)
            return known
        }
    }

    public var isRunning: Bool { exit == nil }

    public func send(_ signal: Int32) {
        if isRunning { kill(pid, signal) }
    }

    deinit {
        if status.withLock({ $0 }) == nil {
            kill(pid, SIGKILL)
            var raw: Int32 = 0
            waitpid(pid, &raw, 0)
        }
    }
}

public struct ChildProcessError: Error, CustomStringConvertible {
    public let description: String
}

/// A pipe whose two ends are close-on-exec in the parent.
struct ClosedOnExecPipe {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws {
        var ends: [Int32] = [0, 0]
        let made = ChildProcess.descriptorLock.withLock { _ in
            guard pipe(&ends) == 0 else { return false }
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            return true
        }
        guard made else { throw ChildProcessError(description: "pipe: \(String(cString: strerror(errno)))") }
        readEnd = ends[0]
        writeEnd = ends[1]
    }
}
