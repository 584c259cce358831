import HTTPCore
public import JSON
import Recordings
import Scenario
import ScenarioRunner

/// What a replay found: one line per recorded exchange, in the capture's order and numbered as
/// its entries (from 1), with who sent it, what was recorded, what the replayed app did with it
/// and where they differ; the requests only the replay made; each step of the story with its
/// recorded and replayed outcome; the audit of the recorded ID tokens.
public struct ReplayReport: Sendable {
    /// One recorded exchange.
    public struct Line: Sendable, Hashable {
        /// The entry's number in `log.entries`, from 1.
        public var entry: Int
        /// Milliseconds after the capture's first request started.
        public var offsetMilliseconds: Int64
        /// `app`, `browser`, `apple` or `issuer`.
        public var sender: String
        public var method: String
        public var path: String
        /// The endpoint's role (`token`, `login`, …).
        public var role: String
        /// What was recorded: status, OAuth error, page, redirect, or no answer.
        public var recorded: String
        public var recordedStatus: Int?
        public var recordedError: String?
        /// Whether the recording holds an answer (false: a transport failure).
        public var answered: Bool
        /// What the replayed app did with it.
        public var replay: String
        /// Where the replay parts from the recording, when it does.
        public var divergence: String?
        /// The story's step the exchange belongs to, from 1.
        public var step: Int?
    }

    /// A request the replayed app made that no recorded exchange answered as such.
    public struct ExtraRequest: Sendable, Hashable {
        /// Its place among the replayed requests, from 1.
        public var number: Int
        public var sender: String
        public var method: String
        public var path: String
        /// What became of it.
        public var outcome: String
        public var divergence: Bool
    }

    /// A step of the story.
    public struct StepLine: Sendable, Hashable {
        public var number: Int
        public var name: String
        /// The entries it stands for, by number.
        public var entries: [Int]
        /// The outcome the recording shows: an SDK call's result (`ok`, an error code), or for
        /// a story read from traffic, what its decisive exchange answered.
        public var recorded: String?
        public var replayed: String?
        public var divergence: String?
    }

    public var capture: String
    public var creator: String?
    public var entryCount: Int
    public var issuer: String
    public var clientID: String
    public var profile: String
    public var mode: String
    /// `recorded steps` or `read from the traffic`.
    public var story: String
    public var lines: [Line] = []
    public var extras: [ExtraRequest] = []
    public var steps: [StepLine] = []
    /// What the replay did about signed data and correlated values, and what the story read.
    public var notes: [String] = []
    /// Per entry number: the recorded ID token's audit.
    public var tokens: [(entry: Int, finding: String)] = []
    public var skipped: [String] = []
    public var signedInAtEndRecorded: Bool?
    public var signedInAtEndReplayed: Bool?

    /// Whether the replayed app behaved as the capture shows.
    public var matches: Bool {
        lines.allSatisfy { $0.divergence == nil } && extras.allSatisfy { !$0.divergence }
            && steps.allSatisfy { $0.divergence == nil }
            && (signedInAtEndRecorded == nil || signedInAtEndRecorded == signedInAtEndReplayed)
    }

    /// The report, section by section: the capture and client, a line per recorded exchange,
    /// the requests only the replay made, the steps, the app's state at the end, the token
    /// audit and the notes.
    init(
        analysis: CaptureAnalysis, story: ReplayStory, server: ReplayServer, outcome: ScenarioRunner.Outcome,
        audit: [Int: String], options: CaptureReplay.Options
    ) {
        let capture = analysis.capture
        self.capture = options.file
        creator = capture.creator
        entryCount = capture.exchanges.count + capture.skipped.count
        issuer = story.issuerURL
        clientID = story.scenario.apps.first?.clientID ?? ""
        profile = story.scenario.apps.map(\.profile.description).joined(separator: ", ")
        mode = options.mode.rawValue
        self.story = story.source == .recordedSteps ? "recorded steps" : "read from the traffic"
        skipped = capture.skipped.map(\.description)
        let served = server.served.sorted { $0.sequence < $1.sequence }
        // Sequential mode gives entries whatever the request: a request that differs shows on
        // the entry's line already.
        lines = Self.exchangeLines(
            analysis: analysis, story: story, served: served,
            outOfOrder: options.mode == .sequential
                ? [:] : Self.answersOutOfOrder(served: served, server: server, analysis: analysis))
        extras = served.compactMap { Self.extraRequest($0, capture: capture) }
        stepLines(story: story, outcome: outcome, analysis: analysis)
        if let recorded = capture.run?["signed_in_at_end"]?.objectValue, let first = story.scenario.apps.first
        {
            signedInAtEndRecorded = recorded[first.bundleID]?.boolValue
        }
        if let first = story.scenario.apps.first {
            signedInAtEndReplayed = outcome.recording?.signedInAtEnd[first.bundleID]
        }
        tokens = audit.sorted { $0.key < $1.key }.map { (capture.entryNumber(of: $0.key), $0.value) }
        notes = story.notes + Self.replayNotes(analysis: analysis, story: story, server: server)
    }

