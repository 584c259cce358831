import Locking

/// The one line a run redraws on a terminal (`12/40 scenarios, 1 failed`), kept apart from
/// every other line written while it shows.
///
/// Before any other text goes out, on standard output or standard error, the status line is
/// erased (carriage return, then ECMA-48 EL `CSI 2 K`, erase the whole line), and it is drawn
/// again after, so that a failure, a warning or a log line never lands on the end of it, and
/// the status never lands on the end of them. Every write goes through one lock, so writes from
/// concurrent scenarios cannot interleave either. Off a terminal there is no status line: text
/// passes straight through and `show` draws nothing.
final class StatusLine: Sendable {
    /// Carriage return and erase-line: the cursor back to the start of an empty line.
    static let erase = "\r\u{1B}[2K"

    private let isTerminal: Bool
    private let writeOut: @Sendable (String) -> Void
    private let writeError: @Sendable (String) -> Void
    /// The status drawn now, nil when none is.
    private let shown = Mutex<String?>(nil)

    /// - Parameter isTerminal: whether standard output is a terminal that shows a status line.
    init(
        isTerminal: Bool, writeOut: @escaping @Sendable (String) -> Void,
        writeError: @escaping @Sendable (String) -> Void
    ) {
        self.isTerminal = isTerminal
        self.writeOut = writeOut
        self.writeError = writeError
    }

    /// Draws `status` in place of the one shown. A status that already starts with the erase
    /// sequence (`ConsoleReporter.progress` on a terminal) is drawn the same.
    func show(_ status: String) {
        guard isTerminal else { return }
        let text = status.hasPrefix(Self.erase) ? String(status.dropFirst(Self.erase.count)) : status
        shown.withLock { shown in
            writeOut(Self.erase + text)
            shown = text
        }
    }

    /// Writes `text` (whole lines) to standard output, with the status line out of its way.
    func printOut(_ text: String) {
        around { writeOut(text) }
    }

    /// Writes `text` (whole lines) to standard error, with the status line out of its way.
    func printError(_ text: String) {
        around { writeError(text) }
    }

    /// Erases the status line for good: what is written next starts on a clean line.
    func clear() {
        shown.withLock { shown in
            if shown != nil { writeOut(Self.erase) }
            shown = nil
        }
    }

    /// Erases the status line, writes, and draws the status again.
    private func around(_ write: () -> Void) {
        shown.withLock { shown in
            if shown != nil { writeOut(Self.erase) }
            write()
            if let shown { writeOut(Self.erase + shown) }
        }
    }
}
