public import Scenario

/// Which of a run's web sheet screenshots its reports keep (`run --screenshots`).
///
/// A picture costs about 10 KB in a report. The pages of the embedded issuer are the same in
/// every run, so by default a passing scenario against it keeps none: the reports of the whole
/// bundled library in WebKit stay about the size of `lite`'s, and every failure, and every page
/// of a real issuer, keeps its pictures (docs/browser.md).
public enum ScreenshotPolicy: String, Sendable, CaseIterable {
    /// Failed or interrupted scenarios, and scenarios against an issuer other than the embedded one.
    case auto
    case all
    case none

    /// Whether a scenario that ended with `status` against that issuer keeps its pictures.
    public func keeps(status: ScenarioResult.Status, embeddedIssuer: Bool) -> Bool {
        switch self {
        case .all: true
        case .none: false
        case .auto: status != .passed || !embeddedIssuer
        }
    }
}

extension StepRecord {
    /// The record without screenshots, its children's included.
    func withoutScreenshots() -> StepRecord {
        var record = self
        for index in record.sheetPages.indices { record.sheetPages[index].screenshot = nil }
        record.children = record.children.map { $0.withoutScreenshots() }
        return record
    }
}
