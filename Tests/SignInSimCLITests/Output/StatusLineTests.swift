import Foundation
import TestSupport
import Testing

@testable import SignInSimCLI

/// The status line of `run` on a terminal never mixes with other output (issue 28).
@Suite("Status line")
struct StatusLineTests {
    static let erase = "\r\u{1B}[2K"

    static func statusLine(_ streams: CapturedStreams, isTerminal: Bool = true) -> StatusLine {
        let context = streams.context()
        return StatusLine(isTerminal: isTerminal, writeOut: context.writeOut, writeError: context.writeError)
    }

    /// Each write to either stream is preceded by erasing the status and followed by drawing
    /// it again; the end erases it for good.
    @Test("the status is erased before other output and drawn again after")
    func erasesAndRedraws() {
        let streams = CapturedStreams()
        let line = Self.statusLine(streams)
        line.printOut("before any status\n")
        line.show("1/3 scenarios")
        line.printError("signinsim: cannot write x.har: disk full\n")
        line.show(Self.erase + "2/3 scenarios, 1 failed")
        line.printOut("✗ fails (b.yaml)\n")
        line.clear()
        line.clear()
        #expect(
            streams.all == [
                .standardOutput("before any status\n"),
                .standardOutput(Self.erase + "1/3 scenarios"),
                .standardOutput(Self.erase),
                .standardError("signinsim: cannot write x.har: disk full\n"),
                .standardOutput(Self.erase + "1/3 scenarios"),
                .standardOutput(Self.erase + "2/3 scenarios, 1 failed"),
                .standardOutput(Self.erase),
                .standardOutput("✗ fails (b.yaml)\n"),
                .standardOutput(Self.erase + "2/3 scenarios, 1 failed"),
                .standardOutput(Self.erase),
            ])
    }

    /// Off a terminal there is no status line to draw or erase.
    @Test("off a terminal, text passes straight through")
    func offTerminal() {
        let streams = CapturedStreams()
        let line = Self.statusLine(streams, isTerminal: false)
        line.show("1/3 scenarios")
        line.printOut("✓ passes\n")
        line.printError("warning\n")
        line.clear()
        #expect(streams.all == [.standardOutput("✓ passes\n"), .standardError("warning\n")])
    }

    /// Lines written from many threads at once never land inside one another or on the status.
    @Test("concurrent writers do not interleave")
    func concurrentWriters() async {
        let streams = CapturedStreams()
        let line = Self.statusLine(streams)
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<50 {
                group.addTask {
                    line.show("\(index)/50 scenarios")
                    line.printOut("✗ scenario \(index)\n")
                }
            }
        }
        line.clear()
        #expect(Self.mixedChunks(streams.interleaved).isEmpty)
    }

    /// A run on a (fake) terminal: every line of a failure, and the summary, start on a line
    /// the status was erased from; the status is never followed by other text.
    @Test("run on a terminal keeps the progress line apart from failures and the summary")
    func runOnTerminal() async throws {
        let folder = try RunCommandTests.folder([
            "a.yaml": RunCommandTests.failing, "b.yaml": RunCommandTests.passing,
            "c.yaml": RunCommandTests.failing,
        ])
        let streams = CapturedStreams()
        var context = streams.context(environment: ["NO_COLOR": "1"])
        context.standardOutputIsTerminal = true
        let status = await SignInSimCLI.run(["run", folder.url.path, "--jobs", "1"], context: context)
        #expect(status == 1, "\(streams.interleaved)")
        let screen = streams.interleaved
        #expect(screen.contains(Self.erase + "1/3 scenarios, 1 failed"), "\(screen.debugDescription)")
        #expect(screen.contains(Self.erase + "✗ fails"), "\(screen.debugDescription)")
        let afterLastErase = screen.components(separatedBy: Self.erase).last ?? ""
        #expect(afterLastErase.hasPrefix("1 passed, 2 failed, 0 skipped"), "\(screen.debugDescription)")
        #expect(Self.mixedChunks(screen).isEmpty, "\(screen.debugDescription)")
    }

    /// The pieces between erase sequences that hold a status with other text after it, or
    /// other text that does not end its line: what the eye sees as mixed output.
    static func mixedChunks(_ screen: String) -> [String] {
        screen.components(separatedBy: erase).filter { chunk in
            guard !chunk.isEmpty else { return false }
            let startsWithStatus =
                chunk.range(of: #"^[0-9]+/[0-9]+ scenarios"#, options: .regularExpression) != nil
            let isStatus =
                chunk.range(of: #"^[0-9]+/[0-9]+ scenarios(, [0-9]+ failed)?$"#, options: .regularExpression)
                != nil
            return startsWithStatus ? !isStatus : !chunk.hasSuffix("\n")
        }
    }
}
