import ScenarioReports

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A place a command writes a report, checked before anything runs: a run of many minutes
/// that cannot write its JUnit file at the end is a CI job that failed for nothing.
///
/// The check writes: a folder is created (as the run would create it), and a hidden file is
/// created and removed again where the report's file will go. Permissions, a read-only file
/// system, a file in the way of a folder and a missing parent on the way all show up as they
/// would at the end. The hidden file is named as `AtomicFile`'s temporary files are, so that
/// should the process die between the two, the next run removes it.
enum ReportDestination: Sendable {
    /// A file the report replaces (`--junit report.xml`): missing folders on the way are made
    /// when it is written.
    case file(option: String, path: String)
    /// A folder the command writes files into (`--har-dir har`): made now.
    case directory(option: String, path: String)

    /// Why a destination cannot be written to.
    struct Unwritable: Error, Sendable, CustomStringConvertible {
        let option: String
        let path: String
        let reason: String

        var description: String { "cannot write '--\(option) \(path)': \(reason)" }
    }

    /// Writes a finished report, whole or not at all (`AtomicFile`); a failure ends the command
    /// with `exitCode`.
    static func write(_ bytes: [UInt8], to path: String, exitCode: ExitCode = .failure) throws(CommandFailure)
    {
        do {
            try AtomicFile.write(bytes, to: path)
        } catch {
            throw CommandFailure("cannot write the report: \(error)", exitCode: exitCode)
        }
    }

    /// Throws when the destination cannot be written, leaving no file behind.
    func check() throws(Unwritable) {
        switch self {
        case .file(let option, let path):
            guard !path.isEmpty else {
                throw Unwritable(option: option, path: path, reason: "the path is empty")
            }
            if Self.isDirectory(path) || path.hasSuffix("/") {
                throw Unwritable(option: option, path: path, reason: "it is a folder, not a file")
            }
            let folder = AtomicFile.parentDirectory(of: path)
            do throws(FileSystemError) {
                try Self.probe(Self.nearestExistingAncestor(of: folder))
            } catch {
                throw Unwritable(option: option, path: path, reason: error.description)
            }
        case .directory(let option, let path):
            guard !path.isEmpty else {
                throw Unwritable(option: option, path: path, reason: "the path is empty")
            }
            do throws(FileSystemError) {
                try Self.createDirectories(path)
                try Self.probe(path)
            } catch {
                throw Unwritable(option: option, path: path, reason: error.description)
            }
        }
    }

    /// An operating system refusal: what was tried, on which path, and `strerror`'s reason.
    struct FileSystemError: Error, Sendable, CustomStringConvertible {
        let description: String

        init(_ action: String, _ path: String, errorNumber: Int32) {
            description = "\(action) '\(path)': \(String(cString: strerror(errorNumber)))"
        }
    }

    /// The folder itself when it exists, else the closest one above it that does: where the
    /// missing folders will be made, so where writing must be allowed. A file in the way is
    /// an error (`ENOTDIR`), as making the folder would be.
    static func nearestExistingAncestor(of folder: String) throws(FileSystemError) -> String {
        var candidate = folder
        while true {
            var status = stat()
            if stat(candidate, &status) == 0 {
                guard (status.st_mode & S_IFMT) == S_IFDIR else {
                    throw FileSystemError("cannot make a folder under", candidate, errorNumber: ENOTDIR)
                }
                return candidate
            }
            let number = errno
            guard number == ENOENT else {
                throw FileSystemError("cannot look at", candidate, errorNumber: number)
            }
            let parent = AtomicFile.parentDirectory(of: candidate)
            // `.` and `/` always exist; reaching either again means stat refuses them.
            guard parent != candidate else {
                throw FileSystemError("cannot look at", candidate, errorNumber: number)
            }
            candidate = parent
        }
    }

    /// Creates a hidden file in `folder` and removes it: whether files can be made there.
    static func probe(_ folder: String) throws(FileSystemError) {
        var lastError: Int32 = EEXIST
        for _ in 0..<16 {
            let suffix = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = "\(folder)/.signinsim-probe.\(getpid()).\(suffix).tmp"
            let descriptor = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 {
                close(descriptor)
                unlink(candidate)
                return
            }
            lastError = errno
            if lastError != EEXIST { break }
        }
        throw FileSystemError("cannot create files in", folder, errorNumber: lastError)
    }

    /// `mkdir -p`: each missing folder on the way, accepting the ones that exist.
    static func createDirectories(_ path: String) throws(FileSystemError) {
        if isDirectory(path) { return }
        let parent = AtomicFile.parentDirectory(of: path)
        if parent != path { try createDirectories(parent) }
        guard mkdir(path, 0o777) == 0 else {
            let number = errno
            if number == EEXIST, isDirectory(path) { return }
            throw FileSystemError(
                "cannot create the folder", path, errorNumber: number == EEXIST ? ENOTDIR : number)
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFDIR
    }
}
