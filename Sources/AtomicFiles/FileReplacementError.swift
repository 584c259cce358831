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
    /// target for `createFile` and `rename`.
    public let path: String
    /// The path of the file being replaced.
    public let target: String
    /// The `errno` value behind the failure.
    public let systemErrorNumber: Int32
    /// The operating system's words for `systemErrorNumber` (`strerror`).
    public let reason: String

    public init(_ code: Code, path: String, target: String, systemErrorNumber: Int32, reason: String) {
        self.code = code
        self.path = path
        self.target = target
        self.systemErrorNumber = systemErrorNumber
        self.reason = reason
    }

    public var message: String { "\(code.rawValue) '\(path)': \(reason)" }
}
