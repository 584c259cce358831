import CCurl
import Foundation
import HTTPCore
import Synchronization

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
final class CurlMultiLoop: @unchecked Sendable {
    private enum Command {
        case add(CurlTransfer)
        case cancel(CurlTransfer)
    }

    private struct Queue {
        var commands: [Command] = []
        var threadRunning = false
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

    private func enqueue(_ command: Command) {
        let startThread = queue.withLock { queue in
            queue.commands.append(command)
            if queue.threadRunning { return false }
            queue.threadRunning = true
            return true
        }
        if startThread {
            let thread = Thread { [self] in run() }
            thread.name = "curl-multi"
            thread.start()
        } else {
            _ = curl_multi_wakeup(multi)
        }
    }

    private func run() {
        let clock = ContinuousClock()
        var idleSince = clock.now
        while true {
            let commands: [Command]? = queue.withLock { queue in
                if queue.commands.isEmpty && active.isEmpty && clock.now - idleSince >= idleLifetime {
                    queue.threadRunning = false
                    return nil
                }
                defer { queue.commands.removeAll(keepingCapacity: true) }
                return queue.commands
            }
            guard let commands else { return }
            for command in commands {
                switch command {
                case .add(let transfer): add(transfer)
                case .cancel(let transfer): cancel(transferOnLoop: transfer)
                }
            }

            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            collectFinished()

            if !commands.isEmpty || !active.isEmpty { idleSince = clock.now }
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
