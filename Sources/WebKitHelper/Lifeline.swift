import Foundation

/// The helper's tie to its driver: a pipe the driver keeps the write end of.
///
/// `PR_SET_PDEATHSIG` fires when the *thread* that forked a child exits, and the driver starts
/// helpers from Swift's task pool, whose threads come and go: so the helper does not rely on it.
/// A thread of its own blocks reading the pipe; end of file means the driver's process is gone
/// (the kernel closes its descriptors on any exit, SIGKILL included). The helper then stops its
/// X server and kills its process group (WebKit's web and network processes with it) at once,
/// whatever its main loop is doing.
enum Lifeline {
    static func watch(fd: Int32, onEnd: @escaping @Sendable () -> Void) {
        let thread = Thread {
            var byte: UInt8 = 0
            while true {
                let count = read(fd, &byte, 1)
                if count == 0 || (count < 0 && errno != EINTR) { break }
            }
            onEnd()
            endGroup()
        }
        thread.name = "lifeline"
        thread.start()
    }

    /// Ends the helper and, when it leads its process group (as the driver starts it), everything
    /// in the group: WebKit's network and web processes (and their sandbox) do not wait to notice
    /// that their UI process is gone.
    static func endGroup() -> Never {
        if getpgrp() == getpid() { kill(0, SIGKILL) }
        _exit(0)
    }
}
