import Scenario
public import ScenarioReports

extension HARCapture {
    /// The capture as the HTML report draws it: its exchanges and, for a capture of a
    /// signinsim run, its pages (one per top-level step) with how each step ended.
    public var trace: ScenarioTrace {
        let start = pages.compactMap(\.startedAtMilliseconds).min()
        let diagramPages = pages.map { page in
            let outcome = page.outcome?["outcome"]?.stringValue.flatMap(StepRecord.Outcome.init(rawValue:))
            var subtitle: [String] = []
            if let start, let began = page.startedAtMilliseconds {
                subtitle.append("world time " + SequenceDiagram.elapsed(began - start))
            }
            if let outcome {
                let call = page.outcome?["call"]?.stringValue.map { " (\($0))" } ?? ""
                subtitle.append(outcome.rawValue + call)
            }
            return DiagramPage(
                id: page.id, title: page.title, subtitle: subtitle.joined(separator: " · "), outcome: outcome)
        }
        return ScenarioTrace(exchanges: exchanges, pages: diagramPages, apps: [])
    }
}
