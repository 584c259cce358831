#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Replaces a file whole, so that readers see the old content or the new, never a torn mix:
/// the one way the keychain's file and the reports reach the disk.
///
/// The bytes go to a uniquely named temporary file in the target's directory, are flushed with
/// `fsync`, and the temporary file is renamed over the target: POSIX `rename` replaces the
/// target atomically when both are on one file system, which the shared directory guarantees
/// (IEEE Std 1003.1-2017, rename()). A crash thus leaves the old file or the new one.
///
/// The temporary file is hidden and unique (`.<name>.<pid>.<base-36 random>.tmp`, created with
/// `O_EXCL`): two writers never share one, globbing for `*.xml` never picks up a partial file,
/// and the process id lets ``removeStaleTemporaryFiles(in:)`` tell a dead writer's leftovers
/// from a live one's.
public enum FileReplacement {
    /// Writes `bytes` to `path` through a temporary file and `rename(2)`. The directory must
    /// exist.
    /// - Parameters:
    ///   - permissions: the new file's mode, less the umask (not those of the file it replaces).
    ///   - syncingDirectory: also `fsync` the directory after the rename, so that the rename
    ///     itself survives a power loss (best effort: some file systems refuse it).
    /// - Throws: `FileReplacementError` naming the step, the path and the reason; the
    ///   temporary file is removed on every failure.
    public static func replace(
        _ bytes: [UInt8], at path: String, permissions: UInt32 = 0o666, syncingDirectory: Bool = false
    ) throws(FileReplacementError) {
        let directory = parentDirectory(of: path)
        let (descriptor, temporaryPath) = try createTemporaryFile(
            beside: path, in: directory, permissions: permissions)
        do throws(FileReplacementError) {
            try writeAll(bytes, to: descriptor, path: temporaryPath)
            guard fsync(descriptor) == 0 else {
                throw failure(.flush, path: temporaryPath, errno)
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
            throw failure(.rename, path: path, number)
        }
        if syncingDirectory { syncDirectory(directory) }
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

    /// Opens a new file with `O_EXCL` in `directory`, named after `path`'s last component.
    private static func createTemporaryFile(
        beside path: String, in directory: String, permissions: UInt32
    ) throws(FileReplacementError) -> (Int32, String) {
        let base = path.split(separator: "/").last.map(String.init) ?? "file"
        var lastError: Int32 = EEXIST
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = "\(directory)/.\(base).\(getpid()).\(suffix).tmp"
            let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(permissions))
            if descriptor >= 0 { return (descriptor, candidate) }
            lastError = errno
            if lastError != EEXIST { break }
        }
        throw failure(.createFile, path: path, lastError)
    }

    /// Writes every byte, continuing after short writes and signals.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String)
        throws(FileReplacementError)
    {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { rest in
                posixWrite(descriptor, rest.baseAddress, rest.count)
            }
            if written < 0 {
                let number = errno
                if number == EINTR { continue }
                throw failure(.write, path: path, number)
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

    private static func failure(_ code: FileReplacementError.Code, path: String, _ number: Int32)
        -> FileReplacementError
    {
        FileReplacementError(
            code, path: path, systemErrorNumber: number, reason: String(cString: strerror(number)))
    }
}

/// `write(2)`.
private func posixWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
    #else
        Darwin.write(descriptor, buffer, count)
    #endif
}
