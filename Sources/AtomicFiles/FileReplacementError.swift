public import Errors

/// Why a file could not be replaced: the step that failed, the path it was about and the
/// operating system's reason. Callers translate it into their own domain's error (the
/// keychain's `DeviceError`, the reports' `ReportError`).
public struct FileReplacementError: CodedError {
    public enum Code: String, Sendable, Hashable {
        /// The temporary file beside the target could not be created.
        case createFile = "create_file"
        /// Writing the temporary file failed (disk full, I/O error).
        case write = "write"
        /// `fsync` of the temporary file failed.
        case flush = "flush"
        /// The temporary file could not be renamed over the target.
        case rename = "rename"
    }

    public let code: Code
    /// The path the failed step was about: the temporary file for `write` and `flush`, the
    /// file being replaced for `createFile` and `rename`.
    public let path: String
    /// The `errno` value behind the failure.
    public let systemErrorNumber: Int32
    /// The operating system's words for `systemErrorNumber` (`strerror`).
    public let reason: String

    public init(_ code: Code, path: String, systemErrorNumber: Int32, reason: String) {
        self.code = code
        self.path = path
        self.systemErrorNumber = systemErrorNumber
        self.reason = reason
    }

    /// What failed, on which path, and why.
    public var message: String {
        let step =
            switch code {
            case .createFile: "cannot create a temporary file beside '\(path)'"
            case .write: "cannot write '\(path)'"
            case .flush: "cannot flush '\(path)' to disk"
            case .rename: "cannot replace '\(path)'"
            }
        return "\(step): \(reason)"
    }
}
