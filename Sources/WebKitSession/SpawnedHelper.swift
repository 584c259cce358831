import Foundation

/// The descriptors of a helper just started with `posix_spawn`.
struct SpawnedHelper {
    let pid: pid_t
    /// The helper's standard input (commands), written here.
    let commands: Int32
    /// The helper's standard output (messages), read here.
    let messages: Int32
    /// The write end of the lifeline: the helper's descriptor 3 reads end of file when this
    /// process is gone.
    let lifeline: Int32

    struct SpawnError: Error, CustomStringConvertible {
        var description: String
    }

    /// Starts `path --lifeline-fd 3` in a new process group, standard error to `logPath`.
    static func spawn(path: String, logPath: String) throws(SpawnError) -> SpawnedHelper {
        func pipePair() throws(SpawnError) -> (read: Int32, write: Int32) {
            var fds: [Int32] = [0, 0]
            // Close-on-exec here: only the duplicates the spawn makes reach the helper, so that no
            // other child of this process holds a helper's pipe (or its lifeline) open.
            guard pipe(&fds) == 0 else {
                throw SpawnError(description: "pipe: \(String(cString: strerror(errno)))")
            }
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return (fds[0], fds[1])
        }
        let commands = try pipePair()
        let messages = try pipePair()
        let lifeline = try pipePair()
        let log = open(logPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard log >= 0 else {
            for fd in [
                commands.read, commands.write, messages.read, messages.write, lifeline.read, lifeline.write,
            ] {
                close(fd)
            }
            throw SpawnError(description: "cannot write \(logPath): \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, commands.read, 0)
        posix_spawn_file_actions_adddup2(&actions, messages.write, 1)
        posix_spawn_file_actions_adddup2(&actions, log, 2)
        posix_spawn_file_actions_adddup2(&actions, lifeline.read, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // A group of its own, default signal handling and an empty mask whatever this process set.
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)

        let arguments = [path, "--lifeline-fd", "3"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, path, &actions, &attributes, &argv, environ)
        for fd in [commands.read, messages.write, lifeline.read, log] { close(fd) }
        guard status == 0 else {
            for fd in [commands.write, messages.read, lifeline.write] { close(fd) }
            throw SpawnError(description: String(cString: strerror(status)))
        }
        return SpawnedHelper(
            pid: pid, commands: commands.write, messages: messages.read, lifeline: lifeline.write)
    }

    /// Runs `path` with `arguments` to its end and returns its exit status (-1 when it could not
    /// start, or died of a signal) and what it wrote to standard error (the first 4 KB). With
    /// `posix_spawn` and `waitpid` rather than Foundation's `Process`, whose wait needs a
    /// Dispatch thread of the same pool its caller may be holding.
    static func probe(path: String, arguments: [String]) -> (status: Int32, errors: String) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return (-1, String(cString: strerror(errno))) }
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let started = posix_spawn(&pid, path, &actions, nil, &argv, environ)
        close(fds[1])
        defer { close(fds[0]) }
        guard started == 0 else { return (-1, String(cString: strerror(started))) }
        var errors: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fds[0], &chunk, chunk.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            if errors.count < 4096 { errors += chunk[..<count] }
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        let exited = (status & 0x7f) == 0
        return (exited ? (status >> 8) & 0xff : -1, String(decoding: errors.prefix(4096), as: UTF8.self))
    }

    /// Ends the helper and its group at once.
    func kill() {
        Glibc.kill(-pid, SIGKILL)
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        close(commands)
        close(lifeline)
    }
}
