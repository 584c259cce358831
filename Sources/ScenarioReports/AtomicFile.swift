#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a file so that readers see the old content or the new, never a torn mix.
///
/// The bytes go to a uniquely named temporary file in the target's directory, are flushed with
/// `fsync`, and the temporary file is renamed over the target: POSIX `rename` replaces the
/// target atomically when both are on one file system, which the shared directory guarantees
/// (IEEE Std 1003.1-2017, rename()). A CI job that uploads `report.xml` while a run is still
/// writing it thus never uploads half a document.
///
/// The new file gets the permissions of any new file (0666 less the umask), not those of the
/// file it replaces.
public enum AtomicFile {
    /// Writes `bytes` to `path`, creating missing parent directories and replacing any file
    /// already there.
    /// - Throws: `ReportError` naming the path and the operating system's reason; the
    ///   temporary file is removed on every failure.
    public static func write(_ bytes: [UInt8], to path: String) throws(ReportError) {
        let directory = parentDirectory(of: path)
        try createDirectories(directory)
        let (descriptor, temporaryPath) = try createTemporaryFile(beside: path, in: directory)
        do throws(ReportError) {
            try writeAll(bytes, to: descriptor, path: temporaryPath)
            guard fsync(descriptor) == 0 else {
                let number = errno
                throw ReportError(
                    .write, "cannot flush '\(temporaryPath)' to disk: \(reason(number))",
                    path: temporaryPath, systemErrorNumber: number)
            }
        } catch {
            close(descriptor)
            unlink(temporaryPath)
            throw error
        }
        close(descriptor)
        guard rename(temporaryPath, path) == 0 else {
            let number = errno
            unlink(temporaryPath)
            throw ReportError(
                .rename, "cannot replace '\(path)': \(reason(number))", path: path, systemErrorNumber: number)
        }
        syncDirectory(directory)
    }

    /// Removes the temporary files `write` left in `directory` when its process died between
    /// creating one and renaming it (SIGKILL, a crash, power loss): hidden files named as
    /// `createTemporaryFile` names them, `.<name>.<pid>.<random>.tmp`, whose process no longer
    /// exists. A file of a live process, this one included, is left alone: its writer may still
    /// rename it. Nothing else is touched, and a directory that cannot be read is no error.
    /// - Returns: the paths removed.
    @discardableResult
    public static func removeStaleTemporaryFiles(in directory: String) -> [String] {
        var removed: [String] = []
        for name in entries(of: directory) {
            guard let pid = temporaryFileOwner(name), pid != getpid(), !isRunning(pid) else { continue }
            let path = "\(directory)/\(name)"
            if unlink(path) == 0 { removed.append(path) }
        }
        return removed
    }

    /// The process id in a name of the form `.<name>.<pid>.<base-36 random>.tmp`, or `nil`
    /// when the name is not one `createTemporaryFile` makes.
    static func temporaryFileOwner(_ name: String) -> pid_t? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let parts = name.dropFirst().dropLast(4).split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 3, !parts[0].isEmpty else { return nil }
        let random = parts[parts.count - 1]
        let pid = parts[parts.count - 2]
        guard !random.isEmpty, random.utf8.allSatisfy(isBase36Digit), !pid.isEmpty,
            pid.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let value = pid_t(pid), value > 0
        else { return nil }
        return value
    }

    private static func isBase36Digit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
    }

    /// Whether a process with this id exists (`kill(pid, 0)`; EPERM means it does, as
    /// another user's).
    private static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno != ESRCH
    }

    /// The names in `directory`, `.` and `..` left out; none when it cannot be read.
    private static func entries(of directory: String) -> [String] {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// The directory part of `path`: `.` for a bare name, `/` for a file at the root.
    public static func parentDirectory(of path: String) -> String {
        var bytes = Array(path.utf8)
        while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return "." }
        var end = slash
        while end > 0, bytes[end - 1] == UInt8(ascii: "/") { end -= 1 }
        return end == 0 ? "/" : String(decoding: bytes[..<end], as: UTF8.self)
    }

    /// `mkdir -p`: creates each missing component, accepting ones that already are directories.
    private static func createDirectories(_ directory: String) throws(ReportError) {
        if isDirectory(directory) { return }
        let parent = parentDirectory(of: directory)
        if parent != directory { try createDirectories(parent) }
        guard mkdir(directory, 0o777) == 0 else {
            var number = errno
            if number == EEXIST {
                if isDirectory(directory) { return }
                // Something that is not a directory is in the way: say so, not "File exists".
                number = ENOTDIR
            }
            throw ReportError(
                .createDirectory, "cannot create directory '\(directory)': \(reason(number))",
                path: directory, systemErrorNumber: number)
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }

    /// Opens a new file with `O_EXCL`, so that two writers never share a temporary file. The
    /// name is hidden (leading dot) so that globbing for `*.xml` never picks up a partial file,
    /// and holds the process id so that `removeStaleTemporaryFiles(in:)` can tell a dead
    /// writer's leftovers from a live one's.
    private static func createTemporaryFile(
        beside path: String, in directory: String
    ) throws(ReportError) -> (Int32, String) {
        let base = path.split(separator: "/").last.map(String.init) ?? "file"
        var lastError: Int32 = EEXIST
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = "\(directory)/.\(base).\(getpid()).\(suffix).tmp"
            let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
            if descriptor >= 0 { return (descriptor, candidate) }
            lastError = errno
            if lastError != EEXIST { break }
        }
        throw ReportError(
            .createFile,
            "cannot create a temporary file in '\(directory)' for '\(path)': \(reason(lastError))",
            path: path, systemErrorNumber: lastError)
    }

    /// Writes every byte, continuing after short writes and signals.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String) throws(ReportError) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { rest in
                posixWrite(descriptor, rest.baseAddress, rest.count)
            }
            if written < 0 {
                let number = errno
                if number == EINTR { continue }
                throw ReportError(
                    .write, "cannot write '\(path)': \(reason(number))", path: path, systemErrorNumber: number
                )
            }
            offset += written
        }
    }

    /// Makes the rename itself durable. Best effort: some file systems refuse `fsync` on a
    /// directory, and the file's content is already safe by then.
    private static func syncDirectory(_ directory: String) {
        let descriptor = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        close(descriptor)
    }

    private static func reason(_ number: Int32) -> String {
        String(cString: strerror(number))
    }
}

/// `write(2)`, named apart from `AtomicFile.write`.
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}
