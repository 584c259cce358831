import CWebKitGTK
import Foundation
import WebKitHelperProtocol

/// The helper's state and its command loop: the stores and sheets the driver opened, and the
/// GLib main loop that runs them. Confined to the main thread: every method runs there, from
/// the loop's callbacks.
final class HelperHost {
    let display: XvfbDisplay
    private var loop: OpaquePointer?
    private var input: [UInt8] = []
    private var stores: [String: BrowserStore] = [:]
    private var sheets: [String: Sheet] = [:]
    private var nextToken: UInt64 = 0
    private var quitting = false

    init(display: XvfbDisplay) {
        self.display = display
    }

    /// Runs until `quit`, or until the driver closes standard input.
    func run() {
        loop = g_main_loop_new(nil, 0)
        let flags = fcntl(0, F_GETFL)
        _ = fcntl(0, F_SETFL, flags | O_NONBLOCK)
        let conditions = GIOCondition(G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue)
        g_unix_fd_add(
            0, conditions,
            { _, _, data in
                guard let data else { return 0 }
                return Unmanaged<HelperHost>.fromOpaque(data).takeUnretainedValue().readInput() ? 1 : 0
            }, Unmanaged.passUnretained(self).toOpaque())
        let version =
            "\(webkit_get_major_version()).\(webkit_get_minor_version()).\(webkit_get_micro_version())"
        send(.event(.ready(wire: HelperWireVersion.current, webKitVersion: version, display: display.name)))
        g_main_loop_run(loop)
        for sheet in sheets.values { sheet.close() }
        sheets = [:]
        stores = [:]
    }

    /// A number unique in this helper, for decisions and dialogs.
    func token() -> UInt64 {
        nextToken += 1
        return nextToken
    }

    // MARK: Output

    func send(_ message: HelperMessage) {
        guard let line = try? HelperWire.line(message) else { return }
        line.withUnsafeBytes { buffer in
            guard var base = buffer.baseAddress else { return }
            var left = buffer.count
            while left > 0 {
                let written = write(1, base, left)
                if written < 0 {
                    if errno == EINTR { continue }
                    // The driver is gone: nothing more to say to anyone.
                    display.stop()
                    Lifeline.endGroup()
                }
                left -= written
                base += written
            }
        }
    }

    func reply(_ id: UInt64, _ result: HelperResult) {
        send(.response(HelperResponse(id: id, result: result)))
    }

    // MARK: Input

    /// Reads what standard input has; `false` (remove the watch) at its end.
    private func readInput() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = read(0, &buffer, buffer.count)
            if count > 0 {
                input += buffer[..<count]
                continue
            }
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { break }
            // End of input: the driver is done with this engine.
            quit()
            return false
        }
        while let newline = input.firstIndex(of: UInt8(ascii: "\n")) {
            let line = Data(input[..<newline])
            input.removeSubrange(...newline)
            guard !line.isEmpty else { continue }
            do {
                let request = try HelperWire.decode(HelperRequest.self, from: line)
                handle(request)
            } catch {
                FileHandle.standardError.write(Data("signinsim-webkit: unreadable command: \(error)\n".utf8))
            }
        }
        return !quitting
    }

    private func quit() {
        guard !quitting else { return }
        quitting = true
        g_main_loop_quit(loop)
    }

    // MARK: Commands

    private func handle(_ request: HelperRequest) {
        let id = request.id
        switch request.command {
        case .openStore(let name, let directory, let proxy, let tunnel):
            guard stores[name] == nil else {
                return reply(id, .failed(message: "store \(name) is open already"))
            }
            stores[name] = BrowserStore(directory: directory, proxy: proxy, tunnel: tunnel)
            reply(id, .done)
        case .closeStore(let name):
            stores[name] = nil
            reply(id, .done)
        case .openSheet(let name, let storeName, let userAgent, let width, let height):
            guard sheets[name] == nil else {
                return reply(id, .failed(message: "sheet \(name) is open already"))
            }
            guard let store = stores[storeName] else {
                return reply(id, .failed(message: "no store \(storeName)"))
            }
            sheets[name] = Sheet(
                name: name, host: self, store: store, userAgent: userAgent, width: width, height: height)
            reply(id, .done)
        case .load(let name, let url):
            guard let sheet = sheets[name] else { return reply(id, .failed(message: "no sheet \(name)")) }
            sheet.load(url)
            reply(id, .done)
        case .decide(let name, let decision, let verdict):
            guard let sheet = sheets[name] else { return reply(id, .failed(message: "no sheet \(name)")) }
            sheet.decide(decision, verdict)
            reply(id, .done)
        case .evaluate(let name, let script):
            guard let sheet = sheets[name] else { return reply(id, .failed(message: "no sheet \(name)")) }
            sheet.evaluate(script, replyTo: id)
        case .snapshot(let name, let maximumWidth, let quality):
            guard let sheet = sheets[name] else { return reply(id, .failed(message: "no sheet \(name)")) }
            sheet.snapshot(maximumWidth: maximumWidth, quality: quality, replyTo: id)
        case .cookies(let name):
            guard let store = stores[name] else { return reply(id, .failed(message: "no store \(name)")) }
            store.cookies { self.reply(id, $0) }
        case .answerDialog(let name, let dialog, let accept):
            guard let sheet = sheets[name] else { return reply(id, .failed(message: "no sheet \(name)")) }
            sheet.answerDialog(dialog, accept: accept)
            reply(id, .done)
        case .closeSheet(let name):
            sheets.removeValue(forKey: name)?.close()
            reply(id, .done)
        case .terminateWebProcess(let name):
            guard let sheet = sheets[name] else { return reply(id, .failed(message: "no sheet \(name)")) }
            sheet.terminateWebProcess()
            reply(id, .done)
        case .quit:
            reply(id, .done)
            quit()
        }
    }
}