    /// Answers given out of the issuer's order, each with the entry given before it that the
    /// recording has later (identical requests of a race count in the order the issuer handled
    /// them; cache fetches not at all).
    private static func answersOutOfOrder(
        served: [ReplayServer.Served], server: ReplayServer, analysis: CaptureAnalysis
    ) -> [Int: Int] {
        var outOfOrder: [Int: Int] = [:]
        var latest: (rank: Int, entry: Int)?
        for record in served where record.disposition == .recorded {
            guard let entry = record.entry, !ReplayServer.isCacheFetch(analysis.entries[entry].role),
                let rank = server.rank(of: entry)
            else { continue }
            if let latest, rank < latest.rank {
                outOfOrder[entry] = latest.entry
            } else {
                latest = (rank, entry)
            }
        }
        return outOfOrder
    }

    /// What the capture shows of each sign-in, by exchange: what each redirect to the app's
    /// callback carried (RFC 6749 §4.1.2, §10.12), and each login the issuer rejected.
    private static func signInNotes(_ analysis: CaptureAnalysis) -> [Int: String] {
        var notes: [Int: String] = [:]
        for flow in analysis.signIns {
            guard let callback = flow.callback else { continue }
            var note =
                callback.error.map { "the callback carries error \($0)" } ?? "the callback carries a code"
            if callback.state == nil {
                note += " and no state"
            } else if !callback.stateMatches {
                note += "; its state is not the one the authorization request sent"
            }
            notes[callback.exchange] = note
        }
        for flow in analysis.signIns {
            for attempt in flow.loginAttempts where attempt.rejected {
                notes[attempt.exchange] =
                    analysis.entries[attempt.exchange].summary.page == nil
                    ? "the login was rejected: the page's script shows the error"
                    : "the login was rejected: the form came back"
            }
        }
        return notes
    }

    /// A line per recorded exchange, in the capture's order: what was recorded, and what the
    /// replayed app did with it (the first answer it was given, from `served`).
    private static func exchangeLines(
        analysis: CaptureAnalysis, story: ReplayStory, served: [ReplayServer.Served], outOfOrder: [Int: Int]
    ) -> [Line] {
        let capture = analysis.capture
        let start = ReplayStory.firstMoment(analysis)
        let signInNotes = signInNotes(analysis)
        var stepOf: [Int: Int] = [:]
        for (step, entries) in story.stepEntries { for entry in entries { stepOf[entry] = step } }
        var servedFor: [Int: ReplayServer.Served] = [:]
        for record in served where record.disposition == .recorded {
            if let entry = record.entry, servedFor[entry] == nil { servedFor[entry] = record }
        }
        return capture.exchanges.indices.map { index in
            let exchange = capture.exchanges[index]
            let entry = analysis.entries[index]
            var line = Line(
                entry: capture.entryNumber(of: index),
                offsetMilliseconds: exchange.startedAtMilliseconds - start,
                sender: entry.sender.rawValue, method: exchange.method, path: URLParts.path(of: exchange.url),
                role: entry.role.rawValue, recorded: entry.summary.phrase,
                recordedStatus: entry.summary.status,
                recordedError: entry.summary.oauthError, answered: entry.summary.status != nil, replay: "",
                divergence: nil, step: stepOf[index])
            if let note = signInNotes[index] { line.recorded += " (\(note))" }
            replay(
                into: &line, entry: entry, served: servedFor[index],
                answeredAfter: outOfOrder[index].map(capture.entryNumber(of:)))
            return line
        }
    }

