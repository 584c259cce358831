public import Errors

/// Why a report could not be written.
///
/// Reports are rendered in memory and cannot fail; only putting them on disk can, so every
/// error names the path it was about and the operating system's reason.
public struct ReportError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// A missing parent directory could not be created (a path component is a file, no
        /// permission, read-only file system).
        case createDirectory = "create_directory"
        /// The temporary file beside the target could not be created.
        case createFile = "create_file"
        /// Writing or syncing the temporary file failed (disk full, I/O error).
        case write = "write"
        /// The temporary file could not be renamed over the target.
        case rename = "rename"
    }

    public let code: Code
    /// One sentence naming the path and the reason.
    public let message: String
    /// The path the failed operation was about.
    public let path: String
    /// The `errno` value behind the failure.
    public let systemErrorNumber: Int32

    public init(_ code: Code, _ message: String, path: String, systemErrorNumber: Int32) {
        self.code = code
        self.message = message
        self.path = path
        self.systemErrorNumber = systemErrorNumber
    }

}
