import CWebKitGTK
import Foundation

/// The helper's own X server: an Xvfb on a display it picks itself (`-displayfd`), listening
/// on no TCP port, that receives SIGTERM when the helper's main thread ends
/// (`PR_SET_PDEATHSIG`; the main thread lives as long as the helper).
final class XvfbDisplay: Sendable {
    let name: String
    let pid: pid_t

    private init(name: String, pid: pid_t) {
        self.name = name
        self.pid = pid
    }

    struct StartError: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts Xvfb and waits (at most 10 s) until it says which display it took.
    static func start() throws(StartError) -> XvfbDisplay {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw StartError(description: "pipe: \(String(cString: strerror(errno)))")
        }
        let (readEnd, writeEnd) = (fds[0], fds[1])
        let argv = [
            "Xvfb", "-displayfd", "\(writeEnd)", "-screen", "0", "1280x1024x24", "-nolisten", "tcp",
            "-noreset",
        ]
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        let pid = signinsim_spawn_bound_to_parent(&cArguments, writeEnd, SIGTERM)
        close(writeEnd)
        defer { close(readEnd) }
        guard pid > 0 else { throw StartError(description: "fork: \(String(cString: strerror(errno)))") }
        var text = ""
        let deadline = Date().addingTimeInterval(10)
        while !text.contains("\n") {
            var poll = pollfd(fd: readEnd, events: Int16(POLLIN), revents: 0)
            let remaining = Int32(max(0, deadline.timeIntervalSinceNow * 1000))
            guard remaining > 0, Glibc.poll(&poll, 1, remaining) > 0 else {
                kill(pid, SIGKILL)
                throw StartError(
                    description: "Xvfb named no display within 10 s (is the xvfb package installed?)")
            }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(readEnd, &buffer, buffer.count)
            if count <= 0 {
                var status: Int32 = 0
                waitpid(pid, &status, 0)
                throw StartError(
                    description:
                        "Xvfb exited before naming a display (status \(status)); is the xvfb package installed?"
                )
            }
            text += String(decoding: buffer[..<count], as: UTF8.self)
        }
        let number = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return XvfbDisplay(name: ":" + number, pid: pid)
    }

    /// Asks the server to end (it removes its lock file) and reaps it; kills it after 200 ms.
    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        for _ in 0..<20 {
            if waitpid(pid, &status, WNOHANG) == pid { return }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }
}
