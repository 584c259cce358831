import Foundation

/// How the helper ends before its main loop runs.
enum HelperExit {
    static func usage() -> Never {
        fail(
            "usage: signinsim-webkit [--lifeline-fd N] (started by signinsim; see docs/browser.md)",
            status: 64)
    }

    /// Writes `message` to standard error (the driver keeps it for its own error) and exits.
    static func fail(_ message: String, status: Int32 = 2) -> Never {
        FileHandle.standardError.write(Data("signinsim-webkit: \(message)\n".utf8))
        exit(status)
    }
}

/// The wire version this build speaks.
enum HelperWireVersion {
    static let current = 1
}
