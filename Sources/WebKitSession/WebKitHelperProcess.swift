import Foundation
import Locking
import WebKitHelperProtocol

/// One running `signinsim-webkit`: its pipes, the requests waiting for answers, and the sheets
/// listening to its events.
///
/// The helper is started in a process group of its own (a Ctrl-C at the terminal reaches
/// `signinsim`, which then ends its engines in order) and holds the read end of a lifeline
/// pipe whose write end only this process has: however `signinsim` ends, SIGKILL included,
/// the helper reads end of file, stops its Xvfb and kills its group (WebKit's own processes).
/// A thread reads the helper's output; when it ends (the helper crashed or was killed), every
/// waiting request fails and every sheet hears ``SheetSignal/engineDied(_:)``.
final class WebKitHelperProcess: Sendable {
    let pid: pid_t
    /// WebKit's version and the X display, from the helper's first line.
    let webKitVersion: String
    let display: String

    private let commands: Int32
    private let lifeline: Int32
    private let logPath: String
    private let writeLock = Mutex(())
    private let state = Mutex(State())
    private let requestTimeout: Duration

    private struct State {
        var nextID: UInt64 = 0
        var pending: [UInt64: CheckedContinuation<HelperResult, any Error>] = [:]
        var listeners: [String: @Sendable (SheetSignal) -> Void] = [:]
        /// Why the helper is gone, once it is.
        var death: String?
    }

    /// What a sheet hears.
    enum SheetSignal: Sendable {
        case event(HelperEvent)
        /// The helper process ended: everything it showed is gone.
        case engineDied(String)
    }

    private init(
        pid: pid_t, commands: Int32, lifeline: Int32, logPath: String, webKitVersion: String, display: String,
        requestTimeout: Duration
    ) {
        self.pid = pid
        self.commands = commands
        self.lifeline = lifeline
        self.logPath = logPath
        self.webKitVersion = webKitVersion
        self.display = display
        self.requestTimeout = requestTimeout
    }

    /// Whether the helper has died.
    var isAlive: Bool { state.withLock { $0.death == nil } }

    // MARK: Launch