    /// What the replayed app did with a recorded exchange, and where that parts from the
    /// recording: the answer given to it (to another sender, to a request that differs, or
    /// after `answeredAfter`, an entry the recording has later), or why none was.
    private static func replay(
        into line: inout Line, entry: CaptureAnalysis.Entry, served record: ReplayServer.Served?,
        answeredAfter earlier: Int?
    ) {
        if entry.sender == .issuer {
            line.replay = "the issuer's own request: not replayed"
        } else if let record {
            line.replay = "given to the replayed \(record.sender.rawValue)"
            if record.sender != entry.sender {
                line.replay += " (recorded from the \(entry.sender.rawValue))"
            }
            if !record.differences.isEmpty {
                line.divergence = "the request differs: " + record.differences.joined(separator: "; ")
            }
            if let earlier {
                let note = "answered after entry \(earlier), which the recording has later"
                line.divergence = line.divergence.map { $0 + "; " + note } ?? note
            }
        } else if ReplayServer.isCacheFetch(entry.role) {
            line.replay = "not fetched by the replayed app (its caches differ: not a divergence)"
        } else if entry.role == .other {
            line.replay = "not an OAuth request: not replayed"
        } else {
            line.replay = "not requested by the replayed app"
            line.divergence = "the replayed app did not make this request"
        }
    }

    /// A request the replayed app made that no recorded exchange answered as such (nil for one
    /// that was), with what became of it.
    private static func extraRequest(_ record: ReplayServer.Served, capture: HARCapture) -> ExtraRequest? {
        var extra = ExtraRequest(
            number: record.sequence + 1, sender: record.sender.rawValue, method: record.method,
            path: URLParts.path(of: record.url), outcome: "", divergence: true)
        switch record.disposition {
        case .notInCapture:
            extra.outcome = "the capture has no answer for it: refused"
        case .noMoreEntries:
            extra.outcome = "the capture has no more entries: refused"
        case .newEpisode(let url):
            extra.outcome =
                "sent to \(URLParts.stripQueryAndFragment(url)), which answered "
                + (record.status.map(String.init) ?? "nothing")
        case .servedAgain:
            extra.outcome =
                "given entry \(record.entry.map(capture.entryNumber(of:)) ?? 0) again (a cache fetch)"
            extra.divergence = false
        case .synthesized(let what):
            extra.outcome = "answered with \(what)"
            extra.divergence = false
        case .recorded:
            return nil
        }
        if !record.differences.isEmpty {
            extra.outcome += "; " + record.differences.joined(separator: "; ")
        }
        return extra
    }

    /// The replay's notes after the story's: what the recorded app did (for a story read from
    /// traffic), and how the replay stood in for the values the app draws and the issuer signs.
    private static func replayNotes(analysis: CaptureAnalysis, story: ReplayStory, server: ReplayServer)
        -> [String]
    {
        var notes: [String] = []
        if story.source == .inferred {
            let behavior = ClientBehavior(analysis)
            for finding in behavior.findings { notes.append("the recorded app: \(finding)") }
            if behavior.profile != .default,
                !story.scenario.apps.allSatisfy({ $0.profile == behavior.profile })
            {
                notes.append("--sdk-profile \(behavior.profile) plays the app as the capture shows it")
            }
        }
        if !server.keys.isEmpty {
            let entries = server.keys.resignedExchanges.map { String(analysis.capture.entryNumber(of: $0)) }
            notes.append(
                "the replayed app drew its own state, nonce and PKCE values: answers carry them in place of "
                    + "the recorded ones, and the ID token of entr\(entries.count == 1 ? "y" : "ies") "
                    + entries.joined(separator: ", ")
                    + " was signed again by a replay key standing for the recorded key (the key sets it "
                    + "fetches hold the replay key); the recorded tokens are audited against the recorded "
                    + "keys below")
        } else if !analysis.signIns.isEmpty {
            notes.append(
                "the replayed app drew its own state, nonce and PKCE values: answers carry them in place of "
                    + "the recorded ones")
        }
        return notes
    }

