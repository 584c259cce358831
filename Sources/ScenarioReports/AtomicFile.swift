import AtomicFiles

#if canImport(Glibc)
    @preconcurrency import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a report so that readers see the old content or the new, never a torn mix, on the
/// replacement the keychain's file shares (`FileReplacement`, module AtomicFiles: a temporary
/// file beside the target, flushed and renamed over it). A CI job that uploads `report.xml`
/// while a run is still writing it thus never uploads half a document.
///
/// The new file gets the permissions of any new file (0666 less the umask), not those of the
/// file it replaces.
public enum AtomicFile {
    /// Writes `bytes` to `path`, creating missing parent directories and replacing any file
    /// already there (`FileReplacement`, with the directory synced after the rename).
    /// - Throws: `ReportError` naming the path and the operating system's reason; the
    ///   temporary file is removed on every failure.
    public static func write(_ bytes: [UInt8], to path: String) throws(ReportError) {
        let directory = parentDirectory(of: path)
        try createDirectories(directory)
        do {
            try FileReplacement.replace(bytes, at: path, syncingDirectory: true)
        } catch {
            throw reportError(error, directory: directory)
        }
    }

    /// Removes the temporary files `write` left in `directory` when its process died between
    /// creating one and renaming it (`FileReplacement.removeStaleTemporaryFiles(in:)`).
    /// - Returns: the paths removed.
    @discardableResult
    public static func removeStaleTemporaryFiles(in directory: String) -> [String] {
        FileReplacement.removeStaleTemporaryFiles(in: directory)
    }

    /// The directory part of `path`: `.` for a bare name, `/` for a file at the root.
    public static func parentDirectory(of path: String) -> String {
        FileReplacement.parentDirectory(of: path)
    }

    /// The reports' words for a failed replacement.
    private static func reportError(_ error: FileReplacementError, directory: String) -> ReportError {
        let number = error.systemErrorNumber
        switch error.code {
        case .createFile:
            return ReportError(
                .createFile,
                "cannot create a temporary file in '\(directory)' for '\(error.path)': \(error.reason)",
                path: error.path, systemErrorNumber: number)
        case .write:
            return ReportError(
                .write, "cannot write '\(error.path)': \(error.reason)", path: error.path,
                systemErrorNumber: number)
        case .flush:
            return ReportError(
                .write, "cannot flush '\(error.path)' to disk: \(error.reason)", path: error.path,
                systemErrorNumber: number)
        case .rename:
            return ReportError(
                .rename, "cannot replace '\(error.path)': \(error.reason)", path: error.path,
                systemErrorNumber: number)
        }
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

    private static func reason(_ number: Int32) -> String {
        String(cString: strerror(number))
    }
}
