public import Recordings
public import ScenarioReports

/// The recorded story and the replayed one as `replay --html` draws them side by side, with
/// where they part marked on both (`SequenceDiagram.marks`).
///
/// A recorded exchange is marked with its report line's divergence (a request that differs,
/// an answer given out of order, a request the replayed app never made). A replayed exchange
/// is marked with the divergence of the recorded entry it was given, or with what became of
/// it when no recorded exchange answered it (refused, sent to a new-episodes issuer). The
/// replay server's log and the phone's are matched by method and URL, in order.
public struct ReplayComparison: Sendable {
    public var recorded: ScenarioTrace
    public var replayed: ScenarioTrace
    /// By exchange index, what parts from the other side.
    public var recordedMarks: [Int: String]
    public var replayedMarks: [Int: String]

    init(_ played: CaptureReplay.Played, capture: HARCapture) {
        let report = played.report
        recorded = capture.trace
        replayed = ScenarioTrace(exchanges: played.outcome.exchanges, recording: played.outcome.recording)
        var recordedMarks: [Int: String] = [:]
        for (index, line) in report.lines.enumerated() {
            if let divergence = line.divergence { recordedMarks[index] = divergence }
        }
        self.recordedMarks = recordedMarks
        var divergentExtras: [Int: String] = [:]
        for extra in report.extras where extra.divergence {
            divergentExtras[extra.number - 1] = extra.outcome
        }
        var unmatched = Array(replayed.exchanges.indices)
        var replayedMarks: [Int: String] = [:]
        for record in played.served.sorted(by: { $0.sequence < $1.sequence }) {
            guard
                let position = unmatched.firstIndex(where: {
                    let exchange = played.outcome.exchanges[$0]
                    return exchange.method == record.method && exchange.url == record.url
                })
            else { continue }
            let index = unmatched.remove(at: position)
            if let extra = divergentExtras[record.sequence] {
                replayedMarks[index] = extra
            } else if record.disposition == .recorded, let entry = record.entry,
                report.lines.indices.contains(entry), let divergence = report.lines[entry].divergence
            {
                replayedMarks[index] = divergence
            }
        }
        self.replayedMarks = replayedMarks
    }
}

extension CaptureReplay {
    /// Replays `capture` and returns the report with both stories for the HTML page.
    public static func runComparing(_ capture: HARCapture, options: Options = Options()) async throws(Failure)
        -> (report: ReplayReport, comparison: ReplayComparison)
    {
        let played = try await play(CaptureAnalysis(capture), options: options)
        return (played.report, ReplayComparison(played, capture: capture))
    }
}