    /// The steps, with their recorded and replayed outcomes.
    private mutating func stepLines(
        story: ReplayStory, outcome: ScenarioRunner.Outcome, analysis: CaptureAnalysis
    ) {
        let capture = analysis.capture
        for recordedStep in outcome.recording?.steps ?? [] {
            let number = recordedStep.number
            var line = StepLine(
                number: number, name: recordedStep.step.name,
                entries: (story.stepEntries[number] ?? []).map(capture.entryNumber(of:)).sorted(),
                recorded: nil, replayed: Self.calls(recordedStep.record), divergence: nil)
            if recordedStep.record.outcome == .skipped, let note = recordedStep.record.note {
                line.replayed = "skipped: \(note)"
            }
            switch story.source {
            case .recordedSteps:
                if let recorded = story.recordedOutcomes[number] {
                    line.recorded = Self.calls(recorded)
                    if let recordedCalls = line.recorded, let replayed = Self.calls(recordedStep.record),
                        Self.sortedCalls(recordedCalls) != Self.sortedCalls(replayed)
                    {
                        line.divergence = "the call ended \(replayed), the recording \(recordedCalls)"
                    }
                }
            case .inferred:
                line.recorded = story.stepEntries[number].flatMap { Self.decisive($0, analysis) }
            }
            steps.append(line)
        }
    }

    /// `ok`, an error code, or for a parallel block the branches' outcomes (`ok + session_expired`).
    static func calls(_ record: StepRecord) -> String? {
        if let call = record.callOutcome { return call.reportedName }
        let inner = record.children.compactMap(calls)
        return inner.isEmpty ? nil : inner.joined(separator: " + ")
    }

    /// The same from a page's recorded `_outcome`.
    static func calls(_ outcome: JSONValue) -> String? {
        if let call = outcome["call"]?.stringValue { return call }
        let inner = (outcome["children"]?.arrayValue ?? []).compactMap(calls)
        return inner.isEmpty ? nil : inner.joined(separator: " + ")
    }

    /// The branches of a race are interchangeable: which call got which answer is scheduling.
    static func sortedCalls(_ text: String) -> [String] {
        text.components(separatedBy: " + ").sorted()
    }

    /// What the exchanges of a step read from traffic ended with: its last answer from the app's
    /// side, or the callback the browser reached.
    static func decisive(_ entries: [Int], _ analysis: CaptureAnalysis) -> String? {
        if let flow = analysis.signIns.first(where: { entries.contains($0.authorization) }) {
            if let exchange = flow.codeExchange {
                return "code exchange \(analysis.entries[exchange].summary.phrase)"
            }
            if let callback = flow.callback {
                if let error = callback.error { return "callback with error \(error)" }
                if !callback.stateMatches { return "callback with a state that is not the request's" }
                return "callback with a code that was never exchanged"
            }
            if let attempt = flow.loginAttempts.last, attempt.rejected { return "login rejected" }
            return "the browser stopped before the callback"
        }
        guard let last = entries.last(where: { analysis.entries[$0].sender == .app }) else { return nil }
        return analysis.entries[last].summary.phrase
    }

    // MARK: Text

    /// `+1.234s`.
    static func offset(_ milliseconds: Int64) -> String {
        let sign = milliseconds < 0 ? "-" : "+"
        let value = abs(milliseconds)
        let seconds = value / 1000
        let fraction = String(value % 1000)
        return sign + String(seconds) + "." + String(repeating: "0", count: 3 - fraction.count) + fraction
            + "s"
    }

