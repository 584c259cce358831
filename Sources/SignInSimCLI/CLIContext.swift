import Cryptography
import Foundation
import JSON

/// Everything a command touches outside itself: streams, files, time and randomness.
///
/// Commands never reach for globals, so tests run them in-process with captured streams, a
/// fixed clock and a seeded random source.
struct CLIContext: Sendable {
    var writeOut: @Sendable (String) -> Void
    var writeError: @Sendable (String) -> Void
    var readInput: @Sendable () throws -> [UInt8]
    var readFile: @Sendable (String) throws -> [UInt8]
    /// Seconds since the epoch.
    var now: @Sendable () -> Int64
    var random: any RandomSource
    /// Environment variables (for `NO_COLOR`, scenario `${VAR}` substitution and `-e NAME`).
    var environment: [String: String]
    /// Whether standard output is a terminal, where `run` redraws a status line.
    var standardOutputIsTerminal: Bool

    /// Largest file or standard input a command reads.
    static let maximumInputSize = 16 << 20

    /// The real process: standard streams, the file system, the system clock and CSPRNG.
    static func live() -> CLIContext {
        CLIContext(
            writeOut: { text in writeAll(text, to: STDOUT_FILENO) },
            writeError: { text in writeAll(text, to: STDERR_FILENO) },
            readInput: {
                let data = try FileHandle.standardInput.read(upToCount: maximumInputSize + 1) ?? Data()
                guard data.count <= maximumInputSize else {
                    throw CommandFailure("standard input is larger than \(maximumInputSize) bytes")
                }
                return [UInt8](data)
            },
            readFile: { path in
                let url = URL(fileURLWithPath: path)
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                if let size = attributes?[.size] as? Int, size > maximumInputSize {
                    throw CommandFailure("\(path): the file is larger than \(maximumInputSize) bytes")
                }
                do {
                    return [UInt8](try Data(contentsOf: url))
                } catch {
                    throw CommandFailure("\(path): cannot read the file (\(error.localizedDescription))")
                }
            },
            now: { Int64(Date().timeIntervalSince1970) },
            random: SystemRandom(),
            environment: ProcessInfo.processInfo.environment,
            standardOutputIsTerminal: isatty(STDOUT_FILENO) == 1)
    }
}

/// Writes all of `text` to a file descriptor, unbuffered: one `write(2)` for a line shorter
/// than `PIPE_BUF`, so that lines from several threads never interleave. `serve` logs a line
/// per request this way; `FileHandle.write` copied each line into a `Data` first. A write
/// error (a full disk) loses the text rather than stopping the command; a reader that went away
/// ends the process with SIGPIPE, as it ends any Unix filter.
private func writeAll(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

extension CLIContext {
    /// Prints a JSON document, indented, on standard output.
    func printJSON(_ value: JSONValue) {
        writeOut(value.prettyPrinted() + "\n")
    }
}