    /// Starts the helper at `path` and waits (at most `startTimeout`) for its ready line.
    static func launch(
        path: String, startTimeout: Duration = .seconds(30), requestTimeout: Duration = .seconds(30)
    ) async throws(WebKitEngineError) -> WebKitHelperProcess {
        let logPath =
            NSTemporaryDirectory() + "signinsim-webkit-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        let spawned: SpawnedHelper
        do {
            spawned = try SpawnedHelper.spawn(path: path, logPath: logPath)
        } catch {
            throw WebKitEngineError(.cannotStart, "cannot start \(path): \(error)")
        }
        // The first line is the ready event, read here before the reader thread takes over.
        let reader = LineReader(fd: spawned.messages)
        // Read on a thread of its own: the wait (a quarter of a second, more on a busy machine)
        // must not hold one of the few threads of Swift's task pool.
        let deadline = ContinuousClock.now + startTimeout
        let ready: Data? = await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: reader.nextLine(deadline: deadline)) }
            thread.name = "signinsim-webkit start"
            thread.start()
        }
        guard let first = ready else {
            spawned.kill()
            let tail = Self.logTail(logPath)
            try? FileManager.default.removeItem(atPath: logPath)
            throw WebKitEngineError(
                .cannotStart,
                "signinsim-webkit did not start within \(startTimeout)"
                    + (tail.isEmpty ? "" : ": \(tail)"))
        }
        guard
            case .event(.ready(let wire, let version, let display)) = try? HelperWire.decode(
                HelperMessage.self, from: first)
        else {
            spawned.kill()
            throw WebKitEngineError(.cannotStart, "signinsim-webkit said something other than ready")
        }
        guard wire == HelperWire.version else {
            spawned.kill()
            throw WebKitEngineError(
                .cannotStart,
                "signinsim-webkit speaks wire version \(wire), signinsim \(HelperWire.version): build both "
                    + "from the same source (swift build --product signinsim-webkit)")
        }
        let helper = WebKitHelperProcess(
            pid: spawned.pid, commands: spawned.commands, lifeline: spawned.lifeline, logPath: logPath,
            webKitVersion: version, display: display, requestTimeout: requestTimeout)
        let thread = Thread { helper.readMessages(reader) }
        thread.name = "signinsim-webkit reader"
        thread.start()
        return helper
    }

    // MARK: Requests

    /// Sends `command` and waits for its answer.
    func request(_ command: HelperCommand) async throws(WebKitEngineError) -> HelperResult {
        let result: HelperResult
        do {
            result = try await send(command)
        } catch let error as WebKitEngineError {
            throw error
        } catch {
            throw WebKitEngineError(.crashed, "\(error)")
        }
        if case .failed(let message) = result { throw WebKitEngineError(.commandFailed, message) }
        return result
    }

    private func send(_ command: HelperCommand) async throws -> HelperResult {
        let id: UInt64 = state.withLock {
            $0.nextID += 1
            return $0.nextID
        }
        let line: Data
        do {
            line = try HelperWire.line(HelperRequest(id: id, command: command))
        } catch {
            throw WebKitEngineError(.commandFailed, "cannot encode the command: \(error)")
        }
        let timeout = requestTimeout
        return try await withCheckedThrowingContinuation { continuation in
            let death: String? = state.withLock { state in
                if let death = state.death { return death }
                state.pending[id] = continuation
                return nil
            }
            if let death { return continuation.resume(throwing: WebKitEngineError(.crashed, death)) }
            guard write(line) else {
                return fail(id, WebKitEngineError(.crashed, "signinsim-webkit stopped reading its commands"))
            }
            Task {
                try? await Task.sleep(for: timeout)
                // A helper that stops answering is as good as crashed: end it so everyone hears.
                if self.state.withLock({ $0.pending[id] != nil }) {
                    self.fail(
                        id, WebKitEngineError(.crashed, "signinsim-webkit did not answer within \(timeout)"))
                    self.kill()
                }
            }
        }
    }

    private func fail(_ id: UInt64, _ error: WebKitEngineError) {
        state.withLock { $0.pending.removeValue(forKey: id) }?.resume(throwing: error)
    }

    /// Sends `command` without waiting for its answer (a navigation decision).
    func post(_ command: HelperCommand) {
        let id: UInt64 = state.withLock {
            $0.nextID += 1
            return $0.nextID
        }
        guard let line = try? HelperWire.line(HelperRequest(id: id, command: command)) else { return }
        _ = write(line)
    }

    private func write(_ line: Data) -> Bool {
        writeLock.withLock { _ in
            line.withUnsafeBytes { buffer -> Bool in
                guard var base = buffer.baseAddress else { return true }
                var left = buffer.count
                while left > 0 {
                    let written = Glibc.write(commands, base, left)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    left -= written
                    base += written
                }
                return true
            }
        }
    }

    // MARK: Events

    /// Routes the events of `sheet` to `listener` until ``stopListening(to:)``; a listener added
    /// after the helper died hears that at once.
    func listen(to sheet: String, _ listener: @escaping @Sendable (SheetSignal) -> Void) {
        let death: String? = state.withLock { state in
            if let death = state.death { return death }
            state.listeners[sheet] = listener
            return nil
        }
        if let death { listener(.engineDied(death)) }
    }

    func stopListening(to sheet: String) {
        _ = state.withLock { $0.listeners.removeValue(forKey: sheet) }
    }

    private func readMessages(_ reader: LineReader) {
        while let line = reader.nextLine(deadline: nil) {
            guard let message = try? HelperWire.decode(HelperMessage.self, from: line) else { continue }
            switch message {
            case .response(let response):
                state.withLock { $0.pending.removeValue(forKey: response.id) }?.resume(
                    returning: response.result)
            case .event(let event):
                guard let sheet = event.sheet else { continue }
                state.withLock { $0.listeners[sheet] }?(.event(event))
            }
        }
        died()
    }

    /// The helper's output ended: reap it, and tell everyone waiting why.
    private func died() {
        kill()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let tail = Self.logTail(logPath)
        try? FileManager.default.removeItem(atPath: logPath)
        var reason =
            (status & 0x7f) == 0
            ? "signinsim-webkit exited with status \((status >> 8) & 0xff)"
            : "signinsim-webkit was killed by signal \(status & 0x7f)"
        if !tail.isEmpty { reason += ": \(tail)" }
        let (pending, listeners) = state.withLock { state in
            state.death = state.death ?? reason
            defer {
                state.pending = [:]
                state.listeners = [:]
            }
            return (Array(state.pending.values), Array(state.listeners.values))
        }
        close(commands)
        close(lifeline)
        for continuation in pending { continuation.resume(throwing: WebKitEngineError(.crashed, reason)) }
        for listener in listeners { listener(.engineDied(reason)) }
    }

    // MARK: Ending

    /// Asks the helper to quit; kills its group if it has not within a second.
    func quit() async {
        guard isAlive else { return }
        _ = try? await request(.quit)
        for _ in 0..<100 where isAlive {
            try? await Task.sleep(for: .milliseconds(10))
        }
        kill()
    }

    /// Kills the helper's process group (the helper, its Xvfb and WebKit's processes).
    func kill() {
        Glibc.kill(-pid, SIGKILL)
        Glibc.kill(pid, SIGKILL)
    }

    /// The last lines the helper wrote to standard error, for an error message.
    private static func logTail(_ path: String) -> String {
        guard let data = FileManager.default.contents(atPath: path) else { return "" }
        let lines = String(decoding: data.suffix(4096), as: UTF8.self).split(separator: "\n")
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.contains("a11y bus") }
        return lines.suffix(3).joined(separator: " / ")
    }
}

extension HelperEvent {
    /// The sheet an event is about; nil for the ready event.
    var sheet: String? {
        switch self {
        case .ready: nil
        case .navigation(let sheet, _, _), .loadChanged(let sheet, _, _), .loadFailed(let sheet, _, _, _),
            .webProcessTerminated(let sheet, _), .closeRequested(let sheet),
            .scriptDialog(let sheet, _, _, _):
            sheet
        }
    }
}

/// Reads newline-terminated lines from a pipe.
final class LineReader: @unchecked Sendable {
    // Used by one thread at a time: the launcher, then the reader thread.
    private let fd: Int32
    private var buffer: [UInt8] = []

    init(fd: Int32) {
        self.fd = fd
    }

    deinit { close(fd) }

    /// The next line without its newline; nil at end of input, or when `deadline` passes.
    func nextLine(deadline: ContinuousClock.Instant?) -> Data? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Data(buffer[..<newline])
                buffer.removeSubrange(...newline)
                return line
            }
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { return nil }
                let (seconds, attoseconds) = left.components
                let milliseconds = Int32(
                    min(Int64(Int32.max), seconds * 1000 + attoseconds / 1_000_000_000_000_000))
                var poll = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = Glibc.poll(&poll, 1, max(1, milliseconds))
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { return nil }
            }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let count = read(fd, &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }
}
