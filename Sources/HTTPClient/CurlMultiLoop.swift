import CCurl
import Foundation
import HTTPCore
import Locking

/// A libcurl multi handle driven by a thread of its own.
///
/// Why not `curl_easy_perform` on a thread pool: it blocks one thread per request, so 64
/// concurrent requests need 64 threads, and cancelling means polling a flag from a progress
/// callback. One multi handle runs any number of transfers on one thread, keeps the connection
/// cache (keep-alive) for all of them, and a cancelled transfer is simply removed from it.
///
/// The thread starts with the first request and ends after `idleLifetime` without work, so an
/// idle transport holds no thread; the multi handle and its idle connections stay until the
/// loop is released. Callers talk to the thread through a locked queue of commands and
/// `curl_multi_wakeup`; everything else (the active transfers, the multi handle, all curl
/// callbacks) belongs to whichever loop thread is running — at most one at a time.
///
/// The loop is also a `TaskExecutor`: jobs enqueued on it run on the loop thread before the next
/// round of transfers. A task that prefers it submits its request without waking another thread,
/// and the response resumes it on the thread that read it: per request, the only hand-offs left
/// are the two with the server.
final class CurlMultiLoop: @unchecked Sendable {
    private enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
    }

    private struct Queue {
        var commands: [Command] = []
        var jobs: [UnownedJob] = []
        var threadRunning = false
        /// The loop thread has found the queue empty and is in (or about to enter)
        /// `curl_multi_poll`: the next work queued must wake it. Cleared by the first waker
        /// (one wake-up is enough: libcurl keeps it until the poll) and by the loop itself
        /// when it looks at the queue again.
        var loopSleeping = false

        /// Everything queued, leaving the queue empty.
        mutating func take() -> (commands: [Command], jobs: [UnownedJob]) {
            (takeCommands(), takeJobs())
        }

        mutating func takeCommands() -> [Command] {
            defer { commands = [] }
            return commands
        }

        mutating func takeJobs() -> [UnownedJob] {
            defer { jobs = [] }
            return jobs
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let queue = Mutex(Queue())
    private let idleLifetime: Duration
    /// Loop thread only.
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    init(maximumConnections: Int, idleLifetime: Duration = .seconds(5)) {
        ensureCurlGlobalInit()
        guard let multi = curl_multi_init() else { fatalError("curl_multi_init failed: out of memory") }
        self.multi = multi
        self.idleLifetime = idleLifetime
        _ = sis_multi_setopt_long(multi, CURLMOPT_MAX_TOTAL_CONNECTIONS, maximumConnections)
        _ = sis_multi_setopt_long(multi, CURLMOPT_MAXCONNECTS, maximumConnections)
    }

    deinit {
        // The running thread holds the loop, so no thread and no transfer is left here.
        curl_multi_cleanup(multi)
    }

    /// Starts a configured transfer; its continuation is resumed on the loop thread.
    func submit(_ transfer: CurlTransfer) { enqueue(.add(transfer)) }

    /// Stops a transfer if it is still running, resuming it with `HTTPError.Code.cancelled`.
    func cancel(_ transfer: CurlTransfer) { enqueue(.cancel(transfer)) }

    private func enqueue(_ command: Command) { queueing { $0.commands.append(command) } }

    /// Adds work under the lock, then starts the loop thread if none runs, or wakes the one
    /// that does if it sleeps. A loop thread that is awake looks at the queue before it sleeps,
    /// so work queued meanwhile (from any thread) needs no wake-up: under load that spares a
    /// write to libcurl's wake-up socket and a poll round per request.
    private func queueing(_ add: (inout Queue) -> Void) {
        let (startThread, wake) = queue.withLock { queue in
            add(&queue)
            if queue.threadRunning {
                defer { queue.loopSleeping = false }
                return (false, queue.loopSleeping)
            }
            queue.threadRunning = true
            return (true, false)
        }
        if startThread {
            // Named by the kernel's own call: Foundation on Linux does not pass `Thread.name`
            // on, and a new thread otherwise keeps the name of the pool thread that made it.
            let thread = Thread { [self] in
                _ = sis_name_current_thread("curl-multi")
                run()
            }
            thread.start()
        } else if wake {
            _ = curl_multi_wakeup(multi)
        }
    }

    private func run() {
        let executor = asUnownedTaskExecutor()
        let clock = ContinuousClock()
        var idleSince = clock.now
        while true {
            let taken: (commands: [Command], jobs: [UnownedJob])? = queue.withLock { queue in
                queue.loopSleeping = false
                if queue.commands.isEmpty && queue.jobs.isEmpty && active.isEmpty
                    && clock.now - idleSince >= idleLifetime
                {
                    queue.threadRunning = false
                    return nil
                }
                return queue.take()
            }
            guard let taken else { return }
            // Jobs first: the requests they submit join this round.
            for job in taken.jobs { job.runSynchronously(on: executor) }
            var commands = taken.commands
            if !taken.jobs.isEmpty { commands += queue.withLock { $0.takeCommands() } }
            for command in commands {
                switch command {
                case .add(let transfer): add(transfer)
                case .cancel(let transfer): cancel(transferOnLoop: transfer)
                }
            }

            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            // Resumes the callers; those that prefer this executor enqueue their jobs here,
            // without a wake-up, since this thread looks at the queue before it sleeps.
            collectFinished()

            if !commands.isEmpty || !taken.jobs.isEmpty || !active.isEmpty { idleSince = clock.now }
            let sleeping = queue.withLock { queue in
                queue.loopSleeping = queue.commands.isEmpty && queue.jobs.isEmpty
                return queue.loopSleeping
            }
            if !sleeping { continue }
            if active.isEmpty {
                let remaining = idleLifetime - (clock.now - idleSince)
                _ = curl_multi_poll(multi, nil, 0, Int32(max(1, remaining.curlMilliseconds)), nil)
            } else {
                // libcurl shortens the wait to its own next timeout.
                _ = curl_multi_poll(multi, nil, 0, 1000, nil)
            }
        }
    }

    private func add(_ transfer: CurlTransfer) {
        guard !transfer.isFinished else { return }
        if transfer.cancelRequested {
            finish(
                transfer, with: .failure(HTTPError(.cancelled, "the request was cancelled")), removing: false)
            return
        }
        let code = curl_multi_add_handle(multi, transfer.easy)
        guard code == CURLM_OK else {
            let message = String(cString: curl_multi_strerror(code))
            finish(
                transfer, with: .failure(HTTPError(.transport, "curl_multi_add_handle: \(message)")),
                removing: false)
            return
        }
        active[transfer.easy] = transfer
    }

    private func cancel(transferOnLoop transfer: CurlTransfer) {
        guard !transfer.isFinished else { return }
        guard active[transfer.easy] === transfer else {
            transfer.cancelRequested = true
            return
        }
        finish(transfer, with: .failure(HTTPError(.cancelled, "the request was cancelled")), removing: true)
    }

    private func collectFinished() {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                let transfer = active[easy]
            else { continue }
            let code = message.pointee.data.result
            finish(transfer, with: transfer.result(for: code), removing: true)
        }
    }

    private func finish(
        _ transfer: CurlTransfer, with result: Result<HTTPResponse, HTTPError>, removing: Bool
    ) {
        if removing {
            _ = curl_multi_remove_handle(multi, transfer.easy)
            active[transfer.easy] = nil
        }
        transfer.isFinished = true
        transfer.release()
        let continuation = transfer.continuation
        transfer.continuation = nil
        continuation?.resume(returning: result)
    }
}

extension CurlMultiLoop: TaskExecutor {
    /// Runs a job on the loop thread, between rounds of libcurl work.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queueing { $0.jobs.append(job) }
    }
}