    public var text: String {
        var out: [String] = []
        out.append(
            "replay of \(capture): \(entryCount) entr\(entryCount == 1 ? "y" : "ies")"
                + (creator.map { " (\($0))" } ?? "") + ", issuer \(issuer), client \(clientID)")
        out.append("story: \(story); SDK profile \(profile); mode \(mode)")
        out.append(
            "entries are numbered from 1 in the file's order; times are from the capture's first request")
        for note in notes { out.append("note: \(note)") }
        out.append("")
        out.append("exchanges:")
        for line in lines {
            var text =
                "  #\(line.entry) \(Self.offset(line.offsetMilliseconds)) \(line.sender) \(line.method) \(line.path)"
                + " — recorded: \(line.recorded) — replay: \(line.replay)"
            if let divergence = line.divergence { text += " — DIFFERS: \(divergence)" }
            out.append(text)
        }
        out.append("requests only the replay made:" + (extras.isEmpty ? " none" : ""))
        for extra in extras {
            out.append(
                "  request \(extra.number): \(extra.sender) \(extra.method) \(extra.path) — \(extra.outcome)"
                    + (extra.divergence ? " — DIFFERS" : ""))
        }
        out.append("steps:")
        for step in steps {
            var text = "  \(step.number). \(step.name)"
            if !step.entries.isEmpty { text += " (entries \(Self.ranges(step.entries)))" }
            if let recorded = step.recorded { text += " — recorded: \(recorded)" }
            text += " — replayed: \(step.replayed ?? "done")"
            if let divergence = step.divergence { text += " — DIFFERS: \(divergence)" }
            out.append(text)
        }
        func yesNo(_ value: Bool?) -> String { value.map { $0 ? "yes" : "no" } ?? "unknown" }
        out.append(
            "signed in at the end: recorded \(yesNo(signedInAtEndRecorded)), replayed \(yesNo(signedInAtEndReplayed))"
                + (signedInAtEndRecorded != nil && signedInAtEndRecorded != signedInAtEndReplayed
                    ? " — DIFFERS" : ""))
        out.append("recorded ID tokens:" + (tokens.isEmpty ? " none" : ""))
        for token in tokens { out.append("  #\(token.entry) \(token.finding)") }
        if !skipped.isEmpty {
            out.append("capture entries skipped:")
            for line in skipped { out.append("  \(line)") }
        }
        out.append(matches ? "the app behaves as recorded" : "the app diverges from the recording")
        return out.joined(separator: "\n") + "\n"
    }

    /// `3-5, 7`.
    static func ranges(_ numbers: [Int]) -> String {
        var parts: [String] = []
        var index = 0
        while index < numbers.count {
            var end = index
            while end + 1 < numbers.count, numbers[end + 1] == numbers[end] + 1 { end += 1 }
            parts.append(end > index ? "\(numbers[index])-\(numbers[end])" : "\(numbers[index])")
            index = end + 1
        }
        return parts.joined(separator: ", ")
    }

    // MARK: JSON

    /// The same facts for tools (`replay --format json`).
    public var json: JSONValue {
        func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        func optional(_ value: Int?) -> JSONValue { value.map { .int(Int64($0)) } ?? .null }
        func optional(_ value: Bool?) -> JSONValue { value.map(JSONValue.bool) ?? .null }
        return [
            "capture": .string(capture), "creator": optional(creator), "entries": .int(Int64(entryCount)),
            "entry_numbering": "from 1, in the file's order",
            "issuer": .string(issuer), "client_id": .string(clientID), "profile": .string(profile),
            "mode": .string(mode), "story": .string(story),
            "notes": .array(notes.map(JSONValue.string)),
            "exchanges": .array(
                lines.map { line in
                    [
                        "entry": .int(Int64(line.entry)), "offset_ms": .int(line.offsetMilliseconds),
                        "sender": .string(line.sender), "method": .string(line.method),
                        "path": .string(line.path),
                        "role": .string(line.role), "recorded": .string(line.recorded),
                        "recorded_status": optional(line.recordedStatus),
                        "recorded_error": optional(line.recordedError),
                        "answered": .bool(line.answered), "replay": .string(line.replay),
                        "divergence": optional(line.divergence), "step": optional(line.step),
                    ]
                }),
            "replay_only_requests": .array(
                extras.map { extra in
                    [
                        "number": .int(Int64(extra.number)), "sender": .string(extra.sender),
                        "method": .string(extra.method), "path": .string(extra.path),
                        "outcome": .string(extra.outcome), "divergence": .bool(extra.divergence),
                    ]
                }),
            "steps": .array(
                steps.map { step in
                    [
                        "number": .int(Int64(step.number)), "name": .string(step.name),
                        "entries": .array(step.entries.map { .int(Int64($0)) }),
                        "recorded": optional(step.recorded),
                        "replayed": optional(step.replayed), "divergence": optional(step.divergence),
                    ]
                }),
            "signed_in_at_end": [
                "recorded": optional(signedInAtEndRecorded), "replayed": optional(signedInAtEndReplayed),
            ],
            "id_tokens": .array(
                tokens.map { ["entry": .int(Int64($0.entry)), "finding": .string($0.finding)] }),
            "skipped": .array(skipped.map(JSONValue.string)),
            "behaves_as_recorded": .bool(matches),
        ]
    }
}
