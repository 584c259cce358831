import HTTPCore
import JSON
public import Scenario

/// A step as a diagram band shows it: a HAR page of a run.
public struct DiagramPage: Sendable, Hashable {
    /// The HAR page id (`step-3`) its exchanges name as `pageref`.
    public var id: String
    /// `3 signIn`.
    public var title: String
    /// Where it is written, when it began and how it ended.
    public var subtitle: String
    public var outcome: StepRecord.Outcome?
    /// Pictures of the web sheet pages the step acted on.
    public var thumbnails: [SequenceDiagram.Thumbnail]

    public init(
        id: String, title: String, subtitle: String, outcome: StepRecord.Outcome?,
        thumbnails: [SequenceDiagram.Thumbnail] = []
    ) {
        self.id = id
        self.title = title
        self.subtitle = subtitle
        self.outcome = outcome
        self.thumbnails = thumbnails
    }

    /// The pages of a run's recording.
    public static func pages(of recording: RunRecording) -> [DiagramPage] {
        guard let start = recording.steps.first?.startedAtMilliseconds else { return [] }
        return recording.steps.map { step in
            DiagramPage(
                id: step.pageID, title: "\(step.number) \(step.step.name)",
                subtitle: "\(SequenceDiagram.place(step.step.location)) · world time "
                    + SequenceDiagram.elapsed(step.startedAtMilliseconds - start) + " · "
                    + SequenceDiagram.outcome(step.record),
                outcome: step.record.outcome, thumbnails: SequenceDiagram.thumbnails(of: step.record))
        }
    }
}

extension SequenceDiagram {
    /// The diagram of a scenario's run: a lifeline per app, then the web session, the keychain,
    /// the issuer and Apple; a band per page (a top-level step) with the exchanges of that HAR
    /// page; an arrow for each request and each answer.
    ///
    /// Who sent a request is the exchange's `source` (HAR `_source`): an app's SDK, the web
    /// session, the phone's Apple sheet (drawn from the app it serves) or the issuer (calling
    /// Apple). Requests of the app and its sheet go to the issuer; those of the Apple sheet
    /// and of the issuer go to Apple. `apps` orders the apps' lifelines (the scenario's
    /// order); apps seen only in the exchanges follow.
    public init(exchanges: [RecordedExchange], pages: [DiagramPage], apps: [String] = []) {
        var apps = apps
        for app in exchanges.compactMap(\.app) where !apps.contains(app) { apps.append(app) }
        if apps.isEmpty { apps = ["app"] }
        let firstApp = apps[0]
        lifelines = apps.map(Lifeline.app) + [.webSession, .keychain, .issuer, .apple]

        func messages(_ indices: [Int]) -> [Message] {
            indices.flatMap { index -> [Message] in
                let exchange = exchanges[index]
                let app = Lifeline.app(exchange.app ?? firstApp)
                let (from, to): (Lifeline, Lifeline) =
                    switch exchange.source {
                    case .browser: (.webSession, .issuer)
                    case .apple: (app, .apple)
                    case .issuer: (.issuer, .apple)
                    case .app, .device, .unknown: (app, .issuer)
                    }
                let answer = Self.answer(exchange)
                return [
                    Message(
                        from: from, to: to,
                        label: "\(exchange.method) \(URLParts(exchange.url)?.path ?? exchange.url)",
                        isResponse: false, failed: false, exchange: index),
                    Message(
                        from: to, to: from, label: answer.label, isResponse: true, failed: answer.failed,
                        exchange: index),
                ]
            }
        }

        guard !pages.isEmpty else {
            bands = [
                Band(
                    title: "Exchanges", subtitle: "\(exchanges.count) recorded", outcome: nil,
                    messages: messages(Array(exchanges.indices)))
            ]
            return
        }
        var byPage: [String: [Int]] = [:]
        var outside: [Int] = []
        let ids = Set(pages.map(\.id))
        for (index, exchange) in exchanges.enumerated() {
            if let page = exchange.pageref, ids.contains(page) {
                byPage[page, default: []].append(index)
            } else {
                outside.append(index)
            }
        }
        var bands = pages.map { page in
            Band(
                title: page.title, subtitle: page.subtitle, outcome: page.outcome,
                messages: messages(byPage[page.id] ?? []), thumbnails: page.thumbnails)
        }
        if !outside.isEmpty {
            bands.append(
                Band(
                    title: "Outside the steps", subtitle: "exchanges of no step's page", outcome: nil,
                    messages: messages(outside)))
        }
        self.bands = bands
    }

    /// The diagram of a run with its recording (nil: one band of every exchange).
    public init(exchanges: [RecordedExchange], recording: RunRecording?) {
        self.init(
            exchanges: exchanges, pages: recording.map(DiagramPage.pages) ?? [],
            apps: recording?.scenario.apps.map(\.bundleID) ?? [])
    }

    /// An answer's label, and whether it failed: the status, with the OAuth `error` of a JSON
    /// body (RFC 6749 §5.2) or of a redirect's query or fragment (§4.1.2.1); or why none came.
    static func answer(_ exchange: RecordedExchange) -> (label: String, failed: Bool) {
        guard let status = exchange.status else {
            return ("no answer: \(exchange.error ?? "unknown")", true)
        }
        var error: String?
        if let json = try? JSONValue.parse(exchange.responseBody), let code = json["error"]?.stringValue {
            error = code
        }
        for header in exchange.responseHeaders where header.name.lowercased() == "location" {
            guard let parts = URLParts(header.value) else { continue }
            for component in [parts.query, parts.fragment].compactMap({ $0 }) {
                if let form = try? FormURLEncoding.decode(component), let code = form["error"] {
                    error = code
                }
            }
        }
        let label = error.map { "\(status) \($0)" } ?? "\(status)"
        return (label, status >= 400 || error != nil)
    }

    static func place(_ location: SourceLocation) -> String {
        let file = location.file.split(separator: "/").last.map(String.init) ?? location.file
        return "\(file):\(location.line)"
    }

    /// `+0s`, `+1h 0m 5s`: world time since the first step began.
    public static func elapsed(_ milliseconds: Int64) -> String {
        let seconds = max(0, milliseconds / 1000)
        let (days, hours, minutes) = (seconds / 86_400, seconds / 3600 % 24, seconds / 60 % 60)
        var text = "+"
        if days > 0 { text += "\(days)d " }
        if days > 0 || hours > 0 { text += "\(hours)h " }
        if seconds >= 60 { text += "\(minutes)m " }
        return text + "\(seconds % 60)s"
    }

    static func outcome(_ record: StepRecord) -> String {
        var text = record.outcome.rawValue
        if let call = record.callOutcome { text += " (\(call.reportedName))" }
        return text
    }
}

extension SequenceDiagram {
    /// The pictures of a step's sheet pages, captioned with what the person did there.
    static func thumbnails(of record: StepRecord) -> [Thumbnail] {
        (record.sheetPages + record.children.flatMap(\.sheetPages)).compactMap { page in
            guard let picture = page.screenshot, picture.width > 0, picture.height > 0 else { return nil }
            var caption = "\(page.title ?? page.url): \(page.action)"
            if !page.rules.isEmpty { caption += " — " + page.rules.joined(separator: "; ") }
            return Thumbnail(
                jpeg: picture.jpeg, width: picture.width, height: picture.height, caption: caption,
                failed: page.failed)
        }
    }
}
